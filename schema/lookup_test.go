package schema

import (
	"strings"
	"testing"
)

// TestIssue11Lookup: a schema path finds its field through definitions,
// inline structs and list elements, and says why one names none (issue
// 11: the SDK coverage table names cc's fields by such paths).
func TestIssue11Lookup(t *testing.T) {
	s := Default()
	for _, tc := range []struct{ path, field, err string }{
		{"#Sandbox.network.egress_mode", "egress_mode", ""},
		{"#Sandbox.resources.gpu.count", "count", ""},
		{"#Resources.gpu.count", "count", ""},
		{"#Image.steps.apt.packages", "packages", ""},
		{"#Step.apt.packages", "packages", ""},
		{"#Sandbox.credentials.hosts", "hosts", ""},
		{"#Config.sandboxes", "sandboxes", ""},
		{"#Evaluation.scorers.llm_judge.fields.name", "name", ""},
		{"#Sandbox.no_such", "", "no field no_such"},
		{"#Nope.image", "", "no definition #Nope"},
		{"Sandbox.image", "", "no definition Sandbox"},
		{"#Sandbox", "", "names no field"},
		{"#Sandbox.tags.x", "", "tags is not a struct"},
	} {
		f, err := s.Lookup(tc.path)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Lookup(%s) error = %v, want %q", tc.path, err, tc.err)
		case tc.err == "" && (err != nil || f.Name != tc.field):
			t.Errorf("Lookup(%s) = %v, %v, want field %s", tc.path, f, err, tc.field)
		}
	}
}
