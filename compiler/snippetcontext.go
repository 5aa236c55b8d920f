package compiler

import (
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"cc.dev/cc/diag"
)

// BlockContexts returns a diag.SnippetContext that names the top-level
// block of an HCL file around a byte offset, as Terraform's diagnostic
// snippets do (`sandbox "dev"`). It parses each file once. It gives ""
// for a CUE file, for an offset outside any block, and for a file that
// does not parse as far as its blocks.
func BlockContexts() diag.SnippetContext {
	type navigator interface{ ContextString(int) string }
	navs := map[string]navigator{}
	return func(name string, src []byte, offset int) string {
		if filepath.Ext(name) != ".hcl" {
			return ""
		}
		nav, ok := navs[name]
		if !ok {
			if f, _ := hclsyntax.ParseConfig(src, name, hcl.InitialPos); f != nil {
				nav, _ = f.Nav.(navigator)
			}
			navs[name] = nav
		}
		if nav == nil {
			return ""
		}
		return nav.ContextString(offset)
	}
}
