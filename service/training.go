package service

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
)

// checkTrainingSecrets refuses a training whose env or env_from names a
// secret of the project read on the machine that applies it (from_env,
// from_env_file): a training job runs on the platform after the apply,
// where no local value can be read (seed A: training supports platform
// secret references only). The compiler refuses it with the position of
// the use; the service refuses it from any client. Data sources are
// secrets the service holds.
func (t *mutation) checkTrainingSecrets(addr string, spec []byte) error {
	var s schema.TrainingSpec
	if err := json.Unmarshal(spec, &s); err != nil {
		return status.Errorf(codes.InvalidArgument, "%s: %v", addr, err)
	}
	uses := map[string]string{}
	for k, e := range s.Env {
		if e.Secret != nil {
			uses["env "+k] = e.Secret.Ref
		}
	}
	for i, r := range s.EnvFrom {
		uses[fmt.Sprintf("env_from[%d]", i)] = r.Ref
	}
	whats := make([]string, 0, len(uses))
	for w := range uses {
		whats = append(whats, w)
	}
	sort.Strings(whats)
	for _, what := range whats {
		if err := t.serviceHeldSecret(addr, what, uses[what]); err != nil {
			return err
		}
	}
	return nil
}

// serviceHeldSecret refuses the use what of the secret at ref when the
// project's secret there has a local source.
func (t *mutation) serviceHeldSecret(addr, what, ref string) error {
	if !strings.HasPrefix(ref, string(schema.KindSecret)+".") {
		return nil // a data source
	}
	cur, err := t.resource(ref)
	if err != nil {
		return dbError(err)
	}
	if cur == nil {
		return nil // checkGraph refuses it
	}
	spec, err := t.unsealSpec(ref, cur.spec, splitLines(cur.sensitive))
	if err != nil {
		return err
	}
	sec, err := schema.DecodeSecretSpec(spec)
	if err != nil {
		return status.Errorf(codes.Internal, "%s: the stored spec of %s: %v", addr, ref, err)
	}
	if sec.FromEnv == "" && sec.FromEnvFile == nil {
		return nil
	}
	return status.Errorf(codes.InvalidArgument,
		"%s: %s: %s is read where cc runs (from_env or from_env_file), and a training accepts only secrets the service holds (from_service, from_integration, from_store, or a data source)", addr, what, ref)
}
