package schema

import "strings"

// Scope is the state scope of a project in an environment (issue 12:
// environments): the project's name alone for the default environment
// (env ""), else "PROJECT/ENV". The service keeps each scope's state apart:
// its own resources, serials, lock, versions and lineage. A scope is what
// the project field of every service request, plan and plan file holds.
func Scope(project, env string) string {
	if env == "" {
		return project
	}
	return project + "/" + env
}

// SplitScope is the inverse of Scope: the project and the environment (""
// for the default one) of a scope.
func SplitScope(scope string) (project, env string) {
	project, env, _ = strings.Cut(scope, "/")
	return project, env
}

// ValidScope reports whether s is a scope: a project name, or a project
// name and an environment name (both lowercase DNS labels) joined by "/".
func ValidScope(s string) bool {
	project, env, found := strings.Cut(s, "/")
	return ValidName(project) && (!found || ValidName(env))
}

// ScopeTitle names a scope for people: "app" for the default environment,
// "app, environment prod" for another.
func ScopeTitle(scope string) string {
	project, env := SplitScope(scope)
	if env == "" {
		return project
	}
	return project + ", environment " + env
}
