package service

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// Drift (issue 10): the spec the service holds is what a resource HAS. A
// change made outside cc (PatchResource, TerminateSandbox) changes it and
// keeps a record of who changed what, and when; a sandbox whose lifetime
// has passed is reported expired. cc plans against that, shows the records
// in a "changed outside cc" section, and puts the configuration back.

// Drift record kinds (Drift.what).
const (
	DriftChanged    = "changed"
	DriftTerminated = "terminated"
	DriftExpired    = "expired"
)

// Limits of a PatchResource request.
const (
	maxPatchFields = 100
	maxPatchValue  = 1 << 20
)

// driftField is a DriftField as stored (the drift table's fields column
// holds a JSON list of them).
type driftField struct {
	Pointer   string          `json:"pointer"`
	Before    json.RawMessage `json:"before,omitempty"`
	After     json.RawMessage `json:"after,omitempty"`
	Sensitive bool            `json:"sensitive,omitempty"`
}

// actorOf names who makes a call: its token's name, or "local" on a
// server without tokens.
func actorOf(ctx context.Context) string {
	if p, _ := ctx.Value(principalKey{}).(*principal); p != nil {
		return p.name
	}
	return "local"
}

// observe runs do as a change made outside cc: in one write transaction
// of its own, as mutate does (idempotency keys, the serial), but without
// cc's lease (PatchResource's comment in cc.proto says why).
func (s *Server) observe(ctx context.Context, method string, req baseRequest, resp proto.Message, do func(t *mutation) error) error {
	return s.transact(ctx, method, req, resp, func(t *mutation) error {
		if err := t.openProject(); err != nil {
			return err
		}
		return t.checkExpected(req.GetExpectedSerial())
	}, do)
}

// lifetimeOf is a sandbox spec's lifetime, 0 when it has none.
func lifetimeOf(spec []byte) time.Duration {
	var s struct {
		Lifetime string `json:"lifetime"`
	}
	if json.Unmarshal(spec, &s) != nil || s.Lifetime == "" {
		return 0
	}
	d, err := time.ParseDuration(s.Lifetime)
	if err != nil || d <= 0 {
		return 0
	}
	return d
}

// expiresAt is when a resource row expires: created + lifetime for a
// sandbox with one, else 0.
func expiresAt(kind string, created int64, spec []byte) int64 {
	if kind != string(schema.KindSandbox) {
		return 0
	}
	if d := lifetimeOf(spec); d > 0 {
		return created + int64(d)
	}
	return 0
}

// setExpiry records when the row just put expires.
func (t *mutation) setExpiry(r *row) error {
	at := expiresAt(r.kind, r.created, r.spec)
	if at == 0 {
		return nil
	}
	return t.exec(setExpirySQL, at, t.project, r.address)
}

// addExpiries is part of migration 5: every sandbox with a lifetime gets
// its expiry.
func addExpiries(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT project, address, created_at, spec FROM resources WHERE kind = ?", string(schema.KindSandbox))
	if err != nil {
		return err
	}
	type exp struct {
		project, address string
		at               int64
	}
	var todo []exp
	for rows.Next() {
		var e exp
		var created int64
		var spec []byte
		if err := rows.Scan(&e.project, &e.address, &created, &spec); err != nil {
			rows.Close()
			return err
		}
		if e.at = expiresAt(string(schema.KindSandbox), created, spec); e.at > 0 {
			todo = append(todo, e)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, e := range todo {
		if _, err := tx.ExecContext(ctx, "UPDATE resources SET expires_at = ? WHERE project = ? AND address = ?", e.at, e.project, e.address); err != nil {
			return err
		}
	}
	return nil
}

// gone reports whether the resource row is no longer running: terminated,
// or expired (recorded or not), at now; it returns the status it has.
func gone(status, expires, now int64) (ccv1.Status, bool) {
	switch ccv1.Status(status) {
	case ccv1.Status_STATUS_TERMINATED, ccv1.Status_STATUS_EXPIRED:
		return ccv1.Status(status), true
	}
	if expires > 0 && expires <= now {
		return ccv1.Status_STATUS_EXPIRED, true
	}
	return ccv1.Status(status), false
}

// goneRow is gone for a row of the mutation's project.
func (t *mutation) goneRow(r *row) (ccv1.Status, bool, error) {
	var expires int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT expires_at FROM resources WHERE project = ? AND address = ?", t.project, r.address).Scan(&expires)
	if err != nil {
		return 0, false, dbError(err)
	}
	st, g := gone(r.status, expires, t.now)
	return st, g, nil
}

// clearDrift forgets the drift records of the resource at addr: cc has
// applied it (or deleted it) since.
func (t *mutation) clearDrift(addr string) error {
	if m, ok, err := t.tx.smallTable(t.ctx, "drift", t.project); err != nil {
		return dbError(err)
	} else if _, has := m[addr]; ok && !has {
		return nil // none to forget
	}
	if err := t.exec("DELETE FROM drift WHERE project = ? AND address = ?", t.project, addr); err != nil {
		return dbError(err)
	}
	return nil
}

// addDrift keeps a record of a change made outside cc at the mutation's
// serial, and returns it as sent.
func (t *mutation) addDrift(addr, what string, fields []driftField) (*ccv1.Drift, error) {
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encode drift: %v", err)
	}
	actor := actorOf(t.ctx)
	if err := t.exec(upsertDrift,
		t.project, addr, t.serial, what, actor, t.now, string(b)); err != nil {
		return nil, dbError(err)
	}
	return driftProto(addr, what, actor, t.now, t.serial, fields), nil
}

func driftProto(addr, what, actor string, at, serial int64, fields []driftField) *ccv1.Drift {
	d := &ccv1.Drift{Address: addr, What: what, Actor: actor, At: timestamppb.New(unixTime(at)), Serial: serial}
	for _, f := range fields {
		d.Fields = append(d.Fields, &ccv1.DriftField{Pointer: f.Pointer, Before: f.Before, After: f.After, Sensitive: f.Sensitive})
	}
	return d
}

// stateDrift are a project's drift records, by address then serial, with
// an "expired" one for each sandbox whose lifetime has passed unrecorded
// at now.
func stateDrift(ctx context.Context, tx *sql.Tx, project string, now int64) ([]*ccv1.Drift, error) {
	rows, err := tx.QueryContext(ctx, `SELECT address, serial, what, actor, at, fields FROM drift WHERE project = ?
		UNION ALL SELECT address, 0, ?, '', expires_at, '[]' FROM resources
		WHERE project = ? AND expires_at > 0 AND expires_at <= ? AND status NOT IN (?, ?)
		ORDER BY 1, 2`, project, DriftExpired, project, now, int64(ccv1.Status_STATUS_TERMINATED), int64(ccv1.Status_STATUS_EXPIRED))
	if err != nil {
		return nil, dbError(err)
	}
	var out []*ccv1.Drift
	for rows.Next() {
		var addr, what, actor, fields string
		var serial, at int64
		if err := rows.Scan(&addr, &serial, &what, &actor, &at, &fields); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		var fs []driftField
		if err := json.Unmarshal([]byte(fields), &fs); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		out = append(out, driftProto(addr, what, actor, at, serial, fs))
	}
	return out, closeRows(rows)
}

// expiredUnrecorded reports whether a sandbox of the project has expired
// at now without AcceptDrift having recorded it: then the state changed
// though its serial did not.
func expiredUnrecorded(ctx context.Context, tx *sql.Tx, project string, now int64) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM resources WHERE project = ? AND expires_at > 0 AND expires_at <= ? AND status NOT IN (?, ?)`,
		project, now, int64(ccv1.Status_STATUS_TERMINATED), int64(ccv1.Status_STATUS_EXPIRED)).Scan(&n)
	if err != nil {
		return false, dbError(err)
	}
	return n > 0, nil
}

// addExpiry gives each sandbox with a lifetime its expired_at, and the
// status EXPIRED once it has passed at now.
func addExpiry(ctx context.Context, tx *sql.Tx, project string, now int64, resources []*ccv1.Resource) error {
	rows, err := tx.QueryContext(ctx, "SELECT address, expires_at FROM resources WHERE project = ? AND expires_at > 0", project)
	if err != nil {
		return dbError(err)
	}
	exp := map[string]int64{}
	for rows.Next() {
		var addr string
		var at int64
		if err := rows.Scan(&addr, &at); err != nil {
			rows.Close()
			return dbError(err)
		}
		exp[addr] = at
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	for _, r := range resources {
		at := exp[r.GetAddress()]
		if at == 0 {
			continue
		}
		r.ExpiredAt = timestamppb.New(unixTime(at))
		r.Status, _ = gone(int64(r.GetStatus()), at, now)
	}
	return nil
}

// checkPatch checks a PatchResource request's fields and returns their
// values decoded (nil with remove true for a removal).
func checkPatch(set []*ccv1.FieldPatch) ([]patchOp, error) {
	if len(set) == 0 || len(set) > maxPatchFields {
		return nil, status.Errorf(codes.InvalidArgument, "a patch sets 1 to %d fields, not %d", maxPatchFields, len(set))
	}
	var ops []patchOp
	for _, f := range set {
		p := f.GetPointer()
		if !strings.HasPrefix(p, "/") || p == "/" || len(p) > 4096 || strings.ContainsAny(p, "\n\x00") {
			return nil, status.Errorf(codes.InvalidArgument, "%q is not a JSON pointer to a field", logValue(p))
		}
		if len(f.GetValue()) > maxPatchValue {
			return nil, status.Errorf(codes.InvalidArgument, "%s: value larger than %d bytes", logValue(p), maxPatchValue)
		}
		op := patchOp{pointer: p, parts: schema.SplitPointer(p)}
		if v := bytes.TrimSpace(f.GetValue()); len(v) > 0 && string(v) != "null" {
			x, err := decodeJSON(v)
			if err != nil {
				return nil, status.Errorf(codes.InvalidArgument, "%s: the value is not JSON", logValue(p))
			}
			op.value = x
		} else {
			op.remove = true
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// patchOp is one field a patch sets or removes.
type patchOp struct {
	pointer string
	parts   []string
	value   any
	remove  bool
}

// setAt sets (or removes) the value at the JSON pointer elements parts of
// a decoded JSON value v, whose parent must exist: an object, or a list
// the last element indexes within (or one past its end, to append).
func setAt(v any, parts []string, with any, remove bool) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		if len(parts) == 1 {
			if remove {
				delete(t, parts[0])
			} else {
				t[parts[0]] = with
			}
			return t, true
		}
		c, ok := t[parts[0]]
		if !ok {
			return v, false
		}
		c, ok = setAt(c, parts[1:], with, remove)
		t[parts[0]] = c
		return t, ok
	case []any:
		i, err := strconv.Atoi(parts[0])
		if err != nil || i < 0 || i > len(t) || (i == len(t) && (remove || len(parts) > 1)) {
			return v, false
		}
		switch {
		case len(parts) > 1:
			c, ok := setAt(t[i], parts[1:], with, remove)
			t[i] = c
			return t, ok
		case remove:
			return append(t[:i:i], t[i+1:]...), true
		case i == len(t):
			return append(t, with), true
		}
		t[i] = with
		return t, true
	}
	return v, false
}

// sensitiveOverlap says how a pointer relates to the sensitive pointers:
// "equal" to one, "overlaps" one (a prefix of it or inside it), or "".
func sensitiveOverlap(p string, sens []string) string {
	for _, s := range sens {
		switch {
		case p == s:
			return "equal"
		case strings.HasPrefix(s, p+"/"), strings.HasPrefix(p, s+"/"):
			return "overlaps"
		}
	}
	return ""
}
