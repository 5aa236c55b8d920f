package buildkit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"

	"cc.dev/cc/schema"
)

// InstructionError is a dockerfile step command that cannot be converted;
// Command is its index in the step's commands.
type InstructionError struct {
	Command int
	Err     error
}

func (e *InstructionError) Error() string { return e.Err.Error() }
func (e *InstructionError) Unwrap() error { return e.Err }

// ParseInstruction parses one dockerfile step command with BuildKit's
// Dockerfile parser and refuses what a dockerfile step cannot hold: an
// instruction not in schema.SupportedDockerfileInstructions, RUN flags and
// heredocs.
func ParseInstruction(cmd string) (instructions.Command, error) {
	instr, _ := schema.DockerfileInstruction(cmd)
	if instr == "" {
		return nil, errors.New("empty Dockerfile instruction")
	}
	if !schema.DockerfileInstructionSupported(instr) {
		return nil, fmt.Errorf("Dockerfile instruction %s is not supported in a dockerfile step (supported: %s)",
			instr, strings.Join(schema.SupportedDockerfileInstructions, ", "))
	}
	res, err := parser.Parse(strings.NewReader(cmd))
	if err != nil {
		return nil, err
	}
	if len(res.AST.Children) != 1 {
		return nil, fmt.Errorf("a dockerfile step command holds one instruction, this holds %d", len(res.AST.Children))
	}
	c, err := instructions.ParseCommand(res.AST.Children[0])
	if err != nil {
		return nil, err
	}
	switch c := c.(type) {
	case *instructions.RunCommand:
		if len(c.FlagsUsed) > 0 {
			return nil, fmt.Errorf("RUN flags (--%s) are not supported in a dockerfile step", c.FlagsUsed[0])
		}
		if len(c.Files) > 0 {
			return nil, errors.New("heredocs are not supported in a dockerfile step")
		}
	case *instructions.EntrypointCommand:
		if len(c.Files) > 0 {
			return nil, errors.New("heredocs are not supported in a dockerfile step")
		}
	case *instructions.CmdCommand:
		if len(c.Files) > 0 {
			return nil, errors.New("heredocs are not supported in a dockerfile step")
		}
	}
	return c, nil
}

// dockerfile applies a dockerfile step: each command converted to LLB and
// config as BuildKit's Dockerfile frontend would.
func (b *stepBuilder) dockerfile(ctx context.Context, commands []string) error {
	lex := shell.NewLex('\\')
	for j, text := range commands {
		c, err := ParseInstruction(text)
		if err != nil {
			return &InstructionError{Command: j, Err: err}
		}
		env := envGetter{b.cfg.Config.Env}
		expand := func(word string) (string, error) {
			res, err := lex.ProcessWordWithMatches(word, env)
			return res.Result, err
		}
		if ex, ok := c.(instructions.SupportsSingleWordExpansion); ok {
			if err := ex.Expand(expand); err != nil {
				return &InstructionError{Command: j, Err: err}
			}
		}
		if err := b.instruction(c, oneLine(text)); err != nil {
			return &InstructionError{Command: j, Err: err}
		}
	}
	return nil
}

func (b *stepBuilder) instruction(c instructions.Command, text string) error {
	cfg := &b.cfg.Config
	switch c := c.(type) {
	case *instructions.RunCommand:
		args := c.CmdLine
		if c.PrependShell {
			args = withShell(args)
		}
		b.st = b.st.Run(llb.Args(args), b.name(text), b.desc()).Root()
		b.history(text, false)
		return nil
	case *instructions.EnvCommand:
		for _, kv := range c.Env {
			b.st = b.st.AddEnv(kv.Key, kv.Value)
			cfg.Env = setEnv(cfg.Env, kv.Key, kv.Value)
		}
	case *instructions.WorkdirCommand:
		p := c.Path
		if !strings.HasPrefix(p, "/") {
			p = strings.TrimSuffix(cfg.WorkingDir, "/") + "/" + p
		}
		b.workdir(p)
		return nil
	case *instructions.UserCommand:
		b.st = b.st.User(c.User)
		cfg.User = c.User
	default:
		if err := configInstruction(cfg, c); err != nil {
			return err
		}
	}
	b.history(text, true)
	return nil
}

// configInstruction applies an instruction that changes only the image
// config, not the state.
func configInstruction(cfg *dockerspec.DockerOCIImageConfig, c instructions.Command) error {
	switch c := c.(type) {
	case *instructions.ExposeCommand:
		return expose(cfg, c.Ports)
	case *instructions.LabelCommand:
		if cfg.Labels == nil {
			cfg.Labels = map[string]string{}
		}
		for _, kv := range c.Labels {
			cfg.Labels[kv.Key] = kv.Value
		}
	case *instructions.EntrypointCommand:
		args := c.CmdLine
		if c.PrependShell {
			args = withShell(args)
		}
		cfg.Entrypoint = args
		cfg.Cmd = nil
	case *instructions.CmdCommand:
		args := c.CmdLine
		if c.PrependShell {
			args = withShell(args)
		}
		cfg.Cmd = args
	case *instructions.StopSignalCommand:
		cfg.StopSignal = c.Signal
	case *instructions.VolumeCommand:
		if cfg.Volumes == nil {
			cfg.Volumes = map[string]struct{}{}
		}
		for _, v := range c.Volumes {
			if v == "" {
				return errors.New("VOLUME: empty path")
			}
			cfg.Volumes[v] = struct{}{}
		}
	case *instructions.HealthCheckCommand:
		h := *c.Health
		cfg.Healthcheck = &dockerspec.HealthcheckConfig{
			Test: h.Test, Interval: h.Interval, Timeout: h.Timeout,
			StartPeriod: h.StartPeriod, StartInterval: h.StartInterval, Retries: h.Retries,
		}
	default:
		return fmt.Errorf("Dockerfile instruction %s is not supported in a dockerfile step", strings.ToUpper(c.Name()))
	}
	return nil
}

// expose adds EXPOSE's ports ("8080", "53/udp") to the config.
func expose(cfg *dockerspec.DockerOCIImageConfig, ports []string) error {
	if cfg.ExposedPorts == nil {
		cfg.ExposedPorts = map[string]struct{}{}
	}
	for _, p := range ports {
		port, proto, ok := strings.Cut(p, "/")
		if !ok {
			proto = "tcp"
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || (proto != "tcp" && proto != "udp" && proto != "sctp") {
			return fmt.Errorf("EXPOSE: %q is not a port", p)
		}
		cfg.ExposedPorts[strconv.Itoa(n)+"/"+proto] = struct{}{}
	}
	return nil
}

func withShell(args []string) []string {
	return append([]string{"/bin/sh", "-c"}, strings.Join(args, " "))
}

type envGetter struct{ env []string }

func (e envGetter) Get(k string) (string, bool) {
	for i := len(e.env) - 1; i >= 0; i-- {
		if name, v, _ := strings.Cut(e.env[i], "="); name == k {
			return v, true
		}
	}
	return "", false
}

func (e envGetter) Keys() []string {
	keys := make([]string, 0, len(e.env))
	for _, kv := range e.env {
		k, _, _ := strings.Cut(kv, "=")
		keys = append(keys, k)
	}
	return keys
}
