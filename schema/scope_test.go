package schema

import "testing"

// issue 12: environments. A scope is NAME or NAME/ENV, both DNS labels;
// SplitScope inverts Scope.
func TestScope(t *testing.T) {
	for _, tc := range []struct {
		project, env, scope, title string
	}{
		{"app", "", "app", "app"},
		{"app", "prod", "app/prod", "app, environment prod"},
	} {
		if got := Scope(tc.project, tc.env); got != tc.scope {
			t.Errorf("Scope(%q, %q) = %q, want %q", tc.project, tc.env, got, tc.scope)
		}
		if p, e := SplitScope(tc.scope); p != tc.project || e != tc.env {
			t.Errorf("SplitScope(%q) = %q, %q", tc.scope, p, e)
		}
		if !ValidScope(tc.scope) {
			t.Errorf("ValidScope(%q) = false", tc.scope)
		}
		if got := ScopeTitle(tc.scope); got != tc.title {
			t.Errorf("ScopeTitle(%q) = %q, want %q", tc.scope, got, tc.title)
		}
	}
	for _, bad := range []string{"", "app/", "/prod", "App/prod", "app/Prod", "app/prod/x", "-", "-/prod"} {
		if ValidScope(bad) {
			t.Errorf("ValidScope(%q) = true", bad)
		}
	}
}
