// Package compiler turns a project's CUE or HCL configuration into its
// desired state: every resource with its canonical spec, content hash and
// dependencies. It is where a program that embeds cc starts.
//
// # The flow
//
// A program that embeds cc (a platform's own CLI, a CI bot) does what cc
// plan and cc apply do, with five packages and no need of cmd/cc:
//
//  1. compile the configuration: Compile gives a *schema.Desired;
//  2. open the service that keeps the project's state:
//     service.OpenProject (the embedded state cc itself uses, in the
//     project's .cc directory), service.OpenEmbedded (a database of your
//     choice) or service.Dial (a remote cc service);
//  3. plan against that state, read in one call: applier.New, then
//     Applier.Plan gives a *planner.Plan;
//  4. render it: planner.WriteText, WriteJSON or WriteMarkdown (for a
//     pull-request comment), or save it with planner.NewFile and File.Save;
//  5. apply it under the project's lock: Applier.Lock, Applier.Apply,
//     Lock.Release.
//
// The applier package's Example runs the whole flow; this package's
// Examples compile a project on disk and one written by the program.
//
// # Compiling
//
// Compile takes an Input: Path (a project directory, or one .cue or .hcl
// file), Vars and VarFiles (HCL variable values, as --var and --var-file
// give them), Env (the environment: its env/NAME.ccvars.hcl, env.name
// and CUE's @tag(env)), Tags (CUE's -t key=value), EnvVars (the
// CC_VAR_name variables, see EnvVarsOf), UnknownVariables (what cc
// validate sets: variables without a value are unknown), Offline, and
// limits for configuration you do not trust
// (MaxConfigSize, MaxMemory, and the deadline of the context). It returns
// a *Result: Desired, with the project's name (the compiler leaves the
// environment out of it, so that desired states compare across
// environments; to plan and apply in environment in.Env, set
// Desired.Project to schema.Scope(Desired.Project, in.Env) first, as cc
// does), its root directory and its
// resources sorted by address; Lang; Warnings; and Unlocked, the base
// images that cc.lock does not pin (see buildkit.Lock).
//
// Input.CacheDir (cc uses the project's .cc/cache) keeps a compile cache
// and a stat cache of local inputs there: an unchanged project is read
// back instead of compiled, with the same Result, and unchanged files are
// not read again (cache.go says what the key holds and what is never
// cached). It is used only with the embedded schema.
//
// A problem in the configuration is a *Error: positioned diagnostics
// (package diag) and the sources they point into, for diag.WriteText to
// show with snippets. A deadline or the memory limit ends compilation with
// a *DeadlineError or a *MemoryError; anything else (an unreadable
// directory) is a plain error.
//
// # How it compiles
//
// Both languages end in the same place. CUE is unified with the embedded
// schema; HCL is evaluated (variables, locals, functions, references) to
// plain data that is then checked against the very same schema. What comes
// out is decoded into the Go types of package schema, checked for the rules
// that span fields, and compiled: references resolved, local files hashed,
// specs canonicalized and hashed as a Merkle tree. The same configuration
// gives the same hashes, in either language, on any machine.
//
// This package is the only one that ever sees a cue.Value, hcl.Body or
// cty.Value.
//
// # The rest
//
// Format (cc fmt), Generate (the declarations cc plan
// --generate-config-out writes), Functions (the HCL functions, for cc's
// help) and BuiltinImageHashes serve cc's own commands; a program that
// only compiles, plans and applies does not need them.
package compiler
