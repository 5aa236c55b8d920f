// Package planner compares a project's desired state with the state its
// service holds and says what an apply would do, and why.
//
// Diff is pure: it does no I/O, reads no clock and uses no randomness, so
// the same inputs give the same Plan, byte for byte in every view. What it
// needs from outside (the state, how local secret and sensitive values
// compare with the service's, the old and new contents of changed files)
// is passed in: State, Options and the Content interface.
//
// A Plan holds one Change per resource that changes: its Action (create,
// update in place, replace, delete), for functions and datasets the version
// it makes current (new, or an existing one reused: a version is its spec
// and the values of the managed secrets it uses), its field-level
// changes, its changed files with line diffs, and its reasons down to their
// cause. Sensitive values (secret values, values from HCL sensitive
// variables) never enter a Plan. WriteText, WriteJSON and WriteMarkdown
// render it; File is a saved plan. FORMAT.md documents the JSON form, the
// plan file, the reason codes and which changes replace a resource
// (ReplaceFields).
package planner
