package service

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const (
	// maxNameField bounds a name: a project, an address, a dependency, a
	// lease id (a DNS name's limit).
	maxNameField = 253
	// maxStringField bounds every other string of a request (JSON
	// pointers, digests, hashes, holders' commands).
	maxStringField = 4096
)

// nameFields are the string fields that hold names, bounded by
// maxNameField.
var nameFields = map[protoreflect.Name]bool{
	"project":    true,
	"address":    true,
	"depends_on": true,
	"lease_id":   true,
}

// checkStrings refuses a request with a string longer than its field
// allows, anywhere in it, before any of its fields is looked at, logged or
// quoted in an error: the error names the field and its length, never its
// value. Bytes fields (specs, values, blob data) are bounded where they are
// used.
func checkStrings(m proto.Message) error {
	return checkMessage(m.ProtoReflect(), "")
}

func checkMessage(m protoreflect.Message, prefix string) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := prefix + string(fd.Name())
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapKey().Kind() == protoreflect.StringKind {
					err = checkString(fd, name, k.String())
				}
				if err == nil && fd.MapValue().Kind() == protoreflect.StringKind {
					err = checkString(fd, name, mv.String())
				}
				if err == nil && fd.MapValue().Message() != nil {
					err = checkMessage(mv.Message(), name+".")
				}
				return err == nil
			})
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				switch {
				case fd.Kind() == protoreflect.StringKind:
					err = checkString(fd, name, l.Get(i).String())
				case fd.Message() != nil:
					err = checkMessage(l.Get(i).Message(), name+".")
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			err = checkString(fd, name, v.String())
		case fd.Message() != nil:
			err = checkMessage(v.Message(), name+".")
		}
		return err == nil
	})
	return err
}

func checkString(fd protoreflect.FieldDescriptor, name, s string) error {
	limit := maxStringField
	if nameFields[fd.Name()] {
		limit = maxNameField
	}
	if len(s) > limit {
		return status.Errorf(codes.InvalidArgument, "%s is %d bytes long: at most %d", name, len(s), limit)
	}
	return nil
}

// uploadLimit bounds the uploads each token runs at once: one token's
// uploads wait for each other, not for another token's.
type uploadLimit struct {
	max   int
	mu    sync.Mutex
	slots map[any]chan struct{} // by token; one slot per running upload
}

func newUploadLimit(n int) *uploadLimit {
	return &uploadLimit{max: n, slots: map[any]chan struct{}{}}
}

// start waits until who runs fewer uploads than it may, and counts one
// more; done must be called when it ends.
func (u *uploadLimit) start(ctx context.Context, who any) (done func(), err error) {
	u.mu.Lock()
	c := u.slots[who]
	if c == nil {
		c = make(chan struct{}, u.max)
		u.slots[who] = c
	}
	u.mu.Unlock()
	select {
	case c <- struct{}{}:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-c }) }, nil
}
