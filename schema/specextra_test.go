package schema

import (
	"strings"
	"testing"
)

const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"

// issue 11: sandbox fields. The service takes the schema-only fields of a
// spec (issue 16's Extra) in the schema's shape, refuses one in another
// shape or not in its canonical form, and still refuses a field the schema
// does not have (or lifecycle, in no spec).
func TestValidateSpecSchemaOnlyFields(t *testing.T) {
	base := `{"image":"sha256:` + zeros64 + `",`
	for _, tc := range []struct{ spec, want string }{
		{base + `"max_timeout":"600s"}`, "canonical"},
		{base + `"max_timeout":{"a":1}}`, "max_timeout: want a scalar"},
		{base + `"compute_class":null}`, "want a value"},
		{base + `"nope":1}`, "nope"},
		{base + `"ports":{"container_port":80}}`, "want a list"},
		{base + `"ports":[{"container_port":80,"bogus":1}]}`, `ports[0]: unknown field "bogus"`},
		{base + `"ports":[{"container_port":[80]}]}`, "ports[0].container_port: want a scalar"},
		{base + `"stop":"now"}`, "stop: want an object"},
		{base + `"stop":{"grace_period":"30s","x":1}}`, `unknown field "x"`},
		{base + `"stop":{"grace_period":"0.5m"}}`, "canonical"},
		{base + `"lifecycle":{}}`, "lifecycle"},
	} {
		if err := ValidateSpec(KindSandbox, []byte(tc.spec)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateSpec(%s) = %v, want an error with %q", tc.spec, err, tc.want)
		}
	}
	fn := `{"image":"sha256:` + zeros64 + `","source":{"paths":["src"],"digest":"sha256:` + zeros64 + `"},"handler":"app:run","timeout":"5m","retries":0,`
	for _, tc := range []struct{ spec, want string }{
		{fn + `"tags":[{"a":1}]}`, "tags[0]: want a scalar"},
		{fn + `"annotations":{"a":{"b":"c"}}}`, "annotations.a: want a scalar"},
		{fn + `"identity":"yes","nope":1}`, "nope"},
	} {
		if err := ValidateSpec(KindFunction, []byte(tc.spec)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateSpec(%s) = %v, want an error with %q", tc.spec, err, tc.want)
		}
	}
	if err := ValidateSpec(KindFunction, []byte(fn+`"tags":["a"],"annotations":{"a":"b"},"identity":true,"profiles":["p"]}`)); err != nil {
		t.Errorf("ValidateSpec(function with tags, annotations, identity, profiles) = %v, want nil", err)
	}
	if err := ValidateSpec(KindSandbox, []byte(base+`"max_timeout":"10m","temp_dir":"/t","stop":{"grace_period":"30s"},"ports":[{"container_port":80,"protocol":"tcp"}],"annotations":{"a":"b"}}`)); err != nil {
		t.Errorf("ValidateSpec(max_timeout, temp_dir) = %v, want nil", err)
	}
}
