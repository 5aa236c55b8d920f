package schema

// DefaultJudgeName is the name of an LLM judge that declares none (seed A
// names a judge after its reply model in kebab case; a declared judge has
// no model class, so it is "judge", and a second unnamed judge of one
// evaluation is a duplicate name).
const DefaultJudgeName = "judge"
