package compiler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"cc.dev/cc/schema"
)

// issue 11: the sandbox's process (command, entrypoint, args), its ports,
// S3 mount and stop; a function's mounted files and credentials; function
// classes.

// sandboxFields checks the rules across the sandbox fields of issue 11.
func (c *checker) sandboxFields(s *schema.Sandbox, path []string) {
	c.process(s.Command, s.Process, path)
	c.portMappings(s.Extra["ports"], appendPath(path, "ports"))
	if stop, ok := s.Extra["stop"].(map[string]any); ok && stop["snapshot_on_stop"] == true && s.Snapshot == nil {
		c.errorf(appendPath(path, "stop", "snapshot_on_stop"), "stop: snapshot_on_stop needs a snapshot mount (snapshot)")
	}
}

// portMappings refuses a container port mapped twice over one protocol,
// and a host port published twice (ports is in Extra: plain data).
func (c *checker) portMappings(v any, path []string) {
	ports, _ := v.([]any)
	container, host := map[string]int{}, map[string]int{}
	for i, p := range ports {
		m, _ := p.(map[string]any)
		proto, _ := m["protocol"].(string)
		cp, hp := fmt.Sprint(m["container_port"]), fmt.Sprint(m["host_port"])
		if m["host_port"] == nil {
			hp = cp
		}
		at := appendPath(path, strconv.Itoa(i))
		if j, dup := container[cp+"/"+proto]; dup {
			c.related(appendPath(at, "container_port"), appendPath(path, strconv.Itoa(j), "container_port"), "ports: container port %s/%s is mapped twice", cp, proto)
		} else if j, dup := host[hp+"/"+proto]; dup {
			c.related(at, appendPath(path, strconv.Itoa(j)), "ports: host port %s/%s is published twice", hp, proto)
		}
		container[cp+"/"+proto], host[hp+"/"+proto] = i, i
	}
}

// isClassHandler reports whether a handler (module:name) names a class:
// its name is in CapWords, as PEP 8 has class names.
func isClassHandler(h string) bool {
	i := len(h) - 1
	for i >= 0 && h[i] != ':' {
		i--
	}
	return i+1 < len(h) && unicode.IsUpper(rune(h[i+1]))
}

// functionClass checks a function class: a class handler has methods,
// methods have a class handler, each method once.
func (c *checker) functionClass(f *schema.Function, path []string) {
	class := isClassHandler(f.Handler)
	switch {
	case class && len(f.Methods) == 0:
		d := c.errorf(appendPath(path, "handler"), "handler %s names a class: a function class lists the methods callers call (methods)", f.Handler)
		d.Detail = `add methods = ["..."], or name a function (module:function, in lower case)`
	case !class && len(f.Methods) > 0:
		d := c.errorf(appendPath(path, "methods"), "methods are a function class's: handler %s names a function", f.Handler)
		d.Detail = "a class's handler is module:Class (its name in CapWords)"
	}
	for i, m := range f.Methods {
		if j := slices.Index(f.Methods, m); j < i {
			c.related(appendPath(path, "methods", strconv.Itoa(i)), appendPath(path, "methods", strconv.Itoa(j)), "method %q is listed twice", m)
		}
	}
}

// classCalls refuses a function class as an evaluation's task or scorer:
// an evaluation calls one function, and a class is several methods.
func (c *checker) classCalls(e *schema.Evaluation, path []string) {
	refuse := func(f *schema.Function, at []string, what string) {
		if f != nil && len(f.Methods) > 0 {
			d := c.errorf(at, "%s is a function class (methods %s): an evaluation calls a function, not a class", what, strings.Join(f.Methods, ", "))
			d.Detail = "declare a function whose handler is the module-level function to call"
		}
	}
	refuse(e.Task, appendPath(path, "task"), "the task")
	for i, s := range e.Scorers {
		refuse(s.Function, appendPath(path, "scorers", strconv.Itoa(i), "function"), "scorer "+strconv.Itoa(i+1))
	}
}

// process refuses command beside entrypoint or args in the workload at
// path (a sandbox, a container, a scaling group, a training): command is
// the whole process.
func (c *checker) process(command []string, p schema.Process, path []string) {
	if command == nil {
		return
	}
	if p.Entrypoint != nil {
		d := c.errorf(appendPath(path, "entrypoint"), "set command or entrypoint, not both: command is the whole process, the same as an entrypoint without args")
		d.Detail = "to run the process under the image's ENTRYPOINT write args alone; to replace both, entrypoint and args"
	}
	if p.Args != nil {
		d := c.errorf(appendPath(path, "args"), "set command or args, not both: command is the whole process, and args replace only the image's CMD")
		d.Detail = "write entrypoint and args instead of command, or command alone"
	}
}

// foldProcess is the spec's command and args of a workload's command and
// process: an entrypoint replaces the image's ENTRYPOINT and, args or
// not, its CMD, so the process is entrypoint then args, one command (the
// same spec as command); args alone stay args, run under the image's
// ENTRYPOINT; command alone stays as it is.
func foldProcess(command []string, p schema.Process) ([]string, *[]string) {
	switch {
	case p.Entrypoint != nil:
		cmd := slices.Clone(p.Entrypoint)
		if p.Args != nil {
			cmd = append(cmd, *p.Args...)
		}
		return cmd, nil
	case p.Args != nil:
		args := slices.Clone(*p.Args)
		if args == nil {
			args = []string{}
		}
		return command, &args
	}
	return command, nil
}

// credentials resolves the host-scoped credentials of a workload at
// path.
func (b *builder) credentials(cs []schema.Credential, path []string, deps *[]string) []schema.CredentialSpec {
	var out []schema.CredentialSpec
	for i, c := range cs {
		p := appendPath(path, strconv.Itoa(i), "secret")
		if ref, ok := b.secretRef(c.Secret, p); ok {
			out = append(out, schema.CredentialSpec{Hosts: c.Hosts, Secret: ref})
			*deps = append(*deps, ref.Ref)
		}
	}
	return out
}

// mountedFiles hashes the mounted files of a sandbox or function at path:
// their digests are in the spec and the inputs.
func (b *builder) mountedFiles(ms []schema.MountedFile, path []string, inputs *[]schema.Input) []schema.MountedFileSpec {
	var out []schema.MountedFileSpec
	for i, m := range ms {
		p := appendPath(path, strconv.Itoa(i), "src")
		src := cleanRel(m.Src)
		fs := b.inputFile(src, p, "mounted file")
		mode := m.Mode
		if mode != "" {
			mode = normMode(mode)
		}
		out = append(out, schema.MountedFileSpec{Src: src, Path: m.Path, Mode: mode, Digest: fs.digest})
		if fs.digest != "" {
			*inputs = append(*inputs, schema.Input{Path: src, Digest: fs.digest})
		}
	}
	return out
}

// s3Mount compiles a sandbox's S3 mount: its credentials by reference,
// a dependency.
func (b *builder) s3Mount(m *schema.S3Mount, path []string, deps *[]string) *schema.S3MountSpec {
	if m == nil {
		return nil
	}
	out := &schema.S3MountSpec{Bucket: m.Bucket, Prefix: m.Prefix, MountPath: m.MountPath, ReadOnly: m.ReadOnly}
	if m.Credentials != nil {
		if ref, ok := b.secretRef(m.Credentials, appendPath(path, "credentials")); ok {
			out.Credentials = &ref
			*deps = append(*deps, ref.Ref)
		}
	}
	return out
}
