// Package schema holds the configuration schema (CUE, embedded), the Go
// types that mirror it, and the Go types of the Desired state the compiler
// produces. It is plain data: no I/O beyond the embedded files and the
// files it is asked to read.
//
// A program that embeds cc meets it through compiler.Compile's result:
// a *Desired is a project's desired state, Project (its name), Root (its
// directory, where its local files are read) and Resources sorted by
// address; each Resource has its Address ("sandbox.dev": Address makes
// one of a kind and a name, KindOf gives its kind back), its Kind (Kinds
// lists them in the order cc shows them), its canonical Spec (JSON), its
// content Hash and what it DependsOn. Desired.Lookup finds one by address.
//
// Default is the embedded schema the compiler checks configuration
// against; the rest (facts read from the schema's @cc attributes,
// canonical JSON, validation of specs) serves the compiler, the planner
// and the service, and rarely a program of its own.
package schema
