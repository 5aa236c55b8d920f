// Command hclfloor is the floor cc's HCL compile is measured against
// (issue 13): what bare github.com/hashicorp/hcl/v2 does with the same
// files, and nothing of cc. It parses each .hcl file named on the command
// line (or every .hcl file of a directory) with hclparse and evaluates
// every attribute of every block, nested blocks included, into a cty
// value. References to resources (image.x, secret.y, ...) evaluate to
// cty.DynamicVal, as an unknown value does in HCL, so no cc code is needed
// to resolve them.
//
//	go run ./internal/bench/hclfloor /tmp/wl10k/main.hcl
//
// It prints the number of blocks and attributes evaluated, and exits 1 on
// any parse or evaluation error.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// counts is what the floor did, printed so no work can be skipped.
type counts struct{ blocks, attrs int }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hclfloor FILE.hcl|DIR ...")
		os.Exit(2)
	}
	files, err := hclFiles(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "hclfloor:", err)
		os.Exit(1)
	}
	p := hclparse.NewParser()
	var c counts
	for _, f := range files {
		file, diags := p.ParseHCLFile(f)
		if diags.HasErrors() {
			fmt.Fprintln(os.Stderr, diags.Error())
			os.Exit(1)
		}
		body := file.Body.(*hclsyntax.Body)
		if diags := evalBody(body, evalContext(body), &c); diags.HasErrors() {
			fmt.Fprintln(os.Stderr, diags.Error())
			os.Exit(1)
		}
	}
	fmt.Printf("%d blocks, %d attributes\n", c.blocks, c.attrs)
}

// hclFiles expands directories into their .hcl files.
func hclFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.hcl"))
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}

// evalContext gives every top-level block type (and var, local) a
// DynamicVal root, so a reference to any of them evaluates.
func evalContext(body *hclsyntax.Body) *hcl.EvalContext {
	vars := map[string]cty.Value{"var": cty.DynamicVal, "local": cty.DynamicVal}
	for _, b := range body.Blocks {
		vars[b.Type] = cty.DynamicVal
	}
	return &hcl.EvalContext{Variables: vars}
}

// evalBody evaluates every attribute of body and of its nested blocks.
func evalBody(body *hclsyntax.Body, ctx *hcl.EvalContext, c *counts) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range body.Attributes {
		_, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		c.attrs++
	}
	for _, b := range body.Blocks {
		c.blocks++
		diags = append(diags, evalBody(b.Body, ctx, c)...)
	}
	return diags
}
