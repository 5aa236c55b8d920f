package buildkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"cc.dev/cc/schema"
)

// Bases returns the registry references the images of d are built from, as
// written in the configuration: a reference the compiler pinned through
// lock ("python:3.12-slim@sha256:..." where lock has that digest for
// "python:3.12-slim") is given as written. Locked reports which of them
// lock pins; references the configuration itself pins by digest are not
// bases to lock and are left out.
func Bases(d *schema.Desired, lock *schema.Lock) (refs []string, locked map[string]bool, err error) {
	locked = map[string]bool{}
	seen := map[string]bool{}
	for i := range d.Resources {
		r := &d.Resources[i]
		if r.Kind != schema.KindImage {
			continue
		}
		var spec schema.ImageSpec
		if err := json.Unmarshal(r.Spec, &spec); err != nil {
			return nil, nil, fmt.Errorf("%s: decode spec: %w", r.Address, err)
		}
		ref := spec.From
		if ref == "" {
			continue
		}
		isLocked := false
		if name, dgst, ok := strings.Cut(ref, "@"); ok {
			if lock == nil || lock.Bases[name] != dgst {
				continue // pinned in the configuration
			}
			ref, isLocked = name, true
		}
		if !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
		if isLocked {
			locked[ref] = true
		}
	}
	sort.Strings(refs)
	return refs, locked, nil
}

// LockChange is one entry of a new lock: Old is "" for a new entry.
type LockChange struct {
	Ref, Old, New string
}

// Lock resolves the floating base references of d to digests and returns
// the new lock: entries of old that d still uses are kept unless update is
// set, the others resolved; entries d no longer uses are dropped.
func Lock(ctx context.Context, reg *Registry, d *schema.Desired, old *schema.Lock, update bool) (*schema.Lock, []LockChange, error) {
	refs, locked, err := Bases(d, old)
	if err != nil {
		return nil, nil, err
	}
	out := &schema.Lock{Version: schema.LockVersion, Bases: map[string]string{}}
	var todo []string
	for _, ref := range refs {
		if locked[ref] && !update {
			out.Bases[ref] = old.Bases[ref]
			continue
		}
		todo = append(todo, ref)
	}
	digests := make([]string, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, ref := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			dgst, err := reg.Resolve(ctx, ref)
			if err != nil {
				errs[i] = fmt.Errorf("resolve %s: %w", ref, err)
				return
			}
			digests[i] = dgst
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	var changes []LockChange
	for i, ref := range todo {
		out.Bases[ref] = digests[i]
		prev := ""
		if old != nil {
			prev = old.Bases[ref]
		}
		if prev != digests[i] {
			changes = append(changes, LockChange{Ref: ref, Old: prev, New: digests[i]})
		}
	}
	if old != nil {
		for ref, dgst := range old.Bases {
			if _, ok := out.Bases[ref]; !ok {
				changes = append(changes, LockChange{Ref: ref, Old: dgst})
			}
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Ref < changes[j].Ref })
	return out, changes, nil
}
