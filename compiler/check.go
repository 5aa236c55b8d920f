package compiler

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// check enforces the rules that span fields, which the schema lists in
// comments: exactly one image base, step kind, secret source, scorer kind
// and task; network combinations; judge fields. It runs on the decoded
// configuration, so both languages get the same verdicts.
func check(cfg *schema.Config, loc locator) diag.Diagnostics {
	c := &checker{loc: loc}
	cfg.Each(func(k schema.Kind, name string, r any) {
		path := []string{k.Plural(), name}
		if w, ok := r.(schema.Workload); ok {
			c.image(w.ImageOf(), appendPath(path, "image"), false)
		}
		switch r := r.(type) {
		case *schema.Image:
			c.image(r, path, true)
		case *schema.Secret:
			c.secret(r, path)
		case *schema.Dataset:
			c.dataset(r, path)
		case *schema.Sandbox:
			c.network(r.Network, appendPath(path, "network"))
			c.sandboxFields(r, path)
		case *schema.Function:
			c.network(r.Network, appendPath(path, "network"))
			c.functionClass(r, path)
			c.portMappings(r.Extra["ports"], appendPath(path, "ports"))
		case *schema.Container:
			c.container(r, path)
		case *schema.ScalingGroup:
			c.scalingGroup(r, path)
		case *schema.Training:
			c.process(r.Command, r.Process, path)
		case *schema.Evaluation:
			c.evaluation(r, path)
		}
	})
	return c.diags
}

type checker struct {
	loc   locator
	diags diag.Diagnostics
}

// related is errorf for a clash: the diagnostic names the first place in
// its message and carries it as a related range.
func (c *checker) related(path, first []string, format string, args ...any) *diag.Diagnostic {
	d := clash(c.loc, path, first, format, args...)
	c.diags = append(c.diags, d)
	return d
}

// clash makes the diagnostic of two things that clash: at path, naming
// the first place (first) in its message, which it also carries as a
// related range.
func clash(loc locator, path, first []string, format string, args ...any) *diag.Diagnostic {
	where := strings.Join(first, ".")
	r := loc.at(first)
	if r != nil {
		where = r.String()
	}
	d := diag.Errorf(loc.at(path), format+" (first at %s)", append(args, where)...)
	if r != nil {
		d.Related = append(d.Related, *r)
	}
	return d
}

// network checks a workload's network at np: exposed ports need an
// ingress mode, egress is a mode or an allow-list, a port is exposed once.
func (c *checker) network(n *schema.Network, np []string) {
	if n == nil {
		return
	}
	if len(n.ExposedPorts) > 0 && n.IngressMode == "" {
		c.errorf(appendPath(np, "exposed_ports"), "network: exposed_ports needs an ingress_mode")
	}
	if n.EgressMode != "" && len(n.EgressAllow) > 0 {
		c.errorf(appendPath(np, "egress_allow"), "network: set egress_mode or egress_allow, not both")
	}
	c.exposedPorts(n.ExposedPorts, appendPath(np, "exposed_ports"))
}

// exposedPorts refuses a port exposed twice (issue 9 item 4).
func (c *checker) exposedPorts(ports []int, path []string) {
	seen := map[int]int{}
	for i, p := range ports {
		if j, dup := seen[p]; dup {
			c.related(appendPath(path, strconv.Itoa(i)), appendPath(path, strconv.Itoa(j)),
				"network: port %d is exposed twice", p)
			continue
		}
		seen[p] = i
	}
}

func (c *checker) errorf(path []string, format string, args ...any) *diag.Diagnostic {
	d := diag.Errorf(c.loc.at(path), format, args...)
	c.diags = append(c.diags, d)
	return d
}

func (c *checker) image(img *schema.Image, path []string, declared bool) {
	if img == nil || img.ID != "" && !declared {
		return // a reference: checked where it is declared
	}
	what := "image"
	if declared {
		what = fmt.Sprintf("image %q", path[1])
	}
	switch {
	case img.From == nil && img.FromDockerfile == "":
		c.errorf(path, "%s needs a base: set from (a registry reference or another image) or from_dockerfile", what)
	case img.From != nil && img.FromDockerfile != "":
		c.errorf(appendPath(path, "from_dockerfile"), "%s sets both from and from_dockerfile; keep one", what)
	}
	for i, st := range img.Steps {
		sp := appendPath(path, "steps", strconv.Itoa(i))
		switch ks := st.Kinds(); len(ks) {
		case 0:
			c.errorf(sp, "step %d is empty: give it one of %s", i+1, strings.Join(schema.StepKinds, ", "))
		case 1:
			if st.Dockerfile != nil {
				for j, cmd := range st.Dockerfile.Commands {
					if err := schema.CheckDockerfileCommand(cmd); err != nil {
						d := c.errorf(appendPath(sp, "dockerfile", "commands", strconv.Itoa(j)), "step %d: %v", i+1, err)
						instr, _ := schema.DockerfileInstruction(cmd)
						if !schema.DockerfileInstructionSupported(instr) {
							if s := diag.Suggest(instr, schema.SupportedDockerfileInstructions); s != "" {
								d.Summary += fmt.Sprintf("; did you mean %s?", s)
							} else {
								d.Detail = "supported: " + strings.Join(schema.SupportedDockerfileInstructions, ", ") +
									"; use a copy step for files, and from for the base"
							}
						}
					}
				}
			}
		default:
			c.errorf(sp, "step %d has %s: a step does one thing; split it into %d steps", i+1, strings.Join(ks, " and "), len(ks))
		}
	}
	if img.From != nil && img.From.Image != nil {
		c.image(img.From.Image, appendPath(path, "from"), false)
	}
}

func (c *checker) secret(s *schema.Secret, path []string) {
	switch srcs := s.Sources(); len(srcs) {
	case 0:
		c.errorf(path, "secret %q has no source: set one of %s", path[1], strings.Join(schema.SecretSources, ", "))
	case 1:
	default:
		c.errorf(path, "secret %q has %d sources (%s); keep one", path[1], len(srcs), strings.Join(srcs, ", "))
	}
	if s.FromIntegration != nil && len(s.FromIntegration.Keys) > 0 {
		c.dupes(appendPath(path, "from_integration", "keys"), s.FromIntegration.Keys)
	}
	if s.FromEnvFile != nil && len(s.FromEnvFile.Keys) > 0 {
		c.dupes(appendPath(path, "from_env_file", "keys"), s.FromEnvFile.Keys)
	}
}

func (c *checker) dupes(path []string, xs []string) {
	seen := map[string]bool{}
	for i, x := range xs {
		if seen[x] {
			c.errorf(appendPath(path, strconv.Itoa(i)), "%q is listed twice", x)
		}
		seen[x] = true
	}
}

func (c *checker) evaluation(e *schema.Evaluation, path []string) {
	switch {
	case e.Task == nil && e.ExternalTask == nil:
		c.errorf(path, "evaluation %q needs a task: a function of this project (task) or an external one (external_task)", path[1])
	case e.Task != nil && e.ExternalTask != nil:
		c.errorf(appendPath(path, "external_task"), "evaluation %q sets both task and external_task; keep one", path[1])
	}
	if x := e.ExternalTask; x != nil && (x.Name == "") == (x.VersionID == "") {
		c.errorf(appendPath(path, "external_task"), "external_task needs exactly one of name or version_id")
	}
	c.classCalls(e, path)
	judges := map[string]int{}
	for i, s := range e.Scorers {
		sp := appendPath(path, "scorers", strconv.Itoa(i))
		if j := s.LLMJudge; j != nil {
			c.judgeName(j, i, path, judges)
		}
		ks := s.Kinds()
		if len(ks) != 1 {
			if len(ks) == 0 {
				c.errorf(sp, "scorer %d is empty: give it one of %s", i+1, strings.Join(schema.ScorerKinds, ", "))
			} else {
				c.errorf(sp, "scorer %d has %s; a scorer is one of them", i+1, strings.Join(ks, " and "))
			}
			continue
		}
		if j := s.LLMJudge; j != nil {
			c.judge(j, appendPath(sp, "llm_judge"))
		}
		c.scorerExtras(s, sp)
		if n := s.NumericClose; n != nil && n.AbsTol == nil && n.RelTol == nil && !n.Graded {
			c.errorf(appendPath(sp, "numeric_close"), "numeric_close needs abs_tol, rel_tol or graded")
		}
	}
}

func (c *checker) judge(j *schema.LLMJudge, path []string) {
	names := map[string]bool{}
	var score *schema.JudgeField
	for i := range j.Fields {
		f := &j.Fields[i]
		fp := appendPath(path, "fields", strconv.Itoa(i))
		if names[f.Name] {
			c.errorf(appendPath(fp, "name"), "judge field %q is declared twice", f.Name)
		}
		names[f.Name] = true
		if f.Name == "score" {
			score = f
		}
		c.judgeType(f.Name, f.Type, f.Values, f.Items, f.Fields, fp)
		if len(f.Range) == 2 {
			if f.Type != "float" && f.Type != "int" {
				c.errorf(appendPath(fp, "range"), "judge field %q: a range needs a numeric type, not %s", f.Name, f.Type)
			} else if lo, hi := f.Range[0], f.Range[1]; numLess(hi, lo) {
				c.errorf(appendPath(fp, "range"), "judge field %q: range [%s, %s] is empty", f.Name, lo, hi)
			} else if f.Type == "int" {
				c.intRange(f, fp)
			}
		}
	}
	if score == nil {
		var have []string
		for n := range names {
			have = append(have, n)
		}
		sort.Strings(have)
		d := c.errorf(appendPath(path, "fields"), `llm_judge needs a field named "score" (the score; other fields are row metadata)`)
		if s := diag.Suggest("score", have); s != "" {
			d.Summary += fmt.Sprintf("; did you mean to name %q score?", s)
		}
	} else if score.Type != "float" && score.Type != "int" {
		c.errorf(appendPath(path, "fields"), `llm_judge field "score" must be float or int, not %s`, score.Type)
	}
	c.prompt(j, path)
}

// intRange refuses a fractional bound on an int judge field (issue 9
// item 4): the model's reply is validated against the range, and an int
// never equals 0.5.
func (c *checker) intRange(f *schema.JudgeField, fp []string) {
	for k, n := range f.Range {
		if !isInteger(n) {
			c.errorf(appendPath(fp, "range", strconv.Itoa(k)),
				"judge field %q is an int, but its range bound %s is fractional; make the bound whole or the field a float", f.Name, n)
		}
	}
}

// isInteger reports whether n is a whole number, however it is written
// (1, 1.0, 1e2).
func isInteger(n schema.Number) bool {
	if _, err := n.Int64(); err == nil {
		return true
	}
	x, err := n.Float64()
	return err == nil && x == math.Trunc(x)
}

func numLess(a, b schema.Number) bool {
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x < y
}
