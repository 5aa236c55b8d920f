package compiler

import (
	"encoding/json"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"cc.dev/cc/diag"
)

// schemaValue builds (once) the schema the HCL result is checked against.
func (l *hclLoader) schemaValue() cue.Value {
	if !l.sch.Exists() {
		l.cctx = cuecontext.New()
		v, err := buildSchema(l.cctx)
		if err != nil {
			panic(err) // the embedded schema builds; a test guards it
		}
		l.sch = v
	}
	return l.sch
}

// validate checks the evaluated configuration against the schema, applying
// its defaults, and returns it as JSON: by the fast check when it accepts
// the configuration, else by CUE, which says what is wrong.
func (l *hclLoader) validate(cfg map[string]any) (*loaded, diag.Diagnostics) {
	if out, err := compiledSchema().validate(cfg); err == nil {
		b, err := json.Marshal(out)
		if err == nil && !crossCheck {
			return &loaded{json: b, loc: l.ranges, sensitive: l.ranges.sensitive}, nil
		}
		ld, ds := l.validateCUE(cfg)
		if err == nil && ds == nil {
			err = sameJSON(b, ld.json)
		}
		if err != nil {
			return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: the fast check and CUE disagree: %v", err)}
		}
		return ld, ds
	}
	return l.validateCUE(cfg)
}

func (l *hclLoader) validateCUE(cfg map[string]any) (*loaded, diag.Diagnostics) {
	sch := l.schemaValue()
	tr := &cueTranslator{p: l.p, schema: sch, lang: "hcl", loc: l.ranges}
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
	return &loaded{json: b, loc: l.ranges, sensitive: l.ranges.sensitive}, nil
}
