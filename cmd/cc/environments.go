package main

import (
	"flag"
	"fmt"
	"os"

	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// Environments (issue 12): --env NAME (or $CC_ENV) picks the environment
// of every command that compiles or touches state. The compiler picks the
// environment's values (compiler.Input.Env); the state planned, applied
// and shown is the project's in that environment, the scope
// schema.Scope(project, env) the service keeps apart.

// envUsage is the help of --env.
const envUsage = "use environment `NAME` (a lowercase DNS label; default $CC_ENV, else the default environment): its own state on the service; HCL reads env/NAME.ccvars.hcl and sees env.name, CUE gets @tag(env)"

// registerEnv defines --env, into p.
func registerEnv(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "env", "", envUsage)
}

// registerTags defines -t, CUE's tag values, into p.
func registerTags(fs *flag.FlagSet, p *stringList) {
	fs.Var(p, "t", "set a CUE tag, `key=value` for @tag(key) or a boolean tag name, as cue export -t does (repeatable)")
}

// environ is the process environment; CC_VAR_name values come from it.
var environ = os.Environ

// withEnvironment completes in with the environment: the --env flag's
// value (flag), else $CC_ENV, and the CC_VAR_name values.
func (e *env) withEnvironment(in compiler.Input, flag string) compiler.Input {
	in.Env = flag
	if in.Env == "" {
		in.Env = e.getenv("CC_ENV")
	}
	in.EnvVars = compiler.EnvVarsOf(environ())
	return in
}

// compileScoped compiles the project for the environment in.Env (as
// withEnvironment completed it) and scopes its desired state to it: the
// project's state in that environment is the one planned against.
func (e *env) compileScoped(c *command, path string, in compiler.Input, jsonDiags bool) (*compiler.Result, int) {
	res, rc := e.compile(c, path, in, jsonDiags)
	if rc >= 0 {
		return nil, rc
	}
	res.Desired.Project = schema.Scope(res.Desired.Project, in.Env)
	return res, -1
}

// envWords names an environment in a message.
func envWords(env string) string {
	if env == "" {
		return "the default environment"
	}
	return "environment " + env
}

// checkPlanEnv refuses a saved plan made for another environment than the
// one this apply names (--env, else $CC_ENV, else the default).
func (e *env) checkPlanEnv(c *command, name string, f *planner.File, flag string) int {
	want := e.withEnvironment(compiler.Input{}, flag).Env
	project, planned := schema.SplitScope(f.Plan.Project)
	if planned == want {
		return -1
	}
	how := "--env " + planned
	if planned == "" {
		how = "no --env (and no $CC_ENV)"
	}
	return e.fail(c, fmt.Errorf("%s was made for %s of project %s, but this apply is for %s: apply it with %s, or plan again for %s",
		name, envWords(planned), project, envWords(want), how, envWords(want)))
}

// projectScope is the scope of --project NAME in the environment of --env
// (flag) or $CC_ENV: NAME must be a project's name, or "-" (the unowned
// resources, which are in no environment).
func (e *env) projectScope(c *command, project, flag string) (string, int) {
	envName := e.withEnvironment(compiler.Input{}, flag).Env
	switch {
	case project == service.Unowned && envName == "":
		return project, -1
	case project == service.Unowned:
		return "", e.usageError(c, "--project - names the unowned resources, which are in no environment: leave out --env (and $CC_ENV)")
	case !schema.ValidName(project):
		return "", e.usageError(c, "--project %q is not a project name (a lowercase DNS label): name the environment with --env", project)
	case envName != "" && !schema.ValidName(envName):
		return "", e.usageError(c, "environment %q is not a lowercase DNS label (letters, digits and -, at most 63)", envName)
	}
	return schema.Scope(project, envName), -1
}
