package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// cc output (issue 12: outputs): the output values the last apply stored
// with the project's state, read from its service.

func init() {
	register(&command{
		name:    "output",
		args:    "[flags] [NAME] [PATH]",
		summary: "print the output values stored by the last apply",
		help: `Output prints the output values (HCL output blocks, CUE outputs) that the
last successful apply stored with the project's state on its service: one
"name = value" line each, values as JSON. With NAME it prints that output's
value alone; a NAME the project has not is an error. One argument that is
not an output name (".", "./dir", "main.cc.hcl") is the PATH. PATH is
compiled only for the project's name: required HCL variables need no
values, unless the name uses one.

Sensitive outputs are redacted (<sensitive>) unless --show-sensitive is
given, in every form: this is stricter than terraform output -json, which
prints them. With --json it prints {"NAME": {"sensitive": BOOL, "type":
TYPE, "value": VALUE}, ...} as Terraform does (TYPE is string, number, bool,
list, object or null), a sensitive one without its value unless
--show-sensitive; with NAME, the value's JSON alone. With --raw and NAME,
a string prints without quotes and a number or bool as it is, for shell
scripts; other types need --json.`,
		run: runOutput,
	})
}

type outputFlags struct {
	lf            locateFlags
	json, raw     bool
	showSensitive bool
}

func runOutput(e *env, args []string) int {
	c := commands["output"]
	fs := e.flags(c)
	var f outputFlags
	f.lf.register(fs)
	fs.BoolVar(&f.json, "json", false, "print the outputs as one JSON document, Terraform's shape (sensitive values left out unless --show-sensitive)")
	fs.BoolVar(&f.raw, "raw", false, "with NAME, print a string, number or bool value as it is, without JSON quotes")
	fs.BoolVar(&f.showSensitive, "show-sensitive", false, "print the values of sensitive outputs")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	name, path, rc := outputArgs(e, c, fs)
	if rc >= 0 {
		return rc
	}
	if f.raw && (name == "" || f.json) {
		return e.usageError(c, "--raw prints one output: give its NAME, and not --json")
	}
	project, cn, rc := e.locate(c, &f.lf, path)
	if rc >= 0 {
		return rc
	}
	defer cn.close()
	st, err := cn.client.GetState(e.ctx, project)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	if name != "" {
		return e.printOutput(c, project, st.Outputs, name, &f)
	}
	if f.json {
		return e.writeJSONOutputs(c, st.Outputs, f.showSensitive)
	}
	if len(st.Outputs) == 0 {
		fmt.Fprintf(e.stderr, "Project %s has no outputs in %s: an apply of a configuration with output values stores them.\n", schema.ScopeTitle(project), cn.where)
		return exitOK
	}
	writeOutputLines(e.stdout, st.Outputs, f.showSensitive)
	return exitOK
}

// outputArgs reads [NAME] [PATH]: one argument that is not an output's
// name is the PATH.
func outputArgs(e *env, c *command, fs *flag.FlagSet) (name, path string, rc int) {
	switch fs.NArg() {
	case 0:
		return "", ".", -1
	case 1:
		if a := fs.Arg(0); !schema.ValidOutputName(a) {
			return "", a, -1
		} else if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			return "", "", e.usageError(c, "%q is both an output name and a directory: give NAME and PATH (cc output %s .), or PATH as ./%s", a, a, a)
		}
		return fs.Arg(0), ".", -1
	case 2:
		return fs.Arg(0), fs.Arg(1), -1
	}
	return "", "", e.usageError(c, "want [NAME] [PATH], got %d arguments", fs.NArg())
}

// printOutput prints one output's value.
func (e *env) printOutput(c *command, project string, outs []schema.Output, name string, f *outputFlags) int {
	var o *schema.Output
	var names []string
	for i := range outs {
		names = append(names, outs[i].Name)
		if outs[i].Name == name {
			o = &outs[i]
		}
	}
	if o == nil {
		msg := fmt.Sprintf("project %s has no output %q", schema.ScopeTitle(project), name)
		if s := diag.Suggest(name, names); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		fmt.Fprintf(e.stderr, "cc %s: %s\n", c.name, msg)
		return exitError
	}
	if o.Sensitive && !f.showSensitive {
		if f.raw || f.json {
			fmt.Fprintf(e.stderr, "cc %s: output %s is sensitive: pass --show-sensitive to print its value\n", c.name, name)
			return exitError
		}
		fmt.Fprintln(e.stdout, sensitiveShown)
		return exitOK
	}
	if !f.raw {
		fmt.Fprintln(e.stdout, string(o.Value))
		return exitOK
	}
	var v any
	if err := json.Unmarshal(o.Value, &v); err != nil {
		return e.fail(c, fmt.Errorf("output %s: %v", name, err))
	}
	switch x := v.(type) {
	case string:
		fmt.Fprintln(e.stdout, x)
	case float64, bool:
		fmt.Fprintln(e.stdout, string(o.Value))
	default:
		fmt.Fprintf(e.stderr, "cc %s: output %s is of type %s: --raw prints a string, number or bool; use --json\n", c.name, name, schema.OutputType(o.Value))
		return exitError
	}
	return exitOK
}

// sensitiveShown is what stands for a sensitive output's value.
const sensitiveShown = "<sensitive>"

// writeOutputLines prints "name = value" lines, sensitive values as
// <sensitive> unless show.
func writeOutputLines(w io.Writer, outs []schema.Output, show bool) {
	for _, o := range outs {
		v := string(o.Value)
		if o.Sensitive && !show {
			v = sensitiveShown
		}
		fmt.Fprintf(w, "%s = %s\n", o.Name, v)
	}
}

// writeJSONOutputs prints the outputs in Terraform's output -json shape.
func (e *env) writeJSONOutputs(c *command, outs []schema.Output, show bool) int {
	var b bytes.Buffer
	b.WriteString("{")
	for i, o := range outs {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(o.Name)
		fmt.Fprintf(&b, "\n  %s: {\"sensitive\": %t, \"type\": %q", name, o.Sensitive, schema.OutputType(o.Value))
		if !o.Sensitive || show {
			fmt.Fprintf(&b, ", \"value\": %s", o.Value)
		}
		b.WriteString("}")
	}
	if len(outs) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	if _, err := e.stdout.Write(b.Bytes()); err != nil {
		return e.fail(c, err)
	}
	return exitOK
}

// writeApplyOutputs prints the project's outputs after a successful apply,
// as Terraform does: "Outputs:" then "name = value" lines, sensitive ones
// as <sensitive>.
func (e *env) writeApplyOutputs(outs []schema.Output) {
	if len(outs) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "\nOutputs:\n\n")
	writeOutputLines(e.stdout, outs, false)
}
