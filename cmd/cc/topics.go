package main

import (
	"fmt"
	"io"
	"strings"

	"cc.dev/cc/compiler"
)

// topics are the help topics that are not commands: cc help NAME prints
// them.
var topics = map[string]func(io.Writer){
	"functions": functionsHelp,
}

// functionsHelp is cc help functions: the HCL functions, from the table a
// compile uses (issue 15).
func functionsHelp(w io.Writer) {
	fmt.Fprint(w, `HCL configurations call Terraform's functions (those of Terraform v1.11), with
Terraform's results and error messages. File functions read only files inside
the project root. A function whose result would depend on the clock,
randomness or the machine is refused, at the call, saying why: a compile gives
the same desired state from the same files on any machine.

Functions:

`)
	var refused []compiler.FunctionDoc
	for _, d := range compiler.Functions() {
		if d.Refused {
			refused = append(refused, d)
			continue
		}
		fmt.Fprintf(w, "\t%-17s %s\n", d.Name, d.Summary)
	}
	fmt.Fprint(w, "\nRefused:\n\n")
	for _, d := range refused {
		fmt.Fprintf(w, "\t%-17s %s\n", d.Name, d.Summary)
	}
}

// readmeFunctions is the README's list of the HCL functions, kept equal
// to the table by TestREADMEListsFunctions.
func readmeFunctions() string {
	var offered, refused []string
	for _, d := range compiler.Functions() {
		name := "`" + d.Name + "`"
		if d.Refused {
			refused = append(refused, name)
		} else {
			offered = append(offered, name)
		}
	}
	return "Functions: " + strings.Join(offered, ", ") + ".\n\nRefused (`cc help functions` says why): " + strings.Join(refused, ", ") + ".\n"
}
