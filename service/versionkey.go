package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// A function's version is identified by its key: its spec's hash and the
// values, by fingerprint, of the secrets it uses whose values this service
// holds (from_env, from_env_file) and of the sensitive values of its spec
// and of the images it uses (sensitiveVersionEntries). The fingerprints are
// keyed with a key only the service has, and never sent. A new value of such a secret gives the
// function a new version; a value put back gives the version made with it
// again, though the secret's revision number is a new one, since the key
// has fingerprints, not revision numbers. Secrets whose values live
// elsewhere (from_service, from_integration, from_store) take part only by
// their spec's hash, which is in the function's spec.

// versionSecret is a managed secret's revision a version was made with.
type versionSecret struct {
	address     string
	revision    int64
	fingerprint string
}

// versionKey is the key of a version with hash made with secrets, sorted
// by address: its identity's (schema.VersionIdentity), the hash itself
// when there are none.
func versionKey(hash string, secrets []versionSecret) string {
	id := schema.VersionIdentity{Hash: hash, Values: make([]schema.VersionValue, len(secrets))}
	for i, s := range secrets {
		id.Values[i] = schema.VersionValue{Address: s.address, Fingerprint: s.fingerprint}
	}
	return id.Key()
}

func sortVersionSecrets(vs []versionSecret) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].address < vs[j].address })
}

// versionSecrets returns the current revision of each secret among deps
// (sorted) that has a managed value, each found by lookup
// (readVersionSecret, or a write transaction's, remembered): what a
// version of the resource depending on them is made with.
func versionSecrets(deps []string, lookup func(address string) (*versionSecret, error)) ([]versionSecret, error) {
	var out []versionSecret
	for _, d := range deps {
		if schema.KindOf(d) != schema.KindSecret {
			continue
		}
		s, err := lookup(d)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, *s)
		}
	}
	sortVersionSecrets(out)
	return out, nil
}

// readVersionSecret is the current revision of the secret at project and
// address, when it has a managed value (nil: it has none, or is no
// managed secret).
func readVersionSecret(ctx context.Context, tx querier, project, address string) (*versionSecret, error) {
	var spec []byte
	err := tx.QueryRowContext(ctx, "SELECT spec FROM resources WHERE project = ? AND address = ?", project, address).Scan(&spec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !schema.ManagedSecret(spec) {
		return nil, nil
	}
	s := versionSecret{address: address}
	err = tx.QueryRowContext(ctx, "SELECT revision, fingerprint FROM secret_revisions WHERE project = ? AND address = ? ORDER BY revision DESC LIMIT 1",
		project, address).Scan(&s.revision, &s.fingerprint)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil // no value yet: nothing to be made with
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// encodeVersionSecrets is the versions.secrets column: one line per
// secret, "ADDRESS REVISION FINGERPRINT".
func encodeVersionSecrets(vs []versionSecret) string {
	lines := make([]string, len(vs))
	for i, s := range vs {
		lines[i] = fmt.Sprintf("%s %d %s", s.address, s.revision, s.fingerprint)
	}
	return joinLines(lines)
}

// decodeVersionSecrets lists the secret revisions of a versions.secrets
// column, each with the first revision of the same value (classes, from
// valueClasses), never a fingerprint; the fingerprints of sensitive values
// are left out.
func decodeVersionSecrets(col string, classes map[string]int64) []*ccv1.SecretValue {
	var out []*ccv1.SecretValue
	for _, line := range splitLines(col) {
		f := strings.Fields(line)
		if len(f) != 3 || isSensitiveEntry(f[0]) {
			continue
		}
		rev, _ := strconv.ParseInt(f[1], 10, 64)
		out = append(out, &ccv1.SecretValue{Address: f[0], Revision: rev, SameValueAs: classes[f[0]+"\x00"+f[2]]})
	}
	return out
}

// keyCurrentVersions is part of migration 3: the current version of each
// versioned resource depending on managed secrets is keyed with their
// current revisions, with which it has been running.
func keyCurrentVersions(ctx context.Context, tx *sql.Tx) error {
	type current struct {
		project, address string
		version          int64
		deps             string
	}
	rows, err := tx.QueryContext(ctx, "SELECT project, address, version, depends_on FROM resources WHERE kind IN (?, ?) AND depends_on LIKE ?",
		string(schema.KindFunction), string(schema.KindDataset), "%"+string(schema.KindSecret)+".%")
	if err != nil {
		return err
	}
	var all []current
	for rows.Next() {
		var c current
		if err := rows.Scan(&c.project, &c.address, &c.version, &c.deps); err != nil {
			rows.Close()
			return err
		}
		all = append(all, c)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range all {
		var hash string
		err := tx.QueryRowContext(ctx, "SELECT hash FROM versions WHERE project = ? AND address = ? AND version = ?", c.project, c.address, c.version).Scan(&hash)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		vs, err := versionSecrets(splitLines(c.deps), func(address string) (*versionSecret, error) {
			return readVersionSecret(ctx, tx, c.project, address)
		})
		if err != nil {
			return err
		}
		if len(vs) == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, "UPDATE versions SET key = ?, secrets = ? WHERE project = ? AND address = ? AND version = ?",
			versionKey(hash, vs), encodeVersionSecrets(vs), c.project, c.address, c.version); err != nil {
			return err
		}
	}
	return nil
}
