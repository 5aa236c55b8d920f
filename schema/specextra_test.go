package schema

import (
	"fmt"
	"reflect"
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

// withoutSchemaOnlyCases are specs of each shape withoutSchemaOnly meets:
// canonical with only the Go type's fields, with schema-only fields
// (right and wrong), with unknown fields and lifecycle, not canonical
// (white space, escapes, repeated keys), and not an object.
var withoutSchemaOnlyCases = []struct {
	kind Kind
	spec string
}{
	{KindSandbox, `{"image":"sha256:` + zeros64 + `"}`},
	{KindSandbox, `{"$id":"x","image":"sha256:` + zeros64 + `"}`},
	{KindSandbox, `{"image":"sha256:` + zeros64 + `","max_timeout":"10m","ports":[{"container_port":80,"protocol":"tcp"}]}`},
	{KindSandbox, `{"image":"sha256:` + zeros64 + `","max_timeout":{"a":1},"ports":{"container_port":80}}`},
	{KindSandbox, `{"image":"sha256:` + zeros64 + `","nope":1}`},
	{KindSandbox, `{"image":"sha256:` + zeros64 + `","lifecycle":{}}`},
	{KindSandbox, `{"image": "sha256:` + zeros64 + `", "max_timeout": "10m"}`},
	{KindSandbox, `{"image":"sha256:` + zeros64 + `","max_time\u006fut":"10m"}`},
	{KindSandbox, `{"image":"sha256:` + zeros64 + `","max_timeout":"10m","max_timeout":"11m"}`},
	{KindSandbox, `{"image":"sha256:` + zeros64 + `"} `},
	{KindSandbox, `[]`},
	{KindSandbox, `{`},
	{KindSandbox, `{}`},
	{KindFunction, `{"handler":"app:run","image":"sha256:` + zeros64 + `","tags":["a"],"timeout":"5m"}`},
	{KindFunction, `{"annotations":{"a":{"b":"c"}},"handler":"app:run","tags":[{"a":1}]}`},
	{KindVolume, `{"size":"1Gi"}`},
}

// TestWithoutSchemaOnlyReadsKeys: withoutSchemaOnly, which reads a
// canonical spec's keys without decoding it, gives what decoding it
// gives, on every case; and a spec with none but its type's fields costs
// no allocation.
func TestWithoutSchemaOnlyReadsKeys(t *testing.T) {
	for _, c := range withoutSchemaOnlyCases {
		sameAsDecoded(t, c.kind, []byte(c.spec))
	}
	spec := []byte(withoutSchemaOnlyCases[0].spec)
	v := new(SandboxSpec)
	if n := testing.AllocsPerRun(100, func() { withoutSchemaOnly(KindSandbox, spec, v) }); n > 0 {
		t.Errorf("withoutSchemaOnly of a plain spec allocates %v times", n)
	}
}

// sameAsDecoded fails unless withoutSchemaOnly(k, spec) is what
// cutSchemaOnly, which decodes spec, makes of it.
func sameAsDecoded(t *testing.T, k Kind, spec []byte) {
	t.Helper()
	v, err := specValue(k)
	if err != nil {
		return
	}
	got, gerr := withoutSchemaOnly(k, spec, v)
	want, werr := cutSchemaOnly(Default().Kind(k), spec, jsonFields(reflect.TypeOf(v).Elem()))
	if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("withoutSchemaOnly(%s, %s) = %s, %v; decoded: %s, %v", k, spec, got, gerr, want, werr)
	}
}

// FuzzWithoutSchemaOnly: on any spec of any kind, withoutSchemaOnly gives
// what decoding the spec gives.
func FuzzWithoutSchemaOnly(f *testing.F) {
	for _, c := range withoutSchemaOnlyCases {
		f.Add(string(c.kind), []byte(c.spec))
	}
	f.Fuzz(func(t *testing.T, kind string, spec []byte) {
		sameAsDecoded(t, Kind(kind), spec)
	})
}

// TestKindDefNames: each kind's DefName, made once, is what it spells.
func TestKindDefNames(t *testing.T) {
	for _, k := range Kinds {
		if got, want := k.DefName(), k.defName(); got != want || want == "#" {
			t.Errorf("%s.DefName() = %q, want %q", k, got, want)
		}
	}
	if got := KindScalingGroup.DefName(); got != "#ScalingGroup" {
		t.Errorf("scaling_group's DefName is %q", got)
	}
	if got := Kind("a_b").DefName(); got != "#AB" {
		t.Errorf("a_b's DefName is %q", got)
	}
}

// TestSchemaOnlyErrorInOrder: of two wrong schema-only fields, or two
// wrong fields inside one, the error names the first by name, every time
// (it named either, by map order).
func TestSchemaOnlyErrorInOrder(t *testing.T) {
	for spec, want := range map[string]string{
		`{"image":"sha256:` + zeros64 + `","max_timeout":{"a":1},"ports":{"container_port":80},"temp_dir":["x"]}`: "max_timeout",
		`{"image":"sha256:` + zeros64 + `","ports":[{"a":21,"b":"","c":1}]}`:                                      `unknown field "a"`,
	} {
		for range 50 {
			err := ValidateSpec(KindSandbox, []byte(spec))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("ValidateSpec(%s) = %v, want an error with %s", spec, err, want)
			}
		}
	}
}
