package compiler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFieldsAt(t *testing.T) {
	for _, tc := range []struct {
		path []string
		want []string
	}{
		{[]string{"sandboxes", "x", "resources"}, []string{"gpu", "limits", "requests"}},
		{[]string{"images", "x", "steps", "0"}, []string{"apt", "copy", "dockerfile", "env", "pip", "pip_requirements", "run", "workdir"}},
		{[]string{"evaluations", "x", "scorers", "3", "llm_judge", "fields", "0"}, []string{"description", "fields", "items", "name", "range", "type", "values"}}, // issue 11: enum, list and object fields
		{[]string{"images", "x", "from"}, []string{"cmd", "entrypoint", "from", "from_dockerfile", "platform", "steps", "user"}},
		{[]string{"secrets", "x", "from_store"}, []string{"field", "name", "store"}},
	} {
		if got := compiledSchema().fieldsAt(tc.path); !cmp.Equal(got, tc.want) {
			t.Errorf("fieldsAt(%v) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
