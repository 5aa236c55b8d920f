package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"cc.dev/cc/diag"
)

// ConfigOutput is an output as a configuration writes it (#Output).
type ConfigOutput struct {
	Value       json.RawMessage `json:"value"`
	Description string          `json:"description,omitempty"`
	Sensitive   bool            `json:"sensitive,omitempty"`
}

// Output is one compiled output value of a project (issue 12: outputs).
type Output struct {
	Name string `json:"name"`
	// Value is the value's canonical JSON.
	Value       json.RawMessage `json:"value"`
	Description string          `json:"description,omitempty"`
	// Sensitive: the value is never shown unless asked for
	// (cc output --show-sensitive), and is encrypted at rest.
	Sensitive bool `json:"sensitive,omitempty"`
	// Range is where the output is declared.
	Range *diag.Range `json:"-"`
}

// Output limits, checked by the service on every request.
const (
	// MaxOutputs is how many outputs a project may have.
	MaxOutputs = 1000
	// MaxOutputValue is the largest value's JSON, in bytes.
	MaxOutputValue = 64 << 10
	// MaxOutputDescription is the longest description, in bytes.
	MaxOutputDescription = 4096
)

var outputName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// ValidOutputName reports whether name is an output's name: an
// identifier of at most 64 characters.
func ValidOutputName(name string) bool { return outputName.MatchString(name) }

// CheckOutputs validates a list of outputs from someone else (a request,
// a plan file): names, sizes, JSON, no duplicates.
func CheckOutputs(outs []Output) error {
	if len(outs) > MaxOutputs {
		return fmt.Errorf("%d outputs: at most %d", len(outs), MaxOutputs)
	}
	seen := map[string]bool{}
	for _, o := range outs {
		if !ValidOutputName(o.Name) {
			return fmt.Errorf("output name %q: want an identifier of at most 64 characters", o.Name)
		}
		if seen[o.Name] {
			return fmt.Errorf("output %s is given twice", o.Name)
		}
		seen[o.Name] = true
		if len(o.Value) > MaxOutputValue {
			return fmt.Errorf("output %s: value of %d bytes: at most %d", o.Name, len(o.Value), MaxOutputValue)
		}
		if !json.Valid(o.Value) {
			return fmt.Errorf("output %s: value is not JSON", o.Name)
		}
		if len(o.Description) > MaxOutputDescription {
			return fmt.Errorf("output %s: description of %d bytes: at most %d", o.Name, len(o.Description), MaxOutputDescription)
		}
	}
	return nil
}

// SortOutputs sorts outputs by name.
func SortOutputs(outs []Output) {
	sort.Slice(outs, func(i, j int) bool { return outs[i].Name < outs[j].Name })
}

// OutputType is the Terraform-style type name of an output's JSON value:
// "string", "number", "bool", "list", "object" or "null".
func OutputType(v json.RawMessage) string {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return "dynamic"
	}
	switch x.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return "null"
}

// RedactedOutputs returns outs as they may be shown: every sensitive
// value replaced by the JSON string Redacted. outs is not changed.
func RedactedOutputs(outs []Output) []Output {
	if outs == nil {
		return nil
	}
	out := append([]Output(nil), outs...)
	for i := range out {
		if out[i].Sensitive {
			out[i].Value = json.RawMessage(`"` + Redacted + `"`)
		}
	}
	return out
}
