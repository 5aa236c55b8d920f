package service

import "cc.dev/cc/schema"

// Revisions of scaling groups (issue 11: scaling groups). A scaling group
// is versioned like a function, its revisions stored as versions with the
// same keys, but an apply reuses no earlier revision: only the current
// one, when the spec and managed secret values are unchanged. A change
// back to an earlier revision's content (after a rollback, or a revert of
// the configuration) appends a new revision, numbered on from the highest.

// reuseQuery is the query for the version an apply of the kind reuses,
// with parameters project, address and key: the newest with the key, or
// for a kind that reuses no earlier version, the current one if it has
// the key.
func reuseQuery(k schema.Kind) string {
	if !k.ReusesVersions() {
		return `SELECT v.version FROM versions v JOIN resources r ON r.project = v.project AND r.address = v.address AND r.version = v.version
			WHERE v.project = ? AND v.address = ? AND v.key = ?`
	}
	return "SELECT version FROM versions WHERE project = ? AND address = ? AND key = ? ORDER BY version DESC LIMIT 1"
}
