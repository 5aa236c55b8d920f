package compiler

import "cc.dev/cc/schema"

// suite compiles a suite (issue 11): its title and description, which
// evaluations refer to.
func (b *builder) suite(name string) {
	s := b.cfg.Suites[name]
	b.suites[name] = b.emit(schema.KindSuite, name, withExtra(schema.SuiteSpec{SuiteSettings: s.SuiteSettings}, s.Extra), nil, nil)
}

// suiteRef resolves an evaluation's suite at path to the suite's address,
// which the evaluation depends on; a string (the form before issue 11) is
// refused, saying to declare the suite.
func (b *builder) suiteRef(s *schema.SuiteRef, path []string) *schema.Ref {
	if s == nil {
		return nil
	}
	if s.Suite == nil {
		d := b.errorf(path, "suite %q is a string; an evaluation's suite is a suite of the project", s.Name)
		n := s.Name
		if !schema.ValidName(n) {
			n = "release"
		}
		d.Detail = `declare it (CUE: suites: ` + n + `: title: "` + s.Name + `", then suite: suites.` + n +
			`; HCL: suite "` + n + `" { title = "` + s.Name + `" }, then suite = suite.` + n + `)`
		return nil
	}
	name := b.resolve(schema.KindSuite, s.Suite.ID, s.Suite, path, func(n string) bool { return b.cfg.Suites[n] != nil })
	if name == "" {
		return nil
	}
	r := b.suites[name]
	if r == nil {
		return nil
	}
	return &schema.Ref{Ref: r.Address, Hash: r.Hash}
}
