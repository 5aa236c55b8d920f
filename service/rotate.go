package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"cc.dev/cc/schema"
)

// RotateKeyResult is what RotateKey did.
type RotateKeyResult struct {
	// Generated is set when the new key file was created.
	Generated bool
	// SecretRevisions, Outputs and Specs count the secret revisions, the
	// sensitive outputs and the stored specs (of resources, versions and
	// images) with sealed values that were sealed again.
	SecretRevisions, Outputs, Specs int
	// Leftover, when not "", says where copies of the values sealed with
	// the old key may remain (scrub), for the operator to clear.
	Leftover string
}

// RotateKey replaces the secret key of the database at dbPath, held in
// oldKeyFile, with the one in newKeyFile, generated (mode 0600) when the
// file does not exist. In one transaction every sealed value is opened
// with the old key and sealed with the new one, and the key check is
// replaced: a failure leaves the database as it was, the old key valid.
// rotatekeys.go says which derived keys rotate and why. The old key file
// is left where it is. Servers on the database must restart with the new
// file: one still running with the old one refuses every mutation.
func RotateKey(ctx context.Context, dbPath, oldKeyFile, newKeyFile string) (RotateKeyResult, error) {
	var res RotateKeyResult
	if !IsPostgres(dbPath) {
		if _, err := os.Stat(dbPath); err != nil {
			return res, fmt.Errorf("rotate key: %w", err) // not made by opening it
		}
	}
	st, err := openStore(ctx, dbPath, SyncFull)
	if err != nil {
		return res, err
	}
	defer st.close()
	check, _, err := readKeyMeta(ctx, st.w)
	if err != nil {
		return res, fmt.Errorf("rotate key: %w", err)
	}
	if check == nil {
		return res, errors.New("rotate key: the database has no secret key yet: there is nothing to rotate")
	}
	old, err := loadKeys(ctx, st, oldKeyFile, false)
	if err != nil {
		return res, fmt.Errorf("rotate key: the old key: %w", err)
	}
	newKey, generated, err := readNewKey(newKeyFile)
	if err != nil {
		return res, fmt.Errorf("rotate key: the new key: %w", err)
	}
	res.Generated = generated
	if hmac.Equal(keyCheck(newKey, false), old.check) || hmac.Equal(keyCheck(newKey, true), old.check) {
		return res, fmt.Errorf("rotate key: %s holds the database's current key: give a new one", newKeyFile)
	}
	if isSQLite(st.w) {
		// The writer is one connection: the pragma holds for the rotation.
		if _, err := st.w.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
			return res, fmt.Errorf("rotate key: %w", err)
		}
	}
	r, err := newRotation(ctx, old, newKey)
	if err != nil {
		return res, fmt.Errorf("rotate key: %w", err)
	}
	if err := r.commit(st.w); err != nil {
		return res, fmt.Errorf("rotate key: nothing was changed, the old key is still the database's: %w", err)
	}
	res.SecretRevisions, res.Outputs, res.Specs = r.res.SecretRevisions, r.res.Outputs, r.res.Specs
	res.Leftover = scrub(ctx, st.w)
	return res, nil
}

// scrub clears, after a rotation, the copies of the old ciphertexts the
// database files keep: the SQLite WAL still holds the pages written before
// and by the rotation, and free pages the rows they replaced. secure_delete
// (set for the rotation) zeroes what the rotation frees; VACUUM rebuilds
// the file without free pages and a TRUNCATE checkpoint empties the WAL.
// On PostgreSQL, VACUUM FULL rewrites the tables that held sealed values
// without their old row versions. It returns what it could not clear, for
// the operator.
func scrub(ctx context.Context, db *sql.DB) string {
	if !isSQLite(db) {
		// VACUUM FULL rewrites the tables without the replaced row
		// versions (it locks each table while it does, briefly).
		const tables = "secret_revisions, outputs, resources, versions, images"
		if _, err := db.ExecContext(ctx, "VACUUM FULL "+tables); err != nil {
			return fmt.Sprintf("VACUUM FULL after the rotation failed (%v): PostgreSQL keeps the replaced row versions until they are vacuumed: run VACUUM FULL %s; WAL archives and base backups made before the rotation still hold values the old key opens", err, tables)
		}
		return ""
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Sprintf("VACUUM after the rotation failed (%v): free pages of the database file may hold values the old key opens; run VACUUM on it with the servers stopped", err)
	}
	var busy, log, done int
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &log, &done); err != nil || busy != 0 {
		return "the WAL file (the database's name + -wal) could not be emptied while a server reads it: it may hold values the old key opens until the servers restart"
	}
	return ""
}

// readNewKey reads the new key file, generating it when it does not exist.
func readNewKey(path string) (key []byte, generated bool, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw, err = generateKeyFile(path)
		generated = err == nil
	}
	if err != nil {
		return nil, false, err
	}
	key, err = parseKey(path, raw)
	return key, generated, err
}

// rotation is one key rotation: the keys before and after, and the new
// key's meta rows.
type rotation struct {
	ctx               context.Context
	tx                *sql.Tx
	old, new          *keys
	newCheck, wrapped []byte
	res               RotateKeyResult
}

func newRotation(ctx context.Context, old *keys, newKey []byte) (*rotation, error) {
	wrapped, err := wrapKeys(newKey, old)
	if err != nil {
		return nil, err
	}
	nk, err := newKeys(newKey, wrapped)
	if err != nil {
		return nil, err
	}
	return &rotation{ctx: ctx, old: old, new: nk, newCheck: nk.check, wrapped: wrapped}, nil
}

// rotateFault, when set (in tests), is called after each step of a
// rotation with its name; an error it returns fails the rotation there.
var rotateFault func(step string) error

// commit runs the rotation in one transaction of db. On PostgreSQL it
// reads committed data: the key check is updated first, which waits for
// every mutation transaction that read it (keyCheckSQL), and each later
// statement sees what those wrote.
func (r *rotation) commit(db *sql.DB) error {
	var opts *sql.TxOptions
	if !isSQLite(db) {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	tx, err := db.BeginTx(r.ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	r.tx = tx
	steps := []struct {
		name string
		run  func() error
	}{
		{"key check", r.replaceCheck},
		{"secret revisions", r.secretRevisions},
		{"outputs", r.outputs},
		{"resources", func() error { return r.specs("resources", []string{"project", "address"}, addressPlace) }},
		{"versions", func() error { return r.specs("versions", []string{"project", "address", "version"}, addressPlace) }},
		{"images", func() error { return r.specs("images", []string{"project", "hash"}, hashPlace) }},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if rotateFault != nil {
			if err := rotateFault(s.name); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
		}
	}
	return tx.Commit()
}

// replaceCheck puts the new key's check and wrapped keys in meta, refusing
// when the check is no longer the old key's (another rotation came first).
func (r *rotation) replaceCheck() error {
	res, err := r.tx.ExecContext(r.ctx, "UPDATE meta SET value = ? WHERE key = 'key_check' AND value = ?", r.newCheck, r.old.check)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return errors.New("the database's key changed meanwhile (another rotation?)")
	}
	_, err = r.tx.ExecContext(r.ctx, "INSERT INTO meta (key, value) VALUES ("+wrappedKeysRow+", ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", r.wrapped)
	return err
}

// secretRevisions seals every secret revision's value again.
func (r *rotation) secretRevisions() error {
	return r.keyset("secret_revisions", []string{"project", "address", "revision"}, []string{"nonce", "ciphertext"}, "",
		func(key, cols []any) error {
			project, address, rev := asString(key[0]), asString(key[1]), asInt(key[2])
			value, err := r.old.aead.Open(nil, asBytes(cols[0]), asBytes(cols[1]), secretAD(project, address, rev))
			if err != nil {
				return fmt.Errorf("%s %s revision %d does not open with the old key", project, address, rev)
			}
			nonce, ct := r.new.seal(value, project, address, rev)
			r.res.SecretRevisions++
			_, err = r.tx.ExecContext(r.ctx, "UPDATE secret_revisions SET nonce = ?, ciphertext = ? WHERE project = ? AND address = ? AND revision = ?",
				nonce, ct, project, address, rev)
			return err
		})
}

// outputs seals every sensitive output's value again: those with a nonce.
func (r *rotation) outputs() error {
	return r.keyset("outputs", []string{"project", "name"}, []string{"value", "nonce"}, "",
		func(key, cols []any) error {
			project, name, nonce := asString(key[0]), asString(key[1]), asBytes(cols[1])
			if len(nonce) == 0 {
				return nil
			}
			value, err := r.old.aead.Open(nil, nonce, asBytes(cols[0]), secretAD(project, outputPlace(name), 0))
			if err != nil {
				return fmt.Errorf("%s output %s does not open with the old key", project, name)
			}
			nonce, ct := r.new.seal(value, project, outputPlace(name), 0)
			r.res.Outputs++
			_, err = r.tx.ExecContext(r.ctx, "UPDATE outputs SET value = ?, nonce = ? WHERE project = ? AND name = ?", ct, nonce, project, name)
			return err
		})
}

// addressPlace and hashPlace are the places (sensitiveAD) of a row's
// sealed spec values, from its key: a resource's or version's address, an
// image's hash.
func addressPlace(key []any) string { return asString(key[1]) }
func hashPlace(key []any) string    { return imagePlace(asString(key[1])) }

// specs seals again the sensitive values of the specs of table, whose
// primary key is key and whose rows' places are place(key).
func (r *rotation) specs(table string, key []string, place func(key []any) string) error {
	where := make([]string, len(key))
	for i, k := range key {
		where[i] = k + " = ?"
	}
	update := "UPDATE " + table + " SET spec = ? WHERE " + strings.Join(where, " AND ")
	return r.keyset(table, key, []string{"spec", "sensitive"}, "sensitive <> ''", func(k, cols []any) error {
		spec := asBytes(cols[0])
		if !bytes.Contains(spec, []byte(sealedPrefix)) {
			return nil
		}
		resealed, err := r.resealSpec(asString(k[0]), place(k), spec, splitLines(asString(cols[1])))
		if err != nil {
			return err
		}
		r.res.Specs++
		_, err = r.tx.ExecContext(r.ctx, update, append([]any{resealed}, k...)...)
		return err
	})
}

// resealSpec returns spec with each sealed value sealed again with the new
// key. Only the sealed strings change: the rest of the spec keeps its
// bytes (a sealed string is base64, which JSON never escapes).
func (r *rotation) resealSpec(project, place string, spec []byte, sens []string) ([]byte, error) {
	v, err := decodeJSON(spec)
	if err != nil {
		return nil, fmt.Errorf("%s %s: stored spec: %w", project, place, err)
	}
	n := r.old.aead.NonceSize()
	for _, p := range sens {
		x, ok := schema.ValueAt(v, p)
		s, isString := x.(string)
		if !ok || !isString || !strings.HasPrefix(s, sealedPrefix) {
			continue
		}
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(s, sealedPrefix))
		if err != nil || len(raw) < n {
			return nil, fmt.Errorf("%s %s: a sealed value is damaged", project, place)
		}
		ad := sensitiveAD(project, place, p)
		plain, err := r.old.aead.Open(nil, raw[:n], raw[n:], ad)
		if err != nil {
			return nil, fmt.Errorf("%s %s: a sealed value does not open with the old key", project, place)
		}
		nonce := make([]byte, n)
		rand.Read(nonce)
		sealed := sealedPrefix + base64.RawStdEncoding.EncodeToString(r.new.aead.Seal(nonce, nonce, plain, ad))
		from, to := []byte(`"`+s+`"`), []byte(`"`+sealed+`"`)
		if !bytes.Contains(spec, from) {
			return nil, fmt.Errorf("%s %s: a sealed value is not where it was read", project, place)
		}
		spec = bytes.Replace(spec, from, to, 1)
	}
	return spec, nil
}
