package schema

import "encoding/json"

// Suite groups evaluations (#Suite).
type Suite struct {
	ID string `json:"$id,omitempty"`
	SuiteSettings
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// SuiteSettings are the fields a suite's config and spec share.
type SuiteSettings struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// SuiteSpec is a compiled suite.
type SuiteSpec struct {
	SuiteSettings
}

// MarshalJSON writes the suite with its Extra fields.
func (v Suite) MarshalJSON() ([]byte, error) {
	type plain Suite
	return marshalWithExtra(plain(v), v.Extra)
}

// SuiteRef is an evaluation's suite: a reference to a suite of the
// project, or (refused by the compiler, with a message saying to declare
// one) a bare string, the form before issue 11.
type SuiteRef struct {
	Name  string
	Suite *Suite
}

// MarshalJSON writes the reference or the string.
func (s SuiteRef) MarshalJSON() ([]byte, error) {
	if s.Suite != nil {
		return json.Marshal(s.Suite)
	}
	return json.Marshal(s.Name)
}

// UnmarshalJSON reads a string or a suite.
func (s *SuiteRef) UnmarshalJSON(b []byte) error {
	if isJSONString(b) {
		return json.Unmarshal(b, &s.Name)
	}
	s.Suite = new(Suite)
	return json.Unmarshal(b, s.Suite)
}
