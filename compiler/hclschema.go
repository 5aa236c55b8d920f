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

// schemaErrors is CUE's verdict on the resources of cfg the fast check did
// not accept, with the rest of cfg (the project, defaults, lifecycle
// declarations): what its verdict on the whole of cfg says is wrong, since
// CUE accepts whatever the fast check accepted. One typo in a project of
// 10,000 resources is judged on its one resource, not all of them (CUE
// took 7 s and 1.7 GB for the whole). With crossCheck the whole is judged
// too, and the two must agree.
func (l *hclLoader) schemaErrors(cfg map[string]any) diag.Diagnostics {
	_, ds := l.validateCUE(l.unaccepted(cfg))
	if crossCheck {
		_, all := l.validateCUE(cfg)
		if a, b := ds.Sort().Error(), all.Sort().Error(); a != b {
			return diag.Diagnostics{diag.Errorf(nil, "internal error: CUE's verdict on what the fast check refused differs from its verdict on the whole:\n%s\nand\n%s", a, b)}
		}
	}
	return ds
}

// unaccepted is cfg with, of its resources, only those the fast check did
// not accept (collector.accepted).
func (l *hclLoader) unaccepted(cfg map[string]any) map[string]any {
	sub := make(map[string]any, len(cfg))
	for k, v := range cfg {
		if d, ok := v.(map[string]any); ok && k == "data" {
			out := make(map[string]any, len(d))
			for dk, dv := range d {
				out[dk] = l.unacceptedOf("data."+dk, dv)
			}
			sub[k] = out
			continue
		}
		sub[k] = l.unacceptedOf(k, v)
	}
	return sub
}

// unacceptedOf is v, the collection coll of a configuration, without the
// resources the fast check accepted; any other v as it is.
func (l *hclLoader) unacceptedOf(coll string, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for name, r := range m {
		if !l.col.accepted(coll, name) {
			out[name] = r
		}
	}
	return out
}
