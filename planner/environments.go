package planner

import (
	"fmt"

	"cc.dev/cc/schema"
)

// envOf is the environment of a state scope (schema.Scope), "" for the
// default one (issue 12: environments).
func envOf(scope string) string {
	_, env := schema.SplitScope(scope)
	return env
}

// projectOf is the project's name of a state scope.
func projectOf(scope string) string {
	project, _ := schema.SplitScope(scope)
	return project
}

// markdownEnv names the plan's environment after the project in the
// Markdown heading, or nothing for the default environment.
func markdownEnv(p *Plan) string {
	if p.Env == "" {
		return ""
	}
	return fmt.Sprintf(", environment `%s`", mdCode(p.Env))
}
