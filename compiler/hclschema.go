package compiler

import (
	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"cc.dev/cc/diag"
)

// CUE's own check of an HCL configuration, against the embedded schema:
// when the fast check refuses it (CUE then says what is wrong, and where),
// and beside the fast check when crossCheck is on.

// schemaValue builds (once) the schema the HCL result is checked against.
func (l *hclLoader) schemaValue() cue.Value {
	if !l.sch.Exists() {
		l.cctx = cuecontext.New()
		v, err := buildSchema(l.cctx, l.p.schema())
		if err != nil {
			panic(err) // the embedded schema builds; a test guards it
		}
		l.sch = v
	}
	return l.sch
}

// validateCUEHook, when set (by tests), is given each configuration CUE
// checks.
var validateCUEHook func(cfg map[string]any)

// validateCUE checks the configuration against the CUE schema, applying its
// defaults, and returns it as JSON.
func (l *hclLoader) validateCUE(cfg map[string]any) (*loaded, diag.Diagnostics) {
	if validateCUEHook != nil {
		validateCUEHook(cfg)
	}
	sch := l.schemaValue()
	tr := &cueTranslator{p: l.p, lang: "hcl", loc: withDefaults(l.ranges, l.shared)}
	// CUE's words quote a value at the position it is written: where that
	// is a sensitive value's, scrub hides it however short (and drops a
	// suggestion made from it).
	translate := func(err error) diag.Diagnostics {
		l.p.noteSensitiveRanges(tr.loc, l.ranges.sensitive)
		return tr.translate(err)
	}
	v := l.cctx.Encode(cfg)
	if err := v.Err(); err != nil {
		return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: encoding configuration: %v", err)}
	}
	u := sch.LookupPath(cue.MakePath(cue.Def("#Config"))).Unify(v)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return nil, translate(err)
	}
	b, err := u.MarshalJSON()
	if err != nil {
		return nil, translate(err)
	}
	return &loaded{json: b, loc: withDefaults(l.ranges, l.shared), sensitive: l.ranges.sensitive, defaults: l.shared}, nil
}

// schemaErrors is CUE's verdict on part, the configuration with only the
// resources the fast check did not accept (config with refused), with the
// rest (the project, lifecycle declarations): what its verdict on the
// whole says is wrong, since CUE accepts whatever the fast check
// accepted. One typo in a project of 10,000 resources is judged on its one
// resource, not all of them (CUE took 7 s and 1.7 GB for the whole). With
// crossCheck the whole is judged too, and the two must agree.
func (l *hclLoader) schemaErrors(project any, part map[string]any) diag.Diagnostics {
	_, ds := l.validateCUE(part)
	if crossCheck {
		n := len(l.diags)
		_, all := l.validateCUE(l.config(project, nil))
		l.diags = l.diags[:n] // the defaults' problems, said once
		if a, b := ds.Sort().Error(), all.Sort().Error(); a != b {
			return diag.Diagnostics{diag.Errorf(nil, "internal error: CUE's verdict on what the fast check refused differs from its verdict on the whole:\n%s\nand\n%s", a, b)}
		}
	}
	return ds
}

// refused reports whether the fast check did not accept the resource name
// of collection coll (collector.accepted): config keeps those for CUE.
func (l *hclLoader) refused(coll, name string) bool { return !l.col.accepted(coll, name) }
