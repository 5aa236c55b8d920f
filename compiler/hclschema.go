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

// validateCUE checks the configuration against the CUE schema, applying its
// defaults, and returns it as JSON.
func (l *hclLoader) validateCUE(cfg map[string]any) (*loaded, diag.Diagnostics) {
	sch := l.schemaValue()
	tr := &cueTranslator{p: l.p, lang: "hcl", loc: withDefaults(l.ranges, l.shared)}
	v := l.cctx.Encode(cfg)
	if err := v.Err(); err != nil {
		return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: encoding configuration: %v", err)}
	}
	u := sch.LookupPath(cue.MakePath(cue.Def("#Config"))).Unify(v)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return nil, tr.translate(err)
	}
	b, err := u.MarshalJSON()
	if err != nil {
		return nil, tr.translate(err)
	}
	return &loaded{json: b, loc: withDefaults(l.ranges, l.shared), sensitive: l.ranges.sensitive, defaults: l.shared}, nil
}
