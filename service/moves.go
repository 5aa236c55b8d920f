package service

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// Issue 10 (moves, forgetting, adoption): a resource has an identity, its
// id, that stays with it when it moves to another address (MoveResource)
// or to another project (ForgetResource into the unowned resources,
// AdoptResource out of them), with its versions, secret revisions and the
// content its specs name. Each of these is one transaction.

// newResourceID makes a resource's id: 16 random bytes in hex.
func newResourceID() string { return newLineage() }

// addResourceIDs is part of migration 5: every resource gets an id.
func addResourceIDs(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT project, address FROM resources WHERE id = ''")
	if err != nil {
		return err
	}
	var keys [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return err
		}
		keys = append(keys, k)
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, "UPDATE resources SET id = ? WHERE project = ? AND address = ?", newResourceID(), k[0], k[1]); err != nil {
			return err
		}
	}
	return nil
}

// place is an address in a project.
type place struct{ project, address string }

// in is the mutation's view of another project in the same transaction,
// for reading and writing its rows (not its serial: bumpProject).
func (t *mutation) in(project string) *mutation {
	return &mutation{tx: t.tx, ctx: t.ctx, s: t.s, project: project, now: t.now}
}

// bumpProject increments the serial of another project than the
// mutation's, making it when it is new, and returns the new serial.
func (t *mutation) bumpProject(project string) (int64, error) {
	salt := make([]byte, 32)
	rand.Read(salt)
	if err := t.exec("INSERT INTO projects (name, serial, salt, created_at, lineage) VALUES (?, 0, ?, ?, ?) ON CONFLICT (name) DO NOTHING", project, salt, t.now, newLineage()); err != nil {
		return 0, dbError(err)
	}
	if err := t.exec("UPDATE projects SET serial = serial + 1 WHERE name = ?", project); err != nil {
		return 0, dbError(err)
	}
	var serial int64
	if err := t.tx.QueryRowContext(t.ctx, "SELECT serial FROM projects WHERE name = ?", project).Scan(&serial); err != nil {
		return 0, dbError(err)
	}
	return serial, nil
}

// existingAt is the resource at address and its latest secret revision;
// NotFound when there is neither.
func (t *mutation) existingAt(address string) (*row, *revision, error) {
	cur, err := t.resource(address)
	if err != nil {
		return nil, nil, dbError(err)
	}
	rev, err := t.latestRevision(address)
	if err != nil {
		return nil, nil, err
	}
	if cur == nil && rev == nil {
		return nil, nil, status.Errorf(codes.NotFound, "project %s has no %s", t.project, address)
	}
	return cur, rev, nil
}

// staleExisting refuses a change to the resource at address (cur, rev:
// what existingAt found) made after the expected serial.
func (t *mutation) staleExisting(address string, expected int64, cur *row, rev *revision) error {
	last, err := t.tombstone(address)
	if err != nil {
		return dbError(err)
	}
	if cur != nil {
		last = max(last, cur.serial)
	}
	if rev != nil {
		last = max(last, rev.serial)
	}
	return t.stale(address, expected, last)
}

// free refuses an address the mutation's project has a resource or a
// secret value at.
func (t *mutation) free(address string) error {
	cur, err := t.resource(address)
	if err != nil {
		return dbError(err)
	}
	rev, err := t.latestRevision(address)
	if err != nil {
		return err
	}
	if cur != nil || rev != nil {
		return status.Errorf(codes.AlreadyExists, "project %s already has %s", t.project, address)
	}
	return nil
}

// checkMovable refuses moving from to to: both addresses, the same kind,
// not an image.
func checkMovable(from, to string) error {
	fk, _, err := parseAddress(from)
	if err != nil {
		return err
	}
	tk, _, err := parseAddress(to)
	if err != nil {
		return err
	}
	switch {
	case fk == schema.KindImage:
		return status.Errorf(codes.InvalidArgument, "%s: an image is a value, addressed by its content; there is nothing to move", from)
	case fk != tk:
		return status.Errorf(codes.InvalidArgument, "cannot move %s to %s: a resource keeps its kind (%s)", from, to, fk)
	case from == to:
		return status.Errorf(codes.InvalidArgument, "cannot move %s to itself", from)
	}
	return nil
}

func (a *resourceAPI) MoveResource(ctx context.Context, req *ccv1.MoveResourceRequest) (*ccv1.MoveResourceResponse, error) {
	from, to := req.GetFrom(), req.GetTo()
	if err := checkMovable(from, to); err != nil {
		return nil, err
	}
	if err := checkDeclaredAt(to, req.GetPreventDestroyAt()); err != nil {
		return nil, err
	}
	resp := &ccv1.MoveResourceResponse{}
	err := a.s.mutate(ctx, ccv1.ResourceService_MoveResource_FullMethodName, req, resp, func(t *mutation) error {
		cur, rev, err := t.existingAt(from)
		if err != nil {
			return err
		}
		if err := t.staleExisting(from, req.GetExpectedSerial(), cur, rev); err != nil {
			return err
		}
		if err := t.free(to); err != nil {
			return err
		}
		if err := t.staleRow(to, req.GetExpectedSerial(), nil); err != nil {
			return err
		}
		serial := t.bump()
		moved, err := t.relocate(place{t.project, from}, place{t.project, to}, serial)
		if err != nil {
			return err
		}
		if err := t.reprotect(to, req.GetPreventDestroyAt()); err != nil {
			return err
		}
		if resp.Dependants, err = t.renameReferences(from, to, serial); err != nil {
			return err
		}
		if err := t.exec(upsertTombstone, t.project, from, serial); err != nil {
			return dbError(err)
		}
		if moved != nil {
			resp.Resource = moved.proto()
			resp.Resource.Spec = redactedSpec(resp.Resource.Spec, resp.Resource.Sensitive)
		}
		resp.Serial = serial
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func (a *resourceAPI) ForgetResource(ctx context.Context, req *ccv1.ForgetResourceRequest) (*ccv1.ForgetResourceResponse, error) {
	addr := req.GetAddress()
	if err := checkTransferable(addr); err != nil {
		return nil, err
	}
	if req.GetProject() == Unowned {
		return nil, status.Errorf(codes.InvalidArgument, "%s: the unowned resources cannot be forgotten: delete it, or adopt it into a project", addr)
	}
	resp := &ccv1.ForgetResourceResponse{}
	err := a.s.mutate(ctx, ccv1.ResourceService_ForgetResource_FullMethodName, req, resp, func(t *mutation) error {
		cur, rev, err := t.existingAt(addr)
		if err != nil {
			return err
		}
		if err := t.staleExisting(addr, req.GetExpectedSerial(), cur, rev); err != nil {
			return err
		}
		if err := t.noDependants(addr, "forgotten"); err != nil {
			return err
		}
		out, err := t.transfer(place{t.project, addr}, place{Unowned, addr})
		if err != nil {
			return err
		}
		resp.Forgotten, resp.Serial = out, t.serial
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func (a *resourceAPI) AdoptResource(ctx context.Context, req *ccv1.AdoptResourceRequest) (*ccv1.AdoptResourceResponse, error) {
	addr := req.GetAddress()
	if err := checkTransferable(addr); err != nil {
		return nil, err
	}
	if req.GetProject() == Unowned {
		return nil, status.Errorf(codes.InvalidArgument, "%s: the unowned resources adopt nothing; name the project that adopts it", addr)
	}
	src := schema.Address(schema.KindOf(addr), req.GetId())
	if _, _, err := parseAddress(src); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "id %q is not the name of an unowned resource (a lowercase DNS label, or an instance's or a module resource's member name)", req.GetId())
	}
	if h := req.GetExpectedHash(); h != "" && !digestRE.MatchString(h) {
		return nil, status.Errorf(codes.InvalidArgument, "expected hash %q is not sha256:HEX", h)
	}
	resp := &ccv1.AdoptResourceResponse{}
	err := a.s.mutate(ctx, ccv1.ResourceService_AdoptResource_FullMethodName, req, resp, func(t *mutation) error {
		u := t.in(Unowned)
		cur, _, err := u.existingAt(src)
		if err != nil {
			return err
		}
		if h := req.GetExpectedHash(); h != "" && (cur == nil || cur.hash != h) {
			return staleStatus(&ccv1.Stale{Project: Unowned, Address: src, ExpectedSerial: req.GetExpectedSerial(), ResourceSerial: rowSerial(cur)})
		}
		if err := u.noDependants(src, "adopted"); err != nil {
			return err
		}
		if err := t.free(addr); err != nil {
			return err
		}
		if err := t.staleRow(addr, req.GetExpectedSerial(), nil); err != nil {
			return err
		}
		out, err := t.transfer(place{Unowned, src}, place{t.project, addr})
		if err != nil {
			return err
		}
		resp.Resource, resp.Serial = out, t.serial
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func rowSerial(r *row) int64 {
	if r == nil {
		return 0
	}
	return r.serial
}

// checkTransferable refuses an address that cannot change projects.
func checkTransferable(addr string) error {
	k, _, err := parseAddress(addr)
	if err != nil {
		return err
	}
	if k == schema.KindImage {
		return status.Errorf(codes.InvalidArgument, "%s: an image is a value, addressed by its content; it goes with what uses it", addr)
	}
	return nil
}

// noDependants refuses to take address out of the mutation's project while
// resources staying in it depend on it.
func (t *mutation) noDependants(address, verb string) error {
	ds, err := t.dependants(address)
	if err != nil {
		return err
	}
	if len(ds) == 0 {
		return nil
	}
	v := "depend"
	if len(ds) == 1 {
		v = "depends"
	}
	msg := fmt.Sprintf("%s cannot be %s while %s in project %s %s on it", address, verb, strings.Join(ds, ", "), t.project, v)
	return withDetail(codes.FailedPrecondition, msg, &ccv1.Dependants{Address: address, Dependants: ds})
}

// transfer moves the resource at src to dst, in another project, with the
// content its specs name, bumping both projects' serials and leaving a
// tombstone at src. One of the two projects is the mutation's. It returns
// the resource as dst has it, its sensitive values redacted.
func (t *mutation) transfer(src, dst place) (*ccv1.Resource, error) {
	var srcSerial, dstSerial int64
	var err error
	if src.project == t.project {
		srcSerial = t.bump()
		if dstSerial, err = t.bumpProject(dst.project); err != nil {
			return nil, err
		}
	} else {
		dstSerial = t.bump()
		if srcSerial, err = t.bumpProject(src.project); err != nil {
			return nil, err
		}
	}
	if err := t.in(dst.project).free(dst.address); err != nil {
		return nil, err
	}
	if err := t.copyContent(src, dst.project); err != nil {
		return nil, err
	}
	moved, err := t.relocate(src, dst, dstSerial)
	if err != nil {
		return nil, err
	}
	if err := t.exec(upsertTombstone, src.project, src.address, srcSerial); err != nil {
		return nil, dbError(err)
	}
	if moved == nil {
		return &ccv1.Resource{Address: dst.address, Kind: string(schema.KindOf(dst.address))}, nil
	}
	out := moved.proto()
	out.Spec = redactedSpec(out.Spec, out.Sensitive)
	return out, nil
}

// relocate moves the resource row, the versions and the secret revisions
// at src to dst (the address free there), resealing every sensitive value
// and secret value for its new place and keying versions anew with the
// fingerprints of their sensitive values there. The resource keeps its id;
// it is stamped with serial, dst's. It returns the row moved (nil for a
// secret value without a resource).
func (t *mutation) relocate(src, dst place, serial int64) (*row, error) {
	from, to := t.in(src.project), t.in(dst.project)
	cur, err := from.resource(src.address)
	if err != nil {
		return nil, dbError(err)
	}
	if cur != nil {
		spec, err := from.unsealSpec(src.address, cur.spec, splitLines(cur.sensitive))
		if err != nil {
			return nil, err
		}
		if cur.spec, err = to.sealSpec(dst.address, spec, splitLines(cur.sensitive)); err != nil {
			return nil, err
		}
		if err := t.exec("DELETE FROM resources WHERE project = ? AND address = ?", src.project, src.address); err != nil {
			return nil, dbError(err)
		}
		_, cur.name, _ = schema.ParseAddress(dst.address)
		cur.address, cur.serial, cur.updated = dst.address, serial, t.now
		if err := to.put(cur); err != nil {
			return nil, dbError(err)
		}
	}
	if err := t.relocateVersions(src, dst); err != nil {
		return nil, err
	}
	if err := t.relocateRevisions(src, dst, serial); err != nil {
		return nil, err
	}
	return cur, t.relocateRecords(src, dst)
}

// relocateRecords moves what the service keeps about the resource at src
// beside its row to dst: its protection (lifecycle.prevent_destroy goes
// with it wherever it goes, so that it is never deleted by a move) and,
// within one project, its drift records (what changed outside cc since
// the project last applied it). A resource that changes owner leaves its
// drift behind: its new owner never applied it.
func (t *mutation) relocateRecords(src, dst place) error {
	if src == dst {
		return nil
	}
	// What dst has already gives way, as with SQLite's UPDATE OR REPLACE,
	// in SQL that PostgreSQL runs too.
	stmts := [][]any{
		{"DELETE FROM protections WHERE project = ? AND address = ? AND EXISTS (SELECT 1 FROM protections WHERE project = ? AND address = ?)",
			dst.project, dst.address, src.project, src.address},
		{"UPDATE protections SET project = ?, address = ? WHERE project = ? AND address = ?", dst.project, dst.address, src.project, src.address},
		{"DELETE FROM drift WHERE project = ? AND address = ? AND serial IN (SELECT serial FROM drift WHERE project = ? AND address = ?)",
			dst.project, dst.address, src.project, src.address},
		{"UPDATE drift SET address = ? WHERE project = ? AND address = ?", dst.address, src.project, src.address},
	}
	if src.project != dst.project {
		stmts = append(stmts[:2], []any{"DELETE FROM drift WHERE project = ? AND address = ?", src.project, src.address})
	}
	for _, s := range stmts {
		if err := t.exec(s[0].(string), s[1:]...); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// storedVersion is a row of versions.
type storedVersion struct {
	version, created int64
	hash, sens, keys string
	spec             []byte
}

// relocateVersions moves the versions at src to dst, resealed and keyed
// with dst's fingerprints of their sensitive values.
func (t *mutation) relocateVersions(src, dst place) error {
	rows, err := t.tx.QueryContext(t.ctx, "SELECT version, created_at, hash, sensitive, secrets, spec FROM versions WHERE project = ? AND address = ? ORDER BY version",
		src.project, src.address)
	if err != nil {
		return dbError(err)
	}
	var vs []storedVersion
	for rows.Next() {
		var v storedVersion
		if err := rows.Scan(&v.version, &v.created, &v.hash, &v.sens, &v.keys, &v.spec); err != nil {
			rows.Close()
			return dbError(err)
		}
		vs = append(vs, v)
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	if err := t.exec("DELETE FROM versions WHERE project = ? AND address = ?", src.project, src.address); err != nil {
		return dbError(err)
	}
	from, to := t.in(src.project), t.in(dst.project)
	for _, v := range vs {
		spec, err := from.unsealSpec(src.address, v.spec, splitLines(v.sens))
		if err != nil {
			return err
		}
		sealed, err := to.sealSpec(dst.address, spec, splitLines(v.sens))
		if err != nil {
			return err
		}
		secrets, err := to.sensitiveVersionEntries(dst.address, spec, splitLines(v.sens))
		if err != nil {
			return err
		}
		secrets = append(secrets, managedVersionSecrets(v.keys)...)
		sortVersionSecrets(secrets)
		if err := t.exec("INSERT INTO versions (project, address, version, hash, spec, created_at, sensitive, key, secrets) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			dst.project, dst.address, v.version, v.hash, sealed, v.created, v.sens, versionKey(v.hash, secrets), encodeVersionSecrets(secrets)); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// managedVersionSecrets are the secret revisions of a versions.secrets
// column (its lines that are not sensitive values' entries).
func managedVersionSecrets(col string) []versionSecret {
	var out []versionSecret
	for _, line := range splitLines(col) {
		f := strings.Fields(line)
		if len(f) != 3 || isSensitiveEntry(f[0]) {
			continue
		}
		out = append(out, versionSecret{address: f[0], revision: atoi(f[1]), fingerprint: f[2]})
	}
	return out
}

// relocateRevisions moves the secret revisions at src to dst, each value
// sealed and fingerprinted for its new place; equal values stay equal.
func (t *mutation) relocateRevisions(src, dst place, serial int64) error {
	type rev struct {
		n, created int64
		nonce, ct  []byte
	}
	rows, err := t.tx.QueryContext(t.ctx, "SELECT revision, created_at, nonce, ciphertext FROM secret_revisions WHERE project = ? AND address = ? ORDER BY revision",
		src.project, src.address)
	if err != nil {
		return dbError(err)
	}
	var revs []rev
	for rows.Next() {
		var r rev
		if err := rows.Scan(&r.n, &r.created, &r.nonce, &r.ct); err != nil {
			rows.Close()
			return dbError(err)
		}
		revs = append(revs, r)
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	if err := t.exec("DELETE FROM secret_revisions WHERE project = ? AND address = ?", src.project, src.address); err != nil {
		return dbError(err)
	}
	for _, r := range revs {
		value, err := t.s.keys.aead.Open(nil, r.nonce, r.ct, secretAD(src.project, src.address, r.n))
		if err != nil {
			return status.Errorf(codes.DataLoss, "revision %d of the value of %s is damaged", r.n, src.address)
		}
		nonce, ct := t.s.keys.seal(value, dst.project, dst.address, r.n)
		fp := t.s.keys.fingerprint(dst.project, dst.address, "", value)
		if err := t.exec(`INSERT INTO secret_revisions (project, address, revision, nonce, ciphertext, fingerprint, created_at, serial)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, dst.project, dst.address, r.n, nonce, ct, fp, r.created, serial); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// renameReferences makes the resources of the project that depend on from
// depend on to instead (depends_on and pins), stamped with serial, and
// returns them sorted.
func (t *mutation) renameReferences(from, to string, serial int64) ([]string, error) {
	ds, err := t.dependants(from)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		r, err := t.resource(d)
		if err != nil || r == nil {
			return nil, dbError(errors.Join(err, fmt.Errorf("dependant %s vanished", d)))
		}
		deps := splitLines(r.deps)
		for i := range deps {
			if deps[i] == from {
				deps[i] = to
			}
		}
		sort.Strings(deps)
		pins := splitLines(r.pins)
		for i, p := range pins {
			if a, v, _ := strings.Cut(p, "@"); a == from {
				pins[i] = to + "@" + v
			}
		}
		sort.Strings(pins)
		if err := t.exec("UPDATE resources SET depends_on = ?, pins = ?, serial = ? WHERE project = ? AND address = ?",
			joinLines(deps), joinLines(pins), serial, t.project, d); err != nil {
			return nil, dbError(err)
		}
	}
	return ds, nil
}

// copyContent gives project dst the image values and blobs that the specs
// of the resource at src (and of its versions) name, and those the images
// named need in turn, where dst lacks them. Image values are resealed for
// dst.
func (t *mutation) copyContent(src place, dst string) error {
	var todo []string
	collect := func(spec []byte) {
		v, err := decodeJSON(spec)
		if err == nil {
			todo = append(todo, specDigests(v, nil)...)
		}
	}
	for _, q := range []string{"SELECT spec FROM resources WHERE project = ? AND address = ?", "SELECT spec FROM versions WHERE project = ? AND address = ?"} {
		rows, err := t.tx.QueryContext(t.ctx, q, src.project, src.address)
		if err != nil {
			return dbError(err)
		}
		for rows.Next() {
			var spec []byte
			if err := rows.Scan(&spec); err != nil {
				rows.Close()
				return dbError(err)
			}
			collect(spec)
		}
		if err := closeRows(rows); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[d] {
			continue
		}
		seen[d] = true
		more, err := t.copyDigest(src.project, dst, d)
		if err != nil {
			return err
		}
		todo = append(todo, more...)
	}
	return nil
}

// specDigests appends every "sha256:HEX" string in a decoded JSON value.
func specDigests(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		if digestRE.MatchString(v) {
			out = append(out, v)
		}
	case []any:
		for _, e := range v {
			out = specDigests(e, out)
		}
	case map[string]any:
		for _, e := range v {
			out = specDigests(e, out)
		}
	}
	return out
}

// copyDigest copies the image value or blob with digest d from project src
// to dst when src has it and dst does not, and returns the digests an
// image copied names in turn.
func (t *mutation) copyDigest(src, dst, d string) ([]string, error) {
	var spec []byte
	var sens string
	var created int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT spec, sensitive, created_at FROM images WHERE project = ? AND hash = ?", src, d).Scan(&spec, &sens, &created)
	switch {
	case err == nil:
		var more []string
		if v, err := decodeJSON(spec); err == nil {
			more = specDigests(v, nil)
		}
		var have int
		if err := t.tx.QueryRowContext(t.ctx, "SELECT COUNT(*) FROM images WHERE project = ? AND hash = ?", dst, d).Scan(&have); err != nil {
			return nil, dbError(err)
		}
		if have > 0 {
			return more, nil
		}
		plain, err := t.in(src).unsealSpec(imagePlace(d), spec, splitLines(sens))
		if err != nil {
			return nil, err
		}
		sealed, err := t.in(dst).sealSpec(imagePlace(d), plain, splitLines(sens))
		if err != nil {
			return nil, err
		}
		if err := t.exec("INSERT INTO images (project, hash, spec, created_at, sensitive) VALUES (?, ?, ?, ?, ?)", dst, d, sealed, created, sens); err != nil {
			return nil, dbError(err)
		}
		return more, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, dbError(err)
	}
	for _, q := range []string{
		"INSERT INTO blobs (project, digest, size, created_at) SELECT ?, digest, size, created_at FROM blobs WHERE project = ? AND digest = ? ON CONFLICT DO NOTHING",
		"INSERT INTO blob_chunks (project, digest, seq, data) SELECT ?, digest, seq, data FROM blob_chunks WHERE project = ? AND digest = ? ON CONFLICT DO NOTHING",
	} {
		if err := t.exec(q, dst, src, d); err != nil {
			return nil, dbError(err)
		}
	}
	return nil, nil
}

// maxUnownedNames bounds GetStateRequest.unowned.
const maxUnownedNames = 1000

// checkUnownedNames checks the unowned resources a GetState names.
func checkUnownedNames(addrs []string) error {
	if len(addrs) > maxUnownedNames {
		return status.Errorf(codes.InvalidArgument, "%d unowned resources named; at most %d a call", len(addrs), maxUnownedNames)
	}
	for _, a := range addrs {
		if err := checkTransferable(a); err != nil {
			return err
		}
	}
	return nil
}

// unownedResources reads the resources of project "-" at addrs, sorted by
// address, with their versions, their sensitive values redacted; an
// address it lacks is left out.
func unownedResources(ctx context.Context, tx *sql.Tx, addrs []string) ([]*ccv1.Resource, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	sorted := append([]string(nil), addrs...)
	sort.Strings(sorted)
	var out []*ccv1.Resource
	for i, a := range sorted {
		if i > 0 && a == sorted[i-1] {
			continue
		}
		var r row
		err := r.scan(tx.QueryRowContext(ctx, "SELECT "+rowColumns+" FROM resources WHERE project = ? AND address = ?", Unowned, a))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, dbError(err)
		}
		rp := r.proto()
		rp.Spec = redactedSpec(rp.Spec, rp.Sensitive)
		out = append(out, rp)
	}
	if len(out) == 0 {
		return nil, nil
	}
	classes, err := valueClasses(ctx, tx, Unowned)
	if err != nil {
		return nil, err
	}
	return out, addVersions(ctx, tx, Unowned, out, classes)
}
