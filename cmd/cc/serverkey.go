package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"cc.dev/cc/service"
)

// serverRotateKey is cc server rotate-key, run by cc server (runServer)
// when its first argument is rotate-key.
var serverRotateKey = &command{
	name:    "server rotate-key",
	args:    "[--db DB] [--secret-key-file OLD] --new-secret-key-file NEW",
	summary: "replace the secret key of a cc server's database",
	help: `Server rotate-key replaces the secret key of the database --db (or $CC_DB):
the key, from --secret-key-file, that encrypts secret values and sensitive
values at rest. In one transaction it decrypts every one with the old key
(OLD, by default the database's name + .key) and encrypts it again with the
new key in NEW, which it generates (64 hex digits, mode 0600) when the file
does not exist. A failure changes nothing: the old key stays valid.

Plans stay quiet: the keys of the fingerprints that tell values apart, and
of idempotency records, are kept (wrapped under the new key), so versions
and retries are unchanged. After the rotation the database holds nothing
the old key opens: a SQLite file is vacuumed and its WAL emptied, so that
no old copy stays in free pages (a warning says so if that could not be
done; with PostgreSQL, the tables that held sealed values are rewritten
with VACUUM FULL).

Run it while the servers on the database are stopped, or restart them
right after: a server still running with the old key refuses every
mutation, and one started with the old key is refused. Restart every
server (every replica) with --secret-key-file NEW.

cc does not delete OLD: delete it yourself once every server runs with
NEW. Backups of the database made before the rotation still need it.

A project's embedded state (--db ROOT/.cc/state.db) has no server to
restart: cc plan and cc apply open it with ROOT/.cc/state.db.key alone, so
move NEW there (mv NEW ROOT/.cc/state.db.key) once you have kept a copy of
the old key that older backups need; until then they are refused.`,
}

func runServerRotateKey(e *env, args []string) int {
	c := serverRotateKey
	fs := e.flags(c)
	db := fs.String("db", "", "the database: a SQLite `FILE` or a postgres:// URL (default $CC_DB, else cc-state.db)")
	oldKey := fs.String("secret-key-file", "", "the current key, 64 hex digits in `OLD` (default: the database's name + .key)")
	newKey := fs.String("new-secret-key-file", "", "the new key, 64 hex digits in `NEW`, generated with mode 0600 when missing")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 {
		return e.usageError(c, "unexpected argument %q", fs.Arg(0))
	}
	if *newKey == "" {
		return e.usageError(c, "--new-secret-key-file is required")
	}
	if *db == "" {
		*db = e.getenv("CC_DB")
	}
	if *db == "" {
		*db = "cc-state.db"
	}
	if *oldKey == "" {
		if strings.Contains(*db, "://") {
			return e.usageError(c, "--secret-key-file is required with a database URL")
		}
		*oldKey = service.DefaultSecretKeyFile(*db)
	}
	res, err := service.RotateKey(e.ctx, *db, *oldKey, *newKey)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc server rotate-key: %v\n", err)
		return exitError
	}
	printRotation(e, res, *db, *oldKey, *newKey)
	return exitOK
}

// projectState reports whether db is a project's embedded state
// (ROOT/.cc/state.db), which cc opens with the key beside it alone.
func projectState(db string) bool {
	db = filepath.Clean(db)
	return !strings.Contains(db, "://") && db == service.ProjectStatePath(filepath.Dir(filepath.Dir(db)))
}

// printRotation says what the rotation did and what is left to do: to
// restart the servers on db with the new key, or, for a project's
// embedded state, which has no --secret-key-file, to move the new key to
// where cc reads it.
func printRotation(e *env, res service.RotateKeyResult, db, oldKey, newKey string) {
	if res.Generated {
		fmt.Fprintf(e.stdout, "Generated the new secret key file %s (mode 0600).\n", newKey)
	}
	fmt.Fprintf(e.stdout, "Rotated the secret key: %s, %s and %s encrypted again with the key in %s.\n",
		counted(res.SecretRevisions, "secret revision", "secret revisions"), counted(res.Outputs, "sensitive output", "sensitive outputs"),
		counted(res.Specs, "stored spec with sensitive values", "stored specs with sensitive values"), newKey)
	if res.Leftover != "" {
		fmt.Fprintf(e.stderr, "cc server rotate-key: warning: %s\n", res.Leftover)
	}
	if projectState(db) {
		// cc plan and cc apply open .cc/state.db with .cc/state.db.key.
		fmt.Fprintf(e.stdout, "This is a project's embedded state, which cc opens with the key in %s only: until you move the new key there, cc plan and cc apply on it are refused. Keep a copy of the old key if backups of %s made before now need it, then run:\n  mv %s %s\n",
			service.DefaultSecretKeyFile(db), db, newKey, service.DefaultSecretKeyFile(db))
		return
	}
	fmt.Fprintf(e.stdout, "Restart every cc server on this database with --secret-key-file %s: one still running with the old key refuses every mutation.\n", newKey)
	fmt.Fprintf(e.stdout, "The old key file %s was not deleted: delete it once every server runs with the new key (backups made before now still need it).\n", oldKey)
}

// counted is "N THING", in the plural unless N is 1.
func counted(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }
