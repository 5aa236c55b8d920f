package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// Sensitive values and secret values (issue 8 item 8). Nothing derived
// from a value leaves the service: a resource's hash is computed over its
// spec with each sensitive value replaced by a placeholder (so the hash
// says nothing of them), the fingerprints that tell values apart are HMACs
// keyed with a key derived from the server's secret key file and are never
// sent, and a client learns whether a local value equals the service's
// only by asking (the values a GetState carries, or CompareValues), at a
// rate limited per caller for both together.

// fingerprint is the keyed fingerprint of a value at a place: a secret's
// value (pointer "") or a sensitive value of a resource's spec (address
// "ADDRESS" or, for an image, its hash; pointer a JSON pointer).
func (k *keys) fingerprint(project, address, pointer string, value []byte) string {
	m := hmac.New(sha256.New, k.fpKey)
	for _, s := range []string{project, address, pointer} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	m.Write(value)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}

// secretFingerprints are the fingerprints a secret's value may be stored
// under: keyed with the server's key, or (revisions stored before keyed
// fingerprints) with the project's salt, which is no longer sent.
func (t *mutation) secretFingerprints(address string, value []byte) (keyed, legacy string) {
	return t.s.keys.fingerprint(t.project, address, "", value), Fingerprint(t.salt, address, value)
}

// equalRevision finds the earliest revision of the secret whose value is
// value, by fingerprint: its fingerprint, or "" when there is none.
func equalRevision(ctx context.Context, tx *sql.Tx, project, address string, keyed, legacy string) (int64, string, error) {
	var rev int64
	var fp string
	err := tx.QueryRowContext(ctx, "SELECT revision, fingerprint FROM secret_revisions WHERE project = ? AND address = ? AND fingerprint IN (?, ?) ORDER BY revision LIMIT 1",
		project, address, keyed, legacy).Scan(&rev, &fp)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	return rev, fp, err
}

// valueClasses maps each secret revision's fingerprint, by address, to the
// first revision with it: SecretValue.same_value_as.
func valueClasses(ctx context.Context, tx *sql.Tx, project string) (map[string]int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT address, revision, fingerprint FROM secret_revisions WHERE project = ? ORDER BY address, revision", project)
	if err != nil {
		return nil, dbError(err)
	}
	out := map[string]int64{}
	for rows.Next() {
		var addr, fp string
		var rev int64
		if err := rows.Scan(&addr, &rev, &fp); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		if _, ok := out[addr+"\x00"+fp]; !ok {
			out[addr+"\x00"+fp] = rev
		}
	}
	return out, closeRows(rows)
}

// sensitiveEntry names a sensitive value in a version's secrets column:
// "ADDRESS#POINTER" with spaces and percent signs escaped, for the
// resource's own values, and "ADDRESS#/image..." for those of the images
// it uses (through image and from_image).
func sensitiveEntry(address, pointer string) string {
	return address + "#" + entryEscaper.Replace(pointer)
}

var entryEscaper = strings.NewReplacer("%", "%25", " ", "%20", "\n", "%0A")

func isSensitiveEntry(address string) bool { return strings.Contains(address, "#") }

// sensitiveVersionEntries are the fingerprints of the sensitive values a
// version of the resource at address with spec is made with: its own, and
// those of the image it runs and the images that one is built from. They
// are part of the version's key, so a changed sensitive value gives a new
// version and a value put back reuses the version made with it.
func (t *mutation) sensitiveVersionEntries(address string, spec []byte, sens []string) ([]versionSecret, error) {
	var out []versionSecret
	for _, p := range sens {
		if v, ok := schema.SensitiveValue(spec, p); ok {
			out = append(out, versionSecret{address: sensitiveEntry(address, p), fingerprint: t.s.keys.fingerprint(t.project, address, p, v)})
		}
	}
	var s struct {
		Image string `json:"image"`
	}
	if json.Unmarshal(spec, &s) != nil || s.Image == "" {
		return out, nil
	}
	prefix := "/image"
	for hash, n := s.Image, 0; hash != "" && n < 64; n++ {
		var ispec []byte
		var isens string
		err := t.tx.QueryRowContext(t.ctx, "SELECT spec, sensitive FROM images WHERE project = ? AND hash = ?", t.project, hash).Scan(&ispec, &isens)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, dbError(err)
		}
		if ispec, err = t.unsealSpec(imagePlace(hash), ispec, splitLines(isens)); err != nil {
			return nil, err
		}
		for _, p := range splitLines(isens) {
			if v, ok := schema.SensitiveValue(ispec, p); ok {
				out = append(out, versionSecret{address: sensitiveEntry(address, prefix+p), fingerprint: t.s.keys.fingerprint(t.project, address, prefix+p, v)})
			}
		}
		var is schema.ImageSpec
		if json.Unmarshal(ispec, &is) != nil {
			break
		}
		hash, prefix = is.FromImage, prefix+"/from_image"
	}
	return out, nil
}

// compareLimit is how many values a caller may compare a minute.
const compareLimit = 10_000

// limiter is a token bucket per caller: compareLimit comparisons, refilled
// evenly over a minute.
type limiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func (l *limiter) take(caller string, n int, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buckets == nil {
		l.buckets = map[string]*bucket{}
	}
	b := l.buckets[caller]
	if b == nil {
		if len(l.buckets) > 100_000 {
			l.buckets = map[string]*bucket{} // forget idle callers rather than grow
		}
		b = &bucket{tokens: compareLimit, at: now}
		l.buckets[caller] = b
	}
	b.tokens = min(compareLimit, b.tokens+now.Sub(b.at).Minutes()*compareLimit)
	b.at = now
	if float64(n) > b.tokens {
		return false
	}
	b.tokens -= float64(n)
	return true
}

// caller names who a call speaks for, for its rate limit: the token's
// principal, or the peer's host without tokens.
func caller(ctx context.Context) string {
	if p, _ := ctx.Value(principalKey{}).(*principal); p != nil && p.name != "local" {
		return "token " + p.name
	}
	if p, _ := peer.FromContext(ctx); p != nil && p.Addr != nil {
		host := p.Addr.String()
		if i := strings.LastIndexByte(host, ':'); i > 0 && p.Addr.Network() == "tcp" {
			host = host[:i]
		}
		return "peer " + host
	}
	return "local"
}

// CompareValues answers, for each value, whether it equals the service's
// at that place, never what the service's is.
func (a *resourceAPI) CompareValues(ctx context.Context, req *ccv1.CompareValuesRequest) (*ccv1.CompareValuesResponse, error) {
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	vals := req.GetValues()
	if err := a.s.admitComparisons(ctx, vals); err != nil {
		return nil, err
	}
	tx, err := a.s.st.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	var salt []byte
	err = tx.QueryRowContext(ctx, "SELECT salt FROM projects WHERE name = ?", project).Scan(&salt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, dbError(err)
	}
	t := &mutation{tx: newStmtTx(tx, nil), ctx: ctx, s: a.s, project: project, salt: salt}
	if err := t.prepareComparisons(vals, false); err != nil {
		return nil, err
	}
	resp := &ccv1.CompareValuesResponse{Results: make([]ccv1.Comparison, len(vals))}
	for i, v := range vals {
		c, err := t.compare(v)
		if err != nil {
			return nil, err
		}
		resp.Results[i] = c
	}
	return resp, nil
}

// admitComparisons checks values to compare (CompareValues', or those a
// GetState carries) and takes them from the caller's rate limit: both
// calls share one limit, so neither is a way around the other's.
func (s *Server) admitComparisons(ctx context.Context, vals []*ccv1.CompareValue) error {
	if len(vals) == 0 {
		return nil
	}
	if len(vals) > compareLimit {
		return status.Errorf(codes.InvalidArgument, "%d values: at most %d a call", len(vals), compareLimit)
	}
	for _, v := range vals {
		if _, _, err := parseAddress(v.GetAddress()); err != nil {
			return err
		}
		if p := v.GetPointer(); p != "" && (!strings.HasPrefix(p, "/") || len(p) > 4096) {
			return status.Errorf(codes.InvalidArgument, "pointer %q is not a JSON pointer", p)
		}
		if len(v.GetValue()) > maxSecretValue {
			return status.Errorf(codes.InvalidArgument, "%s: value larger than %d bytes", v.GetAddress(), maxSecretValue)
		}
	}
	if !s.inProcess && !s.compares.take(caller(ctx), len(vals), s.now()) {
		return status.Errorf(codes.ResourceExhausted, "more than %d value comparisons a minute: wait and try again", compareLimit)
	}
	return nil
}

// matches answers the values a GetState carries, in its read
// transaction: for each, what CompareValues answers, and every revision
// (of a secret) or version (of a function or dataset) with an equal
// value, so that a caller that did not know the state before the call
// needs no other. The rows of an address are read once.
func (t *mutation) matches(vals []*ccv1.CompareValue) ([]*ccv1.ValueMatch, error) {
	type secretRev struct {
		rev int64
		fp  string
	}
	if err := t.prepareComparisons(vals, true); err != nil {
		return nil, err
	}
	revs := map[string][]secretRev{}
	versions := t.cmp.versions
	out := make([]*ccv1.ValueMatch, len(vals))
	for i, v := range vals {
		c, err := t.compare(v)
		if err != nil {
			return nil, err
		}
		m := &ccv1.ValueMatch{Comparison: c}
		addr := v.GetAddress()
		switch {
		case v.GetPointer() == "":
			rs, ok := revs[addr]
			if !ok {
				rows, err := t.tx.QueryContext(t.ctx, "SELECT revision, fingerprint FROM secret_revisions WHERE project = ? AND address = ? ORDER BY revision", t.project, addr)
				if err != nil {
					return nil, dbError(err)
				}
				for rows.Next() {
					var r secretRev
					if err := rows.Scan(&r.rev, &r.fp); err != nil {
						rows.Close()
						return nil, dbError(err)
					}
					rs = append(rs, r)
				}
				if err := closeRows(rows); err != nil {
					return nil, err
				}
				revs[addr] = rs
			}
			if len(rs) > 0 {
				keyed, legacy := t.secretFingerprints(addr, v.GetValue())
				for _, r := range rs {
					if hmac.Equal([]byte(r.fp), []byte(keyed)) || hmac.Equal([]byte(r.fp), []byte(legacy)) {
						m.EqualRevisions = append(m.EqualRevisions, r.rev)
					}
				}
			}
		case schema.KindOf(addr).Versioned():
			vs, ok := versions[addr]
			if !ok {
				if vs, err = t.versionRows(addr); err != nil {
					return nil, err
				}
				versions[addr] = vs
			}
			if len(vs) == 0 {
				break
			}
			want := sensitiveEntry(addr, v.GetPointer())
			fp := t.s.keys.fingerprint(t.project, addr, v.GetPointer(), v.GetValue())
			for _, vr := range vs {
				if got, ok := vr.entries[want]; ok && hmac.Equal([]byte(got), []byte(fp)) {
					m.EqualRevisions = append(m.EqualRevisions, vr.version)
				}
			}
		}
		out[i] = m
	}
	return out, nil
}

// versionRow is a version's number and the fingerprints its key has, by
// entry (sensitiveEntry, or a secret's address).
type versionRow struct {
	version int64
	entries map[string]string
}

// versionEntries are the fingerprints a version's secrets column holds,
// by entry: the first of each.
func versionEntries(col string) map[string]string {
	entries := map[string]string{}
	for _, line := range splitLines(col) {
		if f := strings.Fields(line); len(f) == 3 {
			if _, dup := entries[f[0]]; !dup {
				entries[f[0]] = f[2]
			}
		}
	}
	return entries
}

func (t *mutation) versionRows(addr string) ([]versionRow, error) {
	rows, err := t.tx.QueryContext(t.ctx, "SELECT version, secrets FROM versions WHERE project = ? AND address = ? ORDER BY version", t.project, addr)
	if err != nil {
		return nil, dbError(err)
	}
	var out []versionRow
	for rows.Next() {
		var vr versionRow
		var col string
		if err := rows.Scan(&vr.version, &col); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		vr.entries = versionEntries(col)
		out = append(out, vr)
	}
	return out, closeRows(rows)
}

func (t *mutation) compare(v *ccv1.CompareValue) (ccv1.Comparison, error) {
	addr := v.GetAddress()
	if v.GetPointer() == "" {
		if schema.KindOf(addr) != schema.KindSecret {
			return 0, status.Errorf(codes.InvalidArgument, "%s: only a secret's value is compared without a pointer", addr)
		}
		var fp string
		q := "SELECT fingerprint FROM secret_revisions WHERE project = ? AND address = ? ORDER BY revision DESC LIMIT 1"
		args := []any{t.project, addr}
		if r := v.GetRevision(); r != 0 {
			q = "SELECT fingerprint FROM secret_revisions WHERE project = ? AND address = ? AND revision = ?"
			args = append(args, r)
		}
		err := t.tx.QueryRowContext(t.ctx, q, args...).Scan(&fp)
		if errors.Is(err, sql.ErrNoRows) {
			return ccv1.Comparison_COMPARISON_ABSENT, nil
		}
		if err != nil {
			return 0, dbError(err)
		}
		keyed, legacy := t.secretFingerprints(addr, v.GetValue())
		if hmac.Equal([]byte(fp), []byte(keyed)) || hmac.Equal([]byte(fp), []byte(legacy)) {
			return ccv1.Comparison_COMPARISON_EQUAL, nil
		}
		return ccv1.Comparison_COMPARISON_DIFFERENT, nil
	}
	if r := v.GetRevision(); r != 0 {
		return t.compareVersion(v, r)
	}
	cur, err := t.current(addr)
	if err != nil {
		return 0, err
	}
	// Only sensitive values are compared: the others are in the state.
	have, ok := cur.sensitiveValue(v.GetPointer())
	if !ok {
		return ccv1.Comparison_COMPARISON_ABSENT, nil
	}
	if subtle.ConstantTimeCompare(have, v.GetValue()) == 1 {
		return ccv1.Comparison_COMPARISON_EQUAL, nil
	}
	return ccv1.Comparison_COMPARISON_DIFFERENT, nil
}

// checkSensitiveSpec checks a spec and its hash: the hash of the spec, or
// for a spec with sensitive values the hash of the spec with each replaced
// by the placeholder. An image with sensitive values is hashed with the
// place it is declared at as well, which the service does not know: its
// hash is checked to be a sha256 only.
func checkSensitiveSpec(spec []byte, hash string, sens []string, image bool) error {
	if len(sens) == 0 {
		return checkSpec(spec, hash)
	}
	red, err := schema.RedactedHash(spec, sens)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "spec is not JSON: %v", err)
	}
	if err := checkSpec(spec, schema.Hash(spec)); err != nil {
		return err
	}
	switch {
	case image && !digestRE.MatchString(hash):
		return status.Errorf(codes.InvalidArgument, "hash %q is not sha256:HEX", hash)
	case !image && red != hash:
		// The hash given is not echoed: an old client's is over the values.
		return status.Errorf(codes.InvalidArgument, "the hash does not match the spec's %s (made with its sensitive values replaced by %s)", red, schema.Redacted)
	}
	return nil
}

// redactedSpec is a spec as a reader of the state gets it: every sensitive
// value replaced by the placeholder. The service keeps the values (the
// platform needs them) but sends none.
func redactedSpec(spec []byte, sens []string) []byte {
	if len(sens) == 0 || len(spec) == 0 {
		return spec
	}
	red, err := schema.RedactSpec(spec, sens)
	if err != nil {
		return []byte("{}")
	}
	return red
}

// Sensitive values are kept encrypted at rest: in every stored spec
// (resources, versions, images) the value at each sensitive pointer is
// replaced by sealedPrefix + base64 of an AES-GCM nonce and ciphertext of
// its canonical JSON, bound to the project, the place (a resource's
// address, or "image " + an image's hash) and the pointer. Only the code
// that needs a value (CompareValues, version keys) opens it. Specs stored
// before have plain values there, which are read as they are.
const sealedPrefix = "cc-sealed:v1:"

func sensitiveAD(project, place, pointer string) []byte {
	return []byte("cc sensitive value\x00" + project + "\x00" + place + "\x00" + pointer)
}

// sealSpec returns spec with its sensitive values sealed.
func (t *mutation) sealSpec(place string, spec []byte, sens []string) ([]byte, error) {
	if len(sens) == 0 {
		return spec, nil
	}
	v, err := decodeJSON(spec)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "spec is not JSON: %v", err)
	}
	for _, p := range sens {
		val, ok := schema.SensitiveValue(spec, p)
		if !ok {
			continue
		}
		nonce := make([]byte, t.s.keys.aead.NonceSize())
		rand.Read(nonce)
		ct := t.s.keys.aead.Seal(nil, nonce, val, sensitiveAD(t.project, place, p))
		v = schema.ReplaceAt(v, schema.SplitPointer(p), sealedPrefix+base64.RawStdEncoding.EncodeToString(append(nonce, ct...)))
	}
	return schema.Canonical(v)
}

// unsealSpec returns a stored spec with its sensitive values opened.
func (t *mutation) unsealSpec(place string, spec []byte, sens []string) ([]byte, error) {
	if len(sens) == 0 || !containsSealed(spec) {
		return spec, nil
	}
	v, err := decodeJSON(spec)
	if err != nil {
		return nil, dbError(err)
	}
	if v, err = t.unsealTree(place, v, sens); err != nil {
		return nil, err
	}
	return schema.Canonical(v)
}

// unsealTree opens the sealed values at sens in v, a stored spec decoded,
// and returns it.
func (t *mutation) unsealTree(place string, v any, sens []string) (any, error) {
	for _, p := range sens {
		x, ok := schema.ValueAt(v, p)
		s, isString := x.(string)
		if !ok || !isString || !strings.HasPrefix(s, sealedPrefix) {
			continue
		}
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(s, sealedPrefix))
		n := t.s.keys.aead.NonceSize()
		if err != nil || len(raw) < n {
			return nil, status.Errorf(codes.DataLoss, "a sealed value of %s is damaged", place)
		}
		plain, err := t.s.keys.aead.Open(nil, raw[:n], raw[n:], sensitiveAD(t.project, place, p))
		if err != nil {
			return nil, t.s.openFailed(t.ctx, "a sealed value of "+place) // rotatekeys.go
		}
		pv, err := decodeJSON(plain)
		if err != nil {
			return nil, dbError(err)
		}
		v = schema.ReplaceAt(v, schema.SplitPointer(p), pv)
	}
	return v, nil
}

func imagePlace(hash string) string { return "image " + hash }

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// compareVersion compares a value with the one version n of a function or
// dataset was made with at pointer: its own, or under /image one of the
// image it runs (/image/from_image/... its base's), by the fingerprints
// the version's key has.
func (t *mutation) compareVersion(v *ccv1.CompareValue, n int64) (ccv1.Comparison, error) {
	addr := v.GetAddress()
	if !schema.KindOf(addr).Versioned() {
		return 0, status.Errorf(codes.InvalidArgument, "%s: only a secret's value, or a function's or dataset's, is compared with a revision", addr)
	}
	var col string
	err := t.tx.QueryRowContext(t.ctx, "SELECT secrets FROM versions WHERE project = ? AND address = ? AND version = ?", t.project, addr, n).Scan(&col)
	if errors.Is(err, sql.ErrNoRows) {
		return ccv1.Comparison_COMPARISON_ABSENT, nil
	}
	if err != nil {
		return 0, dbError(err)
	}
	want := sensitiveEntry(addr, v.GetPointer())
	for _, line := range splitLines(col) {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != want {
			continue
		}
		if hmac.Equal([]byte(f[2]), []byte(t.s.keys.fingerprint(t.project, addr, v.GetPointer(), v.GetValue()))) {
			return ccv1.Comparison_COMPARISON_EQUAL, nil
		}
		return ccv1.Comparison_COMPARISON_DIFFERENT, nil
	}
	return ccv1.Comparison_COMPARISON_ABSENT, nil
}
