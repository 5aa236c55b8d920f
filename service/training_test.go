package service_test

import (
	"errors"
	"strings"
	"testing"

	"cc.dev/cc/service"
)

// issue 11: training. The service refuses, from any client, a training
// whose env or env_from names a secret of the project with a local source
// (from_env, from_env_file), and accepts one the service holds.
func TestTrainingRefusesLocalSecretsOnTheService(t *testing.T) {
	c := open(t, "")
	local := mustApply(t, c, applyReq(t, "p", "secret.local", service.ActionCreate, map[string]any{"from_env": "OPENAI_API_KEY"}, 0))
	held := mustApply(t, c, applyReq(t, "p", "secret.held", service.ActionCreate, map[string]any{"from_service": "hf.token"}, local.Serial))
	ref := func(addr string) map[string]any {
		return map[string]any{"ref": addr, "hash": sum(addr)}
	}
	training := func(env map[string]any, from []any) map[string]any {
		m := map[string]any{"image": testImage}
		if env != nil {
			m["env"] = env
		}
		if from != nil {
			m["env_from"] = from
		}
		return m
	}
	for _, tc := range []struct {
		name string
		spec map[string]any
		deps []string
		want string
	}{
		{"env", training(map[string]any{"KEY": ref("secret.local")}, nil), []string{"secret.local"},
			"training.t: env KEY: secret.local is read where cc runs"},
		{"env_from", training(nil, []any{ref("secret.held"), ref("secret.local")}), []string{"secret.held", "secret.local"},
			"training.t: env_from[1]: secret.local is read where cc runs"},
	} {
		req := applyReq(t, "p", "training.t", service.ActionCreate, tc.spec, held.Serial)
		req.DependsOn = tc.deps
		_, err := c.Apply(t.Context(), req)
		if !errors.Is(err, service.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Apply = %v, want invalid argument with %q", tc.name, err, tc.want)
		}
	}
	req := applyReq(t, "p", "training.t", service.ActionCreate, training(map[string]any{"KEY": ref("secret.held")}, nil), held.Serial)
	req.DependsOn = []string{"secret.held"}
	mustApply(t, c, req)
}
