package compiler

import (
	"strconv"

	"cc.dev/cc/schema"
)

func (b *builder) evaluation(name string) {
	e := b.cfg.Evaluations[name]
	path := []string{"evaluations", name}
	var deps []string
	spec := schema.EvaluationSpec{EvaluationSettings: e.EvaluationSettings}
	if ref, isData := b.dataRef(schema.KindDataset, e.Dataset.ID, appendPath(path, "dataset")); isData {
		// A dataset the service has (issue 10): its columns are not known
		// here, so the scorers' inputs are not checked against them.
		if ref.Ref != "" {
			spec.Dataset = ref
			deps = append(deps, ref.Ref)
		}
	} else if dname := b.resolve(schema.KindDataset, e.Dataset.ID, e.Dataset, appendPath(path, "dataset"), func(n string) bool { return b.cfg.Datasets[n] != nil }); dname != "" {
		r := b.dataset(dname)
		spec.Dataset = schema.Ref{Ref: r.Address, Hash: r.Hash}
		deps = append(deps, r.Address)
		b.checkInputs(e.Scorers, dname, path)
	}
	if e.Task != nil {
		if ref, ok := b.functionRef(e.Task, appendPath(path, "task")); ok {
			spec.Task = &ref
			deps = append(deps, ref.Ref)
		}
	}
	if ref := b.suiteRef(e.Suite, appendPath(path, "suite")); ref != nil {
		spec.Suite = ref
		deps = append(deps, ref.Ref)
	}
	for i, s := range e.Scorers {
		spec.Scorers = append(spec.Scorers, b.scorer(s, appendPath(path, "scorers", strconv.Itoa(i)), &deps))
	}
	b.emit(schema.KindEvaluation, name, withExtra(spec, e.Extra), deps, nil)
}

// scorer compiles one scorer; deps collects the resources it refers to.
func (b *builder) scorer(s schema.Scorer, path []string, deps *[]string) schema.ScorerSpec {
	out := schema.ScorerSpec{BuiltinScorers: s.BuiltinScorers, ScorerSettings: s.ScorerSettings}
	if s.Function != nil {
		if ref, ok := b.functionRef(s.Function, appendPath(path, "function")); ok {
			out.Function = &ref
			*deps = append(*deps, ref.Ref)
		}
	}
	if j := s.LLMJudge; j != nil {
		js := &schema.LLMJudgeSpec{JudgeSettings: j.JudgeSettings}
		if js.Name == "" {
			js.Name = schema.DefaultJudgeName
		}
		if j.APIKey != nil {
			if ref, ok := b.secretRef(j.APIKey, appendPath(path, "llm_judge", "api_key")); ok {
				js.APIKey = &ref
				*deps = append(*deps, ref.Ref)
			}
		}
		out.LLMJudge = js
	}
	return out
}
