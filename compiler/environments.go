package compiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/load"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// Environments (issue 12): one configuration, several environments. The
// compiler takes the environment's name (Input.Env) and, for CUE, tags
// (Input.Tags, cue's -t); for HCL it reads env/ENV.ccvars.hcl of the
// project root, exposes env.name and reads CC_VAR_name values
// (Input.EnvVars). The environment is no part of the desired state: it
// picks values, and the caller scopes the state it plans against
// (schema.Scope).

// EnvDir is the directory of the project root holding the HCL variable
// files of the environments, ENV.ccvars.hcl each.
const EnvDir = "env"

// EnvFileSuffix ends the name of an environment's variable file.
const EnvFileSuffix = ".ccvars.hcl"

// VarEnvPrefix starts the name of an environment variable that sets an
// HCL variable: CC_VAR_name (Terraform's TF_VAR_name).
const VarEnvPrefix = "CC_VAR_"

// checkEnvInput refuses an environment name that is no lowercase DNS
// label and, for an HCL project, tags.
func checkEnvInput(in Input, lang string) error {
	if in.Env != "" && !schema.ValidName(in.Env) {
		return fmt.Errorf("environment %q is not a lowercase DNS label (letters, digits and -, at most 63)", in.Env)
	}
	if len(in.Tags) > 0 && lang != "cue" {
		return errors.New("-t sets CUE @tag values; an HCL project sets values with -var, -var-file, env/ENV.ccvars.hcl or CC_VAR_name")
	}
	for _, t := range in.Tags {
		if v, ok := strings.CutPrefix(t, "env="); ok && in.Env != "" && v != in.Env {
			return fmt.Errorf("-t env=%s and --env %s disagree: --env sets the tag env", v, in.Env)
		}
	}
	return nil
}

// envVarFile is the variable file of environment env in the project at
// root: env/ENV.ccvars.hcl, or "" when env is "" or the project has no
// env directory (any name is then allowed). With an env directory that
// has no file for env, it is an error naming the closest it has: a typo
// must not plan an empty environment.
func envVarFile(root, env string) (string, error) {
	if env == "" {
		return "", nil
	}
	dir := filepath.Join(root, EnvDir)
	localfs.Touch(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", nil
	}
	file := filepath.Join(dir, env+EnvFileSuffix)
	localfs.Touch(file)
	if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() {
		return file, nil
	}
	have := envNamesIn(dir)
	msg := fmt.Sprintf("environment %q has no variable file %s/%s%s", env, EnvDir, env, EnvFileSuffix)
	if s := diag.Suggest(env, have); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	if len(have) > 0 {
		msg += " (the environments are " + strings.Join(have, ", ") + ")"
	} else {
		msg += fmt.Sprintf(" (%s/ has none)", EnvDir)
	}
	return "", errors.New(msg)
}

// envNamesIn lists the environments with a variable file in dir, sorted.
func envNamesIn(dir string) []string {
	localfs.Touch(dir)
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), EnvFileSuffix); ok && !e.IsDir() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// envObject is env in HCL: env.name is the environment's name, "" for
// the default environment.
func envObject(env string) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(env)})
}

// checkEnvTraversal validates a reference to env: env.name only.
func (l *hclLoader) checkEnvTraversal(tr hcl.Traversal) {
	name, r, ok := traversalAttr(tr)
	if !ok || name != "name" {
		if ok {
			tr = tr[:2]
		}
		l.errorf(hcl.RangeBetween(tr[0].SourceRange(), r), "env has one attribute, env.name (the environment's name, from --env)")
	}
}

// assignEnvVars sets variables from CC_VAR_name=value pairs (the lowest
// precedence: a variable file or -var overrides them), parsed as -var
// values are. A name no variable declares is ignored, as Terraform
// ignores TF_VAR_ names.
func (l *hclLoader) assignEnvVars(pairs []string) {
	for _, kv := range pairs {
		name, raw, ok := strings.Cut(strings.TrimPrefix(kv, VarEnvPrefix), "=")
		if !ok || l.vars[name] == nil {
			continue
		}
		l.assignRaw(name, raw, VarEnvPrefix+name)
	}
}

// EnvVarsOf picks the CC_VAR_name=value pairs of an environment (as
// os.Environ gives it), for Input.EnvVars.
func EnvVarsOf(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, VarEnvPrefix) {
			out = append(out, kv)
		}
	}
	return out
}

// useEnvironment records the environment, tags and CC_VAR_ values of in
// on the project, finding the HCL project's environment variable file.
func (p *project) useEnvironment(in Input) error {
	if err := checkEnvInput(in, p.lang); err != nil {
		return err
	}
	p.env, p.tags = in.Env, in.Tags
	if p.lang == "cue" {
		return nil
	}
	p.envVars = in.EnvVars
	file, err := envVarFile(p.root, in.Env)
	if err != nil {
		return err
	}
	if file != "" {
		p.envFile = p.display(file)
	}
	return nil
}

// loadTagged loads the CUE instance with the -t tags (cue/load
// Config.Tags, as cue export -t injects them; not TagVars, whose values
// such as now and rand would make the desired state differ from run to
// run), and the tag env=ENV of --env when the configuration declares a
// tag env (@tag(env)): cue/load refuses a tag no file declares, so the
// load is done again without it then. cfg makes a fresh load.Config.
func (p *project) loadTagged(args []string, cfg func() *load.Config) []*build.Instance {
	tags := p.tags
	withEnv := p.env != "" && !hasTag(tags, "env")
	if withEnv {
		tags = append(append([]string{}, tags...), "env="+p.env)
	}
	c := cfg()
	c.Tags = tags
	insts := load.Instances(args, c)
	if withEnv && insts[0].Err != nil && strings.Contains(insts[0].Err.Error(), `no tag for "env"`) {
		c = cfg()
		c.Tags = p.tags
		insts = load.Instances(args, c)
	}
	return insts
}

// hasTag reports whether tags set the tag key (key=value).
func hasTag(tags []string, key string) bool {
	for _, t := range tags {
		if strings.HasPrefix(t, key+"=") {
			return true
		}
	}
	return false
}
