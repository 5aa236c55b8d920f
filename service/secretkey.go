package service

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// keys are what the server derives from its secret key file: the AES-GCM
// cipher for secret values, the HMAC key for idempotency records and the
// HMAC key of the fingerprints of secret and sensitive values, which never
// leave the server. After a rotation (rotate.go) the two HMAC keys are the
// ones of the first key file, kept wrapped under the current one.
type keys struct {
	aead   cipher.AEAD
	macKey []byte
	fpKey  []byte
	// check is the database's key check for this key (meta key_check), and
	// checkSQL the query that reads it in a mutation transaction
	// (checkCurrent).
	check    []byte
	checkSQL string
}

// DefaultSecretKeyFile is where the secret key lives when none is given:
// beside the database.
func DefaultSecretKeyFile(dbPath string) string { return dbPath + ".key" }

// loadKeys reads the key file (64 hex digits), or, when generate is set and
// the database has never held a key, creates one with mode 0600. It refuses
// a key that is not the one the database was first used with, or last
// rotated to.
func loadKeys(ctx context.Context, st *store, path string, generate bool) (*keys, error) {
	check, wrapped, err := readKeyMeta(ctx, st.w)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && generate && check == nil:
		raw, err = generateKeyFile(path)
		if err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist) && check != nil:
		return nil, fmt.Errorf("secret key file %s is missing; the database's secret values were encrypted with it", path)
	case err != nil:
		return nil, fmt.Errorf("secret key file: %w", err)
	}
	key, err := parseKey(path, raw)
	if err != nil {
		return nil, err
	}
	sum := keyCheck(key, wrapped != nil)
	if check == nil {
		// Replicas starting at once on a new database: the first key
		// written is the database's, and the others are checked against it.
		if _, err := st.w.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('key_check', ?) ON CONFLICT (key) DO NOTHING", sum); err != nil {
			return nil, err
		}
		if err := st.w.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'key_check'").Scan(&check); err != nil {
			return nil, err
		}
	}
	if !hmac.Equal(check, sum) {
		return nil, fmt.Errorf("secret key file %s is not the key this database was created with (or, after cc server rotate-key, the new key it was rotated to)", path)
	}
	k, err := newKeys(key, wrapped)
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", path, err)
	}
	k.checkSQL = keyCheckSQL(st.w)
	return k, nil
}

// readKeyMeta reads the database's key check and wrapped HMAC keys, each
// nil when absent.
func readKeyMeta(ctx context.Context, db *sql.DB) (check, wrapped []byte, err error) {
	err = db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'key_check'").Scan(&check)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, nil, err
	}
	err = db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = "+wrappedKeysRow).Scan(&wrapped)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, nil, err
	}
	return check, wrapped, nil
}

// parseKey decodes a key file's text: 64 hex digits.
func parseKey(path string, raw []byte) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("secret key file %s: want 64 hex digits (32 bytes)", path)
	}
	return key, nil
}

// keyCheck is what meta key_check holds for key: an HMAC under it that
// tells a wrong key file from the right one. A rotated database's check
// has a label of its own, so that a cc that predates rotation refuses it
// (it would fingerprint with HMAC keys derived from the new file, not the
// wrapped ones) instead of making every version anew.
func keyCheck(key []byte, rotated bool) []byte {
	if rotated {
		return derive(key, "cc key check, rotated")
	}
	return derive(key, "cc key check")
}

// newKeys derives the keys of key; wrapped, when not nil, holds the HMAC
// keys (wrapKeys) in place of those derived from key.
func newKeys(key, wrapped []byte) (*keys, error) {
	aead, err := newAEAD(derive(key, "cc secret values"))
	if err != nil {
		return nil, err
	}
	k := &keys{aead: aead, macKey: derive(key, "cc idempotency"), fpKey: derive(key, "cc value fingerprints"), check: keyCheck(key, wrapped != nil)}
	if wrapped != nil {
		if k.macKey, k.fpKey, err = unwrapKeys(key, wrapped); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func generateKeyFile(path string) ([]byte, error) {
	key := make([]byte, 32)
	rand.Read(key)
	text := []byte(hex.EncodeToString(key) + "\n")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create secret key file: %w", err)
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		return nil, fmt.Errorf("create secret key file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("create secret key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("create secret key file: %w", err)
	}
	return text, nil
}

func derive(key []byte, label string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// secretAD is the additional data that binds a ciphertext to its place.
func secretAD(project, address string, revision int64) []byte {
	var b bytes.Buffer
	b.WriteString(project)
	b.WriteByte(0)
	b.WriteString(address)
	b.WriteByte(0)
	binary.Write(&b, binary.BigEndian, revision)
	return b.Bytes()
}

func (k *keys) seal(value []byte, project, address string, revision int64) (nonce, ciphertext []byte) {
	nonce = make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	return nonce, k.aead.Seal(nil, nonce, value, secretAD(project, address, revision))
}

// mac is the HMAC of b under the idempotency key.
func (k *keys) mac(b []byte) []byte {
	m := hmac.New(sha256.New, k.macKey)
	m.Write(b)
	return m.Sum(nil)
}

// Fingerprint is "hmac-sha256:" + hex of HMAC-SHA256 keyed with a project's
// fingerprint salt over the secret's address, a zero byte and the value:
// how revisions stored before keyed fingerprints are fingerprinted. The
// salt used to be sent with the state, which let anyone who could read it
// test guesses of a value; it no longer leaves the server, and new
// revisions are fingerprinted with the server's own key (keys.fingerprint).
func Fingerprint(salt []byte, address string, value []byte) string {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(address))
	m.Write([]byte{0})
	m.Write(value)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}
