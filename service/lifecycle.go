package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// The lifecycle of resources (issue 10): a resource protected by
// lifecycle.prevent_destroy is kept in the protections table with where
// the protection was declared, set by every apply of it; DeleteResource
// and a REPLACE refuse a protected resource (defence in depth: the planner
// refuses such a plan first). create_before_destroy is a flag of a
// REPLACE, for the kinds whose schema allows it.

// maxDeclaredAt bounds prevent_destroy_at.
const maxDeclaredAt = 512

// declaredAtRE is "file:line:col" without control characters.
var declaredAtRE = regexp.MustCompile(`^[^\x00-\x1f\x7f]+:[0-9]{1,9}:[0-9]{1,9}$`)

// checkLifecycleRequest checks the lifecycle fields of an apply request.
func checkLifecycleRequest(addr string, kind schema.Kind, req *ccv1.ApplyResourceRequest) error {
	at := req.GetPreventDestroyAt()
	if at != "" && !req.GetPreventDestroy() {
		return status.Errorf(codes.InvalidArgument, "%s: prevent_destroy_at without prevent_destroy", addr)
	}
	if err := checkDeclaredAt(addr, at); err != nil {
		return err
	}
	if req.GetCreateBeforeDestroy() {
		if req.GetAction() != ccv1.Action_ACTION_REPLACE {
			return status.Errorf(codes.InvalidArgument, "%s: create_before_destroy goes with ACTION_REPLACE only", addr)
		}
		if !schema.Default().CreateBeforeDestroy(kind) {
			return status.Errorf(codes.InvalidArgument, "%s: a %s cannot be created before it is destroyed (create_before_destroy is for %v)",
				addr, kind, schema.Default().CreateBeforeDestroyKinds())
		}
	}
	return nil
}

// checkDeclaredAt checks a request's prevent_destroy_at: "" or a bounded
// file:line:col.
func checkDeclaredAt(addr, at string) error {
	switch {
	case len(at) > maxDeclaredAt:
		return status.Errorf(codes.InvalidArgument, "%s: prevent_destroy_at is longer than %d bytes", addr, maxDeclaredAt)
	case at != "" && !declaredAtRE.MatchString(at):
		return status.Errorf(codes.InvalidArgument, "%s: prevent_destroy_at %q is not file:line:col", addr, at)
	}
	return nil
}

// reprotect records at as where the protection of the resource at addr is
// declared now, when it is protected and at is not "" (a move's
// prevent_destroy_at).
func (t *mutation) reprotect(addr, at string) error {
	if at == "" {
		return nil
	}
	_, on, err := t.protection(addr)
	if err != nil || !on {
		return err
	}
	return t.protect(addr, true, at)
}

// protection is where the resource at addr was protected, and whether it
// is.
func (t *mutation) protection(addr string) (string, bool, error) {
	var at string
	if m, ok, err := t.tx.smallTable(t.ctx, "protections", t.project); err != nil {
		return "", false, dbError(err)
	} else if ok {
		at, on := m[addr]
		return at, on, nil
	}
	err := t.tx.QueryRowContext(t.ctx, "SELECT declared_at FROM protections WHERE project = ? AND address = ?", t.project, addr).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, dbError(err)
	}
	return at, true, nil
}

// protect records whether the resource at addr is protected, and where
// that was declared.
func (t *mutation) protect(addr string, on bool, at string) error {
	var err error
	switch {
	case on:
		err = t.exec(upsertProtection, t.project, addr, at)
	case t.tx.facts.smallLacks("protections", t.project, addr):
		// none to delete
	default:
		err = t.exec("DELETE FROM protections WHERE project = ? AND address = ?", t.project, addr)
	}
	if err != nil {
		return dbError(err)
	}
	return nil
}

// refuseProtected refuses to delete or replace (action) the resource at
// addr when it is protected.
func (t *mutation) refuseProtected(addr, action string) error {
	at, on, err := t.protection(addr)
	if err != nil || !on {
		return err
	}
	return protectedStatus(&ccv1.Protected{Project: t.project, Address: addr, Action: action, DeclaredAt: at})
}

// stateProtections are the protected resources of a project: where each
// was declared, by address.
func stateProtections(ctx context.Context, tx *sql.Tx, project string) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT address, declared_at FROM protections WHERE project = ?", project)
	if err != nil {
		return nil, dbError(err)
	}
	out := map[string]string{}
	for rows.Next() {
		var addr, at string
		if err := rows.Scan(&addr, &at); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		out[addr] = at
	}
	return out, closeRows(rows)
}

// addProtections marks the protected resources of a state.
func addProtections(ctx context.Context, tx *sql.Tx, project string, resources []*ccv1.Resource) error {
	prot, err := stateProtections(ctx, tx, project)
	if err != nil || len(prot) == 0 {
		return err
	}
	for _, r := range resources {
		if at, ok := prot[r.GetAddress()]; ok {
			r.PreventDestroy, r.PreventDestroyAt = true, at
		}
	}
	return nil
}

// ProtectedError: the resource is protected by lifecycle.prevent_destroy,
// and the call would delete or replace it. It matches ErrProtected.
type ProtectedError struct {
	Project, Address string
	// Action is "delete" or "replace".
	Action string
	// DeclaredAt is where the protection was declared ("" if unknown).
	DeclaredAt string
}

// ErrProtected matches a *ProtectedError.
var ErrProtected = errors.New("protected")

func (e *ProtectedError) Error() string {
	at := ""
	if e.DeclaredAt != "" {
		at = " (declared at " + e.DeclaredAt + ")"
	}
	return fmt.Sprintf("%s in project %s is protected by lifecycle.prevent_destroy%s: the service will not %s it; apply it with the flag removed first",
		e.Address, e.Project, at, e.Action)
}

func (e *ProtectedError) Is(target error) bool { return target == ErrProtected }

func protectedStatus(d *ccv1.Protected) error {
	e := &ProtectedError{Project: d.GetProject(), Address: d.GetAddress(), Action: d.GetAction(), DeclaredAt: d.GetDeclaredAt()}
	return withDetail(codes.FailedPrecondition, e.Error(), d)
}
