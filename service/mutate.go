package service

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// writeRequest is what every mutation request of cc carries.
type writeRequest interface {
	baseRequest
	GetLeaseId() string
}

// baseRequest is what every write request carries, cc's mutations and the
// changes made outside cc (PatchResource, TerminateSandbox) alike.
type baseRequest interface {
	proto.Message
	GetProject() string
	GetExpectedSerial() int64
	GetIdempotencyKey() string
}

// mutation is one mutation: its transaction, the project it changes, its
// serial and its clock reading, shared by every write it makes.
type mutation struct {
	tx      *stmtTx
	ctx     context.Context
	s       *Server
	project string
	serial  int64 // the project's serial, bumped at most once
	salt    []byte
	now     int64 // unix nanoseconds
	bumped  bool
	// cmp is what a call's comparisons have read (prepareComparisons);
	// nil for a mutation.
	cmp *comparing
}

// bump marks the state changed and returns the mutation's serial: the
// project's serial plus one, however many rows the mutation writes.
func (t *mutation) bump() int64 {
	if !t.bumped {
		t.serial++
		t.bumped = true
	}
	return t.serial
}

func (t *mutation) exec(q string, args ...any) error {
	_, err := t.tx.ExecContext(t.ctx, q, args...)
	return err
}

// mutate runs do in one write transaction, after replaying a known
// idempotency key, making sure the project exists, and refusing a caller
// that does not hold a live lease on it. The idempotency record, the serial
// and do's writes commit together or not at all.
func (s *Server) mutate(ctx context.Context, method string, req writeRequest, resp proto.Message, do func(t *mutation) error) error {
	p, err := s.prepareMutation(ctx, method, req, resp, do)
	if err != nil {
		return err
	}
	return s.commits.do(p)
}

// prepareMutation is mutate's mutation, checked and not yet run, for a
// batch (committer.doAll).
func (s *Server) prepareMutation(ctx context.Context, method string, req writeRequest, resp proto.Message, do func(t *mutation) error) (*pending, error) {
	lease := req.GetLeaseId()
	return s.prepare(ctx, method, req, resp, &lease, func(t *mutation) error { return t.open(req) }, do)
}

// transact is mutate with the way the project is opened (open), which
// checks, or does not check, the caller's lease.
func (s *Server) transact(ctx context.Context, method string, req baseRequest, resp proto.Message, open, do func(t *mutation) error) error {
	return s.transactLease(ctx, method, req, resp, nil, open, do)
}

// transactLease is transact for a mutation that needs the lease *lease
// (nil: none), which open checks and the batch checks again before it
// commits.
func (s *Server) transactLease(ctx context.Context, method string, req baseRequest, resp proto.Message, lease *string, open, do func(t *mutation) error) error {
	p, err := s.prepare(ctx, method, req, resp, lease, open, do)
	if err != nil {
		return err
	}
	return s.commits.do(p)
}

// prepare checks what transactLease checks before its transaction and
// returns the mutation to run in a batch (committer), not yet run.
func (s *Server) prepare(ctx context.Context, method string, req baseRequest, resp proto.Message, lease *string, open, do func(t *mutation) error) (*pending, error) {
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	if req.GetExpectedSerial() < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "expected serial %d is negative", req.GetExpectedSerial())
	}
	key := req.GetIdempotencyKey()
	if len(key) > 256 {
		return nil, status.Error(codes.InvalidArgument, "idempotency key longer than 256 bytes")
	}
	var mac []byte
	if key != "" {
		var err error
		if mac, err = s.requestMAC(method, req); err != nil {
			return nil, err
		}
	}

	p := &pending{ctx: ctx, project: project, key: key}
	if lease != nil {
		p.leaseID = *lease
	}
	// The mutation runs in a batch's transaction (committer), which the
	// end of this call's context must not interrupt.
	mctx := context.WithoutCancel(ctx)
	p.run = func(tx *stmtTx) error {
		proto.Reset(resp)
		p.checked = false
		t := &mutation{tx: tx, ctx: mctx, s: s, project: project, now: s.now().UnixNano()}
		if key != "" {
			if replayed, err := t.replay(method, key, mac, resp); replayed || err != nil {
				return err
			}
		}
		if err := open(t); err != nil {
			return err
		}
		// What it writes now needs the lease until the batch commits.
		p.checked = lease != nil
		if err := do(t); err != nil {
			return err
		}
		return t.record(method, key, mac, resp)
	}
	return p, nil
}

// requestMAC is the MAC of a request under its method, leaving out its
// idempotency key and lease: what a replay of the key must match.
func (s *Server) requestMAC(method string, req baseRequest) ([]byte, error) {
	c := proto.Clone(req)
	m := c.ProtoReflect()
	fields := m.Descriptor().Fields()
	m.Clear(fields.ByName("idempotency_key"))
	if f := fields.ByName("lease_id"); f != nil {
		m.Clear(f)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "marshal request: %v", err)
	}
	return s.keys.mac(append([]byte(method+"\x00"), b...)), nil
}

// replay answers a known idempotency key with its stored response, into
// resp; replayed is false when the key is new. A key used for another
// request is refused.
func (t *mutation) replay(method, key string, mac []byte, resp proto.Message) (replayed bool, err error) {
	if t.tx.facts.isAbsent("idempotency", t.project, key) {
		return false, nil
	}
	var gotMethod string
	var gotMAC, gotResp []byte
	err = t.tx.QueryRowContext(t.ctx, "SELECT method, request_mac, response FROM idempotency WHERE project = ? AND key = ?", t.project, key).
		Scan(&gotMethod, &gotMAC, &gotResp)
	switch {
	case err == nil:
		if gotMethod != method || !hmac.Equal(gotMAC, mac) {
			return false, status.Errorf(codes.InvalidArgument, "idempotency key %q was used for a different request", key)
		}
		if err := proto.Unmarshal(gotResp, resp); err != nil {
			return false, status.Errorf(codes.Internal, "stored response for idempotency key %q: %v", key, err)
		}
		return true, nil
	case !errors.Is(err, sql.ErrNoRows):
		return false, dbError(err)
	}
	return false, nil
}

// open reads the project's serial and salt, making the project when it is
// new, and refuses a caller without its live lease or one that expects a
// serial the project never had.
func (t *mutation) open(req writeRequest) error {
	if err := t.openProject(); err != nil {
		return err
	}
	l, err := t.tx.lease(t.ctx, t.project)
	if err != nil {
		return dbError(err)
	}
	if err := judgeLease(l, t.project, req.GetLeaseId(), t.now); err != nil {
		return err
	}
	return t.checkExpected(req.GetExpectedSerial())
}

// openProject reads the project's serial and salt, making the project
// when it is new.
func (t *mutation) openProject() error {
	if p, ok := t.tx.facts.project(t.project); ok {
		t.serial, t.salt = p.serial, p.salt
		return nil
	}
	err := t.tx.QueryRowContext(t.ctx, "SELECT serial, salt FROM projects WHERE name = ?", t.project).Scan(&t.serial, &t.salt)
	if errors.Is(err, sql.ErrNoRows) {
		t.salt = make([]byte, 32)
		rand.Read(t.salt)
		err = t.exec("INSERT INTO projects (name, serial, salt, created_at, lineage) VALUES (?, 0, ?, ?, ?)", t.project, t.salt, t.now, newLineage())
	}
	if err != nil {
		return dbError(err)
	}
	t.tx.facts.setProject(t.project, projectFact{serial: t.serial, salt: t.salt})
	return nil
}

// checkExpected refuses an expected serial the project never had.
func (t *mutation) checkExpected(expected int64) error {
	if expected > t.serial {
		return status.Errorf(codes.InvalidArgument, "expected serial %d is beyond project %s's serial %d: was the plan made against another server?",
			expected, t.project, t.serial)
	}
	return nil
}

// record writes the bumped serial and, under an idempotency key, the
// response a replay will get.
func (t *mutation) record(method, key string, mac []byte, resp proto.Message) error {
	if t.bumped {
		t.tx.setSerial(t.project, t.serial) // written before the commit (flushSerials)
		if t.salt != nil {
			t.tx.facts.setProject(t.project, projectFact{serial: t.serial, salt: t.salt})
		}
	}
	if key == "" {
		return nil
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
	if err != nil {
		return status.Errorf(codes.Internal, "marshal response: %v", err)
	}
	if err := t.exec(insertIdempotency, t.project, key, method, mac, b, t.now); err != nil {
		return dbError(err)
	}
	t.tx.facts.written("idempotency", t.project, key)
	return nil
}

// checkLease refuses a mutation that does not carry the project's live
// lease, in the mutation's own transaction: a lease released by force or
// expired stops writing at once. Another holder's lease is described by its
// holder, never by its id.
func checkLease(ctx context.Context, q querier, project, id string, now int64) error {
	l, err := lease(ctx, q, project)
	if err != nil {
		return dbError(err)
	}
	return judgeLease(l, project, id, now)
}

// judgeLease is checkLease with the project's lease l (nil: none) read.
func judgeLease(l *ccv1.Lease, project, id string, now int64) error {
	live := l != nil && l.GetExpiresAt().AsTime().UnixNano() > now
	switch {
	case l != nil && id != "" && l.GetId() == id && live:
		return nil
	case live:
		return leaseRefusedStatus(&ccv1.LeaseRefused{Project: project, Reason: LeaseHeld, Holder: l.GetHolder()})
	case id == "":
		return leaseRefusedStatus(&ccv1.LeaseRefused{Project: project, Reason: LeaseNone})
	case l != nil && l.GetId() == id:
		return leaseRefusedStatus(&ccv1.LeaseRefused{Project: project, Reason: LeaseExpired})
	default:
		return leaseRefusedStatus(&ccv1.LeaseRefused{Project: project, Reason: LeaseReleased})
	}
}

// dbError reports a database failure without its details to the client;
// they go to the log through the status message only when harmless.
func dbError(err error) error {
	if errors.Is(err, context.Canceled) {
		return status.Error(codes.Canceled, "canceled")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	}
	return status.Errorf(codes.Internal, "database: %v", err)
}

// stale refuses a change to address when it changed after the caller's
// expected serial.
func (t *mutation) stale(address string, expected, last int64) error {
	if last > expected {
		return staleStatus(&ccv1.Stale{Project: t.project, Address: address, ExpectedSerial: expected, ResourceSerial: last, ProjectSerial: t.serial})
	}
	return nil
}

// tombstone is the serial at which address was last deleted, or 0.
func (t *mutation) tombstone(address string) (int64, error) {
	var serial int64
	if m, ok, err := t.tx.smallTable(t.ctx, "tombstones", t.project); err != nil {
		return 0, err
	} else if ok {
		if v, has := m[address]; has {
			return strconv.ParseInt(v, 10, 64)
		}
		return 0, nil
	}
	err := t.tx.QueryRowContext(t.ctx, "SELECT serial FROM tombstones WHERE project = ? AND address = ?", t.project, address).Scan(&serial)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return serial, err
}

// row is a resource as stored.
type row struct {
	address, kind, name, hash string
	spec                      []byte
	version                   int64
	status                    int64
	created, updated, serial  int64
	deps, pins                string
	sensitive                 string
	// dataPins are the data sources it was applied with (encodeDataPins).
	dataPins string
	// id is the resource's identity (Resource.id).
	id string
}

const rowColumns = "address, kind, name, hash, spec, version, status, created_at, updated_at, serial, depends_on, pins, sensitive, data_pins, id"

func (r *row) scan(sc interface{ Scan(...any) error }) error {
	return sc.Scan(&r.address, &r.kind, &r.name, &r.hash, &r.spec, &r.version, &r.status, &r.created, &r.updated, &r.serial, &r.deps, &r.pins, &r.sensitive, &r.dataPins, &r.id)
}

func (t *mutation) resource(address string) (*row, error) {
	if t.tx.facts.isAbsent("resources", t.project, address) {
		return nil, nil
	}
	r := &row{}
	err := r.scan(t.tx.QueryRowContext(t.ctx, "SELECT "+rowColumns+" FROM resources WHERE project = ? AND address = ?", t.project, address))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// put writes r, giving it a new id when it has none (it is new, or
// replaced).
func (t *mutation) put(r *row) error {
	if r.id == "" {
		r.id = newResourceID()
	}
	if err := t.exec(upsertResource,
		t.project, r.address, r.kind, r.name, r.hash, r.spec, r.version, r.status, r.created, r.updated, r.serial, r.deps, r.pins, r.sensitive, r.dataPins, r.id); err != nil {
		return err
	}
	t.tx.facts.written("resources", t.project, r.address)
	t.tx.facts.deps[place{t.project, r.address}] = r.deps
	delete(t.tx.facts.secrets, place{t.project, r.address})
	if err := t.setExpiry(r); err != nil {
		return err
	}
	if t.tx.facts.smallLacks("tombstones", t.project, r.address) {
		return nil // none to delete
	}
	return t.exec("DELETE FROM tombstones WHERE project = ? AND address = ?", t.project, r.address)
}

func (r *row) proto() *ccv1.Resource {
	out := &ccv1.Resource{
		Address:   r.address,
		Kind:      r.kind,
		Name:      r.name,
		Spec:      r.spec,
		Hash:      r.hash,
		Version:   r.version,
		Status:    ccv1.Status(r.status),
		CreatedAt: timestamppb.New(unixTime(r.created)),
		UpdatedAt: timestamppb.New(unixTime(r.updated)),
		Serial:    r.serial,
		DependsOn: splitLines(r.deps),
		Sensitive: splitLines(r.sensitive),
		Id:        r.id,
	}
	for _, p := range splitLines(r.pins) {
		addr, v, _ := strings.Cut(p, "@")
		out.Pins = append(out.Pins, &ccv1.Pin{Address: addr, Version: atoi(v)})
	}
	out.DataPins = decodeDataPins(r.dataPins)
	return out
}

var (
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// parseAddress checks a resource's address (schema.ParseAddress): a known
// kind, DNS labels, and an instance key of the documented form; an image
// never named is addressed by the 12 hex digits the compiler names it by.
func parseAddress(addr string) (schema.Kind, string, error) {
	kind, name, ok := schema.ParseAddress(addr)
	if !ok {
		return "", "", status.Errorf(codes.InvalidArgument, "address %q is not KIND.NAME with a known kind and a lowercase DNS label (with an optional instance key [0] or [\"key\"] and module.NAME. prefixes)", addr)
	}
	return kind, name, nil
}

// checkKindSpec checks a spec against the schema's rules for its kind, and
// that deps (sorted) name every resource the spec refers to, so that the
// graph the service keeps is the whole graph: the service takes nothing
// the compiler would not have made.
func checkKindSpec(address string, k schema.Kind, spec []byte, deps []string, sens []string) error {
	refs, err := schema.SpecRefs(k, spec)
	if err != nil {
		// The error may quote the spec (an unknown field's name): cut it,
		// after taking out every sensitive value it might quote.
		return status.Errorf(codes.InvalidArgument, "%s: %s", address, logValue(scrubSensitive(err.Error(), spec, sens)))
	}
	for _, r := range refs {
		if _, found := sort.Find(len(deps), func(i int) int { return strings.Compare(r, deps[i]) }); !found {
			return status.Errorf(codes.InvalidArgument, "%s: the spec refers to %s, which depends_on does not name", address, r)
		}
	}
	return nil
}

// scrubSensitive replaces, in msg, each value at a sensitive pointer of
// spec (in its JSON, Go-quoted and bare forms) with "(sensitive value)".
func scrubSensitive(msg string, spec []byte, sens []string) string {
	for _, p := range sens {
		b, ok := schema.SensitiveValue(spec, p)
		if !ok {
			continue
		}
		forms := []string{string(b)}
		var str string
		if json.Unmarshal(b, &str) == nil {
			forms = append(forms, strconv.Quote(str), str)
		}
		for _, f := range forms {
			if f != "" {
				msg = strings.ReplaceAll(msg, f, "(sensitive value)")
			}
		}
	}
	return msg
}

// checkGraph refuses dependencies of address that the project lacks, or
// that would close a cycle: each dependency must exist, and address must
// not be reachable from any of them.
func (t *mutation) checkGraph(address string, deps []string) error {
	type step struct{ addr, from string }
	from := map[string]string{}
	var stack []step
	for _, d := range deps {
		if _, _, ok := schema.ParseDataAddress(d); !ok { // a data source is no resource of the project
			stack = append(stack, step{d, address})
		}
	}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if st.addr == address {
			// Walk back from the one that reaches address.
			path := []string{address}
			for a := st.from; a != address; a = from[a] {
				path = append(path, a)
			}
			path = append(path, address)
			for i, j := 1, len(path)-2; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return cycleStatus(path)
		}
		if _, seen := from[st.addr]; seen {
			continue
		}
		from[st.addr] = st.from
		depsOf, found, err := t.tx.dependsOn(t.ctx, t.project, st.addr)
		if err != nil {
			return dbError(err)
		}
		if !found {
			if st.from == address {
				return status.Errorf(codes.FailedPrecondition, "%s depends on %s, which project %s does not have: apply it first", address, st.addr, t.project)
			}
			continue
		}
		for _, d := range splitLines(depsOf) {
			stack = append(stack, step{d, st.addr})
		}
	}
	return nil
}

// dependantsSQL finds the rows whose depends_on (one address a line)
// holds an address: "\n"+depends_on+"\n" contains "\n"+address+"\n",
// with replace, which SQLite and PostgreSQL both have (instr is SQLite's).
const dependantsSQL = "SELECT address FROM resources WHERE project = ? AND replace('\n' || depends_on || '\n', '\n' || ? || '\n', '') <> '\n' || depends_on || '\n' ORDER BY address"

// dependants lists, sorted, the resources of the project that depend on
// address.
func (t *mutation) dependants(address string) ([]string, error) {
	rows, err := t.tx.QueryContext(t.ctx, dependantsSQL, t.project, address)
	if err != nil {
		return nil, dbError(err)
	}
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		out = append(out, a)
	}
	return out, closeRows(rows)
}

// checkSpec makes sure spec is canonical JSON whose hash is hash.
func checkSpec(spec []byte, hash string) error {
	if len(spec) > 16<<20 {
		return status.Error(codes.InvalidArgument, "spec larger than 16 MiB")
	}
	// A spec is checked as it is read; only one that is not canonical is
	// decoded, to say why.
	if !schema.IsCanonical(spec) {
		c, err := schema.Canonical(json.RawMessage(spec))
		if err != nil {
			return status.Errorf(codes.InvalidArgument, "spec is not JSON: %s", logValue(err.Error()))
		}
		if string(c) != string(spec) {
			return status.Error(codes.InvalidArgument, "spec is not canonical JSON (sorted keys, no insignificant whitespace)")
		}
	}
	if got := schema.Hash(spec); got != hash {
		return status.Errorf(codes.InvalidArgument, "hash %s does not match the spec's %s", hash, got)
	}
	return nil
}

// checkSensitive checks and sorts the JSON pointers of sensitive values.
func checkSensitive(ptrs []string) ([]string, error) {
	if len(ptrs) > 10_000 {
		return nil, status.Error(codes.InvalidArgument, "more than 10000 sensitive pointers")
	}
	out := make([]string, 0, len(ptrs))
	for _, p := range ptrs {
		if !strings.HasPrefix(p, "/") || len(p) > 4096 || strings.ContainsAny(p, "\n\x00") {
			return nil, status.Errorf(codes.InvalidArgument, "sensitive pointer %q is not a JSON pointer", p)
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return compactStrings(out), nil
}

// checkDeps checks and sorts dependency addresses.
func checkDeps(self string, deps []string) ([]string, error) {
	out := make([]string, 0, len(deps))
	seen := map[string]bool{}
	for _, d := range deps {
		if _, _, ok := schema.ParseDataAddress(d); ok {
			// A data source (issue 10): its pin comes with the request.
		} else if _, _, err := parseAddress(d); err != nil {
			return nil, err
		}
		if d == self {
			return nil, status.Errorf(codes.InvalidArgument, "%s depends on itself", self)
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out, nil
}
