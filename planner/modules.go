package planner

import (
	"fmt"
	"strings"

	"cc.dev/cc/schema"
)

// A --target or --exclude naming a module (module.api, or a nested
// module.api.module.db) means every resource of it, in the configuration
// or the state (issue 12: modules).

// expandModules replaces each module address of the options' targets and
// excludes with the addresses of the module's resources.
func (pl *planning) expandModules() error {
	all := pl.allAddresses()
	var err error
	pl.o.Targets, err = expandModuleAddrs("--target", pl.o.Targets, all)
	if err != nil {
		return err
	}
	pl.o.Excludes, err = expandModuleAddrs("--exclude", pl.o.Excludes, all)
	return err
}

// expandModuleAddrs expands the module addresses of addrs among all (sorted).
func expandModuleAddrs(flag string, addrs, all []string) ([]string, error) {
	var out []string
	for _, a := range addrs {
		if !isModulePath(a) {
			out = append(out, a)
			continue
		}
		n := len(out)
		for _, b := range all {
			if strings.HasPrefix(b, a+".") && (len(out) == n || out[len(out)-1] != b) {
				out = append(out, b)
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s %s: no resource of module %s in the configuration or the state", flag, a, strings.TrimPrefix(a, "module."))
		}
	}
	return out, nil
}

// isModulePath tells a module's address (module.api, module.api.module.db)
// from a resource's.
func isModulePath(a string) bool {
	if !strings.HasPrefix(a, "module.") || schema.ValidAddress(a) {
		return false
	}
	parts := strings.Split(a, ".")
	if len(parts)%2 != 0 {
		return false
	}
	for i := 0; i < len(parts); i += 2 {
		if parts[i] != "module" || !schema.ValidName(parts[i+1]) {
			return false
		}
	}
	return true
}
