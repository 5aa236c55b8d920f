package planner

import (
	"strings"
	"testing"
)

// TestExpandModuleAddrs checks that a module address in --target means
// every resource of the module, nested modules included, and that a
// module with none is an error (issue 12: modules).
func TestExpandModuleAddrs(t *testing.T) {
	all := []string{"module.api.module.db.volume.x", "module.api.sandbox.web", "module.apix.sandbox.web", "sandbox.web"}
	got, err := expandModuleAddrs("--target", []string{"module.api", "sandbox.web"}, all)
	if err != nil {
		t.Fatal(err)
	}
	if want := "module.api.module.db.volume.x module.api.sandbox.web sandbox.web"; strings.Join(got, " ") != want {
		t.Errorf("expandModuleAddrs() = %v, want %s", got, want)
	}
	got, _ = expandModuleAddrs("--target", []string{"module.api.module.db"}, all)
	if strings.Join(got, " ") != "module.api.module.db.volume.x" {
		t.Errorf("expandModuleAddrs(nested) = %v", got)
	}
	if _, err := expandModuleAddrs("--target", []string{"module.nope"}, all); err == nil || !strings.Contains(err.Error(), "no resource of module nope") {
		t.Errorf("expandModuleAddrs(module.nope) error = %v", err)
	}
	if isModulePath("module.api.sandbox.web") || !isModulePath("module.api") || isModulePath("module.API") {
		t.Error("isModulePath() is wrong")
	}
}
