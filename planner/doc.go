// Package planner compares a project's desired state with the state its
// service holds and says what an apply would do, and why.
//
// Diff is pure: it does no I/O, reads no clock and uses no randomness, so
// the same inputs give the same Plan, byte for byte in every view. What it
// needs from outside (the state, how local secret and sensitive values
// compare with the service's, the old and new contents of changed files)
// is passed in: State, Options and the Content interface.
//
// # In the flow
//
// A program that embeds cc rarely calls Diff itself: applier's
// Applier.Plan reads the state from the service, compares the local
// values in the same call and calls Diff (see package compiler for the
// whole flow). What it gives back is this package's:
//
//   - Options shape a plan as cc plan's flags do: Targets (--target),
//     Excludes (--exclude), Replace (--replace), NewVersion
//     (--new-version), Destroy (--destroy), RefreshOnly (--refresh-only).
//   - A Plan holds one Change per resource that changes: its Action
//     (Create, Update in place, Replace, Delete), for functions and
//     datasets the version it makes current (new, or an existing one
//     reused: a version is its spec and the values of the managed secrets
//     it uses), its field-level changes, its changed files with line
//     diffs, and its reasons down to their cause. Plan.Changed says whether
//     there is anything to apply; DataLoss names the resources whose data
//     an apply would destroy. Sensitive values (secret values, values from
//     HCL sensitive variables) never enter a Plan.
//   - WriteText (a terminal, colour optional), WriteJSON (a versioned
//     document for programs) and WriteMarkdown (a pull-request comment,
//     at most 65,000 characters) render it.
//   - A File is a saved plan: NewFile makes it from a plan, its desired
//     state and the state it was made against; File.Save writes it and
//     LoadFile reads it back (it is untrusted input, validated when read);
//     File.Check refuses to apply it to any other state than the one it
//     was planned against.
//
// FORMAT.md documents the JSON form, the plan file, the reason codes and
// which changes replace a resource (ReplaceFields).
package planner
