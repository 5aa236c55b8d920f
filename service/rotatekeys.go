package service

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"database/sql"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"modernc.org/sqlite"
)

// Rotating the secret key (issue 14; RotateKey in rotate.go). Which keys
// rotate:
//
//   - The cipher of secret values, sensitive outputs and the sensitive
//     values of stored specs rotates: every sealed value is opened with
//     the old key and sealed again with one derived from the new key file,
//     in one transaction. An attacker with the old key file and a copy of
//     the database made after the rotation opens nothing: no ciphertext
//     there is under a key derived from the old file, nor, on SQLite, in
//     its free pages or WAL (scrub, in rotate.go).
//   - The HMAC keys of fingerprints and of idempotency records do not
//     rotate: they are kept, wrapped (AES-GCM) under a key derived from the
//     new key file, in meta's wrapped_keys row. The fingerprints are part
//     of every version's key (versionkey.go), which clients hold and plan
//     against, and the idempotency records' MACs are what a retry across
//     the rotation must match; recomputing them would need every value a
//     version was made with, including those of images since changed, and
//     would change the keys clients see, so that an unchanged project would
//     plan changes. An HMAC opens no value: what the old key file gives an
//     attacker who also has a new copy of the database is a way to test a
//     guess of a value against its fingerprint, never the value; a value
//     worth guessing is one to replace after a leak of the key file anyway.
//
// A server started with the old key file after the rotation is refused by
// the key check, as one with a wrong file always was. One still running
// with it is refused every mutation (checkCurrent, once per batch), so it
// never seals a value with the old key; its reads open nothing with it
// (AES-GCM fails rather than decrypt garbage) and answer DataLoss.

// wrappedKeysRow is the meta key of the wrapped HMAC keys, as SQL.
const wrappedKeysRow = "'wrapped_keys'"

// wrappedKeysAD binds the wrapped keys to their purpose.
var wrappedKeysAD = []byte("cc wrapped hmac keys v1")

// wrapKeys seals k's HMAC keys under a key derived from key (a key file's).
func wrapKeys(key []byte, k *keys) ([]byte, error) {
	aead, err := newAEAD(derive(key, "cc key wrap"))
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	plain := append(append([]byte{}, k.macKey...), k.fpKey...)
	return aead.Seal(nonce, nonce, plain, wrappedKeysAD), nil
}

// unwrapKeys opens wrapKeys' result with key.
func unwrapKeys(key, wrapped []byte) (macKey, fpKey []byte, err error) {
	aead, err := newAEAD(derive(key, "cc key wrap"))
	if err != nil {
		return nil, nil, err
	}
	n := aead.NonceSize()
	if len(wrapped) < n {
		return nil, nil, errors.New("the database's wrapped keys are damaged")
	}
	plain, err := aead.Open(nil, wrapped[:n], wrapped[n:], wrappedKeysAD)
	if err != nil || len(plain) != 64 {
		return nil, nil, errors.New("the database's wrapped keys do not open with this key")
	}
	return plain[:32], plain[32:], nil
}

// isSQLite reports whether db is a SQLite database (else PostgreSQL).
func isSQLite(db *sql.DB) bool {
	_, ok := db.Driver().(*sqlite.Driver)
	return ok
}

// keyCheckSQL reads the key check in a mutation transaction. On
// PostgreSQL it takes a share lock on the row, held to the commit: a
// rotation, which updates the row first, waits for the transactions that
// read it, and those that come after wait for the rotation and then read
// its check. SQLite has one writer at a time, so a rotation and a batch
// never overlap there.
func keyCheckSQL(db *sql.DB) string {
	q := "SELECT value FROM meta WHERE key = 'key_check'"
	if !isSQLite(db) {
		q += " FOR SHARE"
	}
	return q
}

// keyRotated says that a server's key is no longer its database's.
const keyRotated = "the secret key of this server's database was rotated (cc server rotate-key) after the server started: " +
	"restart it with --secret-key-file naming the new key file"

// errKeyRotated is the refusal of a mutation by a server whose key is no
// longer the database's.
var errKeyRotated = status.Error(codes.FailedPrecondition, keyRotated+"; nothing was written")

// openFailed is the error of a sealed value (what) that does not open with
// the server's key: the key was rotated away, or the value is damaged.
func (s *Server) openFailed(ctx context.Context, what string) error {
	var check []byte
	err := s.st.r.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'key_check'").Scan(&check)
	if err == nil && !hmac.Equal(check, s.keys.check) {
		return status.Error(codes.FailedPrecondition, keyRotated)
	}
	return status.Errorf(codes.DataLoss, "%s does not open with this server's key", what)
}

// checkCurrent refuses, in a mutation transaction, a server whose key is
// no longer the database's: a replica still running with the key file a
// rotation replaced must not seal values with it.
func (s *Server) checkCurrent(ctx context.Context, tx *stmtTx) error {
	var check []byte
	err := tx.QueryRowContext(ctx, s.keys.checkSQL).Scan(&check)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !hmac.Equal(check, s.keys.check)) {
		s.log.Error("the database's secret key was rotated: restart this server with the new key file")
		return errKeyRotated
	}
	if err != nil {
		return dbError(err)
	}
	return nil
}
