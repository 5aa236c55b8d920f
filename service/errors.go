package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// Sentinels for errors.Is; every typed error below matches one.
var (
	ErrNotFound         = errors.New("not found")
	ErrStale            = errors.New("stale serial")
	ErrLocked           = errors.New("locked")
	ErrUnauthenticated  = errors.New("unauthenticated")
	ErrPermissionDenied = errors.New("permission denied")
	ErrAlreadyExists    = errors.New("already exists")
	ErrMissingBlobs     = errors.New("missing blobs")
	ErrInvalid          = errors.New("invalid argument")
	ErrUnavailable      = errors.New("service unavailable")
	ErrLeaseRefused     = errors.New("lease refused")
	ErrHasDependants    = errors.New("has dependants")
	ErrCycle            = errors.New("dependency cycle")
)

// Why a mutation's lease was refused (LeaseError.Reason).
const (
	// LeaseNone: the mutation carried no lease and nobody holds the lock.
	LeaseNone = "none"
	// LeaseReleased: the mutation's lease was released, by its holder or by
	// force-unlock, or taken over after it expired.
	LeaseReleased = "released"
	// LeaseExpired: the mutation's lease expired and was not renewed.
	LeaseExpired = "expired"
	// LeaseHeld: another holder's lease is live.
	LeaseHeld = "held"
)

// LeaseError: a mutation did not carry a live lease of the project's lock,
// so nothing was written. Holder is set when Reason is LeaseHeld. It
// matches ErrLeaseRefused, and ErrLocked when another holder has the lock.
type LeaseError struct {
	Project string
	Reason  string
	Holder  Holder
}

func (e *LeaseError) Error() string {
	switch e.Reason {
	case LeaseNone:
		return fmt.Sprintf("project %s: the call carries no lease of the project's lock: take the lock first", e.Project)
	case LeaseReleased:
		return fmt.Sprintf("project %s: the call's lease of the project's lock was released (by force-unlock, or taken over after it expired)", e.Project)
	case LeaseExpired:
		return fmt.Sprintf("project %s: the call's lease of the project's lock has expired", e.Project)
	case LeaseHeld:
		return fmt.Sprintf("project %s: the project's lock is held by %s, not by this call's lease", e.Project, e.Holder)
	}
	return fmt.Sprintf("project %s: lease refused (%s)", e.Project, e.Reason)
}

func (e *LeaseError) Is(target error) bool {
	return target == ErrLeaseRefused || (target == ErrLocked && e.Reason == LeaseHeld)
}

// DependantsError: a resource others depend on cannot be deleted.
type DependantsError struct {
	Address    string
	Dependants []string
}

func (e *DependantsError) Error() string {
	verb := "depend"
	if len(e.Dependants) == 1 {
		verb = "depends"
	}
	return fmt.Sprintf("%s cannot be deleted while %s %s on it: delete or change them first", e.Address, strings.Join(e.Dependants, ", "), verb)
}
func (e *DependantsError) Is(target error) bool { return target == ErrHasDependants }

// CycleError: the dependencies of a request would close a cycle, given in
// order with the first address repeated last.
type CycleError struct{ Addresses []string }

func (e *CycleError) Error() string {
	return "dependency cycle: " + strings.Join(e.Addresses, " -> ")
}
func (e *CycleError) Is(target error) bool { return target == ErrCycle || target == ErrInvalid }

// NotFoundError: the project has no such resource, version or lease.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string        { return e.Msg }
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// UnauthenticatedError: the call had no valid token, or came from another
// machine to a server that serves only local clients.
type UnauthenticatedError struct{ Msg string }

func (e *UnauthenticatedError) Error() string        { return e.Msg }
func (e *UnauthenticatedError) Is(target error) bool { return target == ErrUnauthenticated }

// PermissionDeniedError: the token may not use the project.
type PermissionDeniedError struct{ Msg string }

func (e *PermissionDeniedError) Error() string        { return e.Msg }
func (e *PermissionDeniedError) Is(target error) bool { return target == ErrPermissionDenied }

// StaleError: the resource changed after the serial the caller planned
// against.
type StaleError struct {
	Project        string
	Address        string
	ExpectedSerial int64
	ResourceSerial int64
	ProjectSerial  int64
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s in project %s changed at serial %d, after the expected serial %d (the project is now at %d): plan again",
		e.Address, e.Project, e.ResourceSerial, e.ExpectedSerial, e.ProjectSerial)
}
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// LockedError: another holder's lease on the project is live.
type LockedError struct {
	Project string
	Lease   Lease
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("project %s is locked by %s since %s, until %s",
		e.Project, e.Lease.Holder, e.Lease.AcquiredAt.UTC().Format(time.RFC3339), e.Lease.ExpiresAt.UTC().Format(time.RFC3339))
}
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// MissingBlobsError: an apply named blobs that were never uploaded.
type MissingBlobsError struct{ Digests []string }

func (e *MissingBlobsError) Error() string {
	return fmt.Sprintf("%d blob(s) not uploaded: %s", len(e.Digests), strings.Join(e.Digests, ", "))
}
func (e *MissingBlobsError) Is(target error) bool { return target == ErrMissingBlobs }

// Error is any other failure the service reported, with its gRPC code.
type Error struct {
	Code codes.Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Is(target error) bool {
	switch e.Code {
	case codes.AlreadyExists:
		return target == ErrAlreadyExists
	case codes.InvalidArgument, codes.OutOfRange:
		return target == ErrInvalid
	case codes.Unavailable:
		return target == ErrUnavailable
	}
	return false
}

// fromStatus turns an error from a gRPC call into one of the typed errors.
// Context cancellation stays itself.
func fromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	msg := st.Message()
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *ccv1.Stale:
			return &StaleError{Project: d.GetProject(), Address: d.GetAddress(), ExpectedSerial: d.GetExpectedSerial(),
				ResourceSerial: d.GetResourceSerial(), ProjectSerial: d.GetProjectSerial()}
		case *ccv1.LockHeld:
			return &LockedError{Project: d.GetProject(), Lease: leaseFromProto(d.GetLease())}
		case *ccv1.MissingBlobs:
			return &MissingBlobsError{Digests: d.GetDigests()}
		case *ccv1.LeaseRefused:
			e := &LeaseError{Project: d.GetProject(), Reason: d.GetReason()}
			if h := d.GetHolder(); h != nil {
				e.Holder = Holder{User: h.GetUser(), Host: h.GetHost(), Command: h.GetCommand(), PID: h.GetPid()}
			}
			return e
		case *ccv1.Dependants:
			return &DependantsError{Address: d.GetAddress(), Dependants: d.GetDependants()}
		case *ccv1.Cycle:
			return &CycleError{Addresses: d.GetAddresses()}
		case *ccv1.Protected:
			return &ProtectedError{Project: d.GetProject(), Address: d.GetAddress(), Action: d.GetAction(), DeclaredAt: d.GetDeclaredAt()}
		}
	}
	switch st.Code() {
	case codes.NotFound:
		return &NotFoundError{Msg: msg}
	case codes.Unauthenticated:
		return &UnauthenticatedError{Msg: msg}
	case codes.PermissionDenied:
		return &PermissionDeniedError{Msg: msg}
	case codes.Canceled:
		return fmt.Errorf("%s: %w", msg, context.Canceled)
	case codes.DeadlineExceeded:
		return fmt.Errorf("%s: %w", msg, context.DeadlineExceeded)
	}
	return &Error{Code: st.Code(), Msg: msg}
}

// Server side: statuses with details.

func staleStatus(d *ccv1.Stale) error {
	e := &StaleError{Project: d.GetProject(), Address: d.GetAddress(), ExpectedSerial: d.GetExpectedSerial(),
		ResourceSerial: d.GetResourceSerial(), ProjectSerial: d.GetProjectSerial()}
	return withDetail(codes.Aborted, e.Error(), d)
}

// lockedStatus refuses a call because another holder's lease is live. The
// lease's id is not in it: whoever learns the id can write as the holder.
func lockedStatus(project string, l *ccv1.Lease) error {
	l = proto.Clone(l).(*ccv1.Lease)
	l.Id = ""
	e := &LockedError{Project: project, Lease: leaseFromProto(l)}
	return withDetail(codes.FailedPrecondition, e.Error(), &ccv1.LockHeld{Project: project, Lease: l})
}

func leaseRefusedStatus(d *ccv1.LeaseRefused) error {
	e := fromStatus(withDetail(codes.FailedPrecondition, "", d))
	return withDetail(codes.FailedPrecondition, e.Error(), d)
}

func dependantsStatus(address string, dependants []string) error {
	e := &DependantsError{Address: address, Dependants: dependants}
	return withDetail(codes.FailedPrecondition, e.Error(), &ccv1.Dependants{Address: address, Dependants: dependants})
}

func cycleStatus(addresses []string) error {
	e := &CycleError{Addresses: addresses}
	return withDetail(codes.InvalidArgument, e.Error(), &ccv1.Cycle{Addresses: addresses})
}

func missingBlobsStatus(digests []string) error {
	e := &MissingBlobsError{Digests: digests}
	return withDetail(codes.FailedPrecondition, e.Error(), &ccv1.MissingBlobs{Digests: digests})
}

func withDetail(c codes.Code, msg string, d protoadapt.MessageV1) error {
	st, err := status.New(c, msg).WithDetails(d)
	if err != nil {
		return status.Error(c, msg)
	}
	return st.Err()
}
