package compiler

import (
	"path/filepath"

	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/format"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"cc.dev/cc/diag"
)

// Format returns src, a .cue or .hcl file named name, in its language's
// canonical format. A syntax error is returned as an *Error.
func Format(name string, src []byte) ([]byte, *Error) {
	lang := "cue"
	if filepath.Ext(name) == ".hcl" {
		lang = "hcl"
	}
	return FormatAs(lang, name, src)
}

// FormatAs is Format for src in lang, "hcl" or "cue", whatever name's
// extension (cc fmt - formats stdin, named <stdin>).
func FormatAs(lang, name string, src []byte) ([]byte, *Error) {
	files := map[string][]byte{name: src}
	if lang == "hcl" {
		if _, hd := hclsyntax.ParseConfig(src, name, hcl.InitialPos); hd.HasErrors() {
			var ds diag.Diagnostics
			for _, d := range hd {
				ds = append(ds, fromHCL(d))
			}
			return nil, &Error{Diagnostics: ds, Files: files}
		}
		return hclwrite.Format(src), nil
	}
	out, err := format.Source(src, format.Simplify())
	if err != nil {
		p := &project{sources: files}
		var ds diag.Diagnostics
		for _, e := range errors.Errors(err) {
			d := diag.Errorf(nil, "%s", e.Error())
			if rs := p.cuePositions(e); len(rs) > 0 {
				d.Subject = rs[0]
			}
			ds = append(ds, d)
		}
		return nil, &Error{Diagnostics: ds, Files: files}
	}
	return out, nil
}
