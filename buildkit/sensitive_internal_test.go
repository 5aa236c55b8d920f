package buildkit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

// TestItem6BuildShowsNoSensitiveValue: issue 8 item 6. BuildKit's progress
// display names each step by its LLB custom name: a step with a sensitive
// value is named without it, and a build error quoting the command is
// shown without it.
func TestItem6BuildShowsNoSensitiveValue(t *testing.T) {
	const canary = "Zq7canaryX"
	spec := `{"from":"busybox:1.36","steps":[{"run":{"commands":["echo ` + canary + `"]}},{"run":{"commands":["echo plain"]}}]}`
	d := &schema.Desired{Resources: []schema.Resource{{Address: "image.a", Kind: schema.KindImage, Hash: "sha256:" + strings.Repeat("ab", 32),
		Spec: []byte(spec), Sensitive: []string{"/steps/0/run/commands/0"}}}}
	imgs, err := Images(d)
	if err != nil {
		t.Fatal(err)
	}
	def, err := testConverter(t).Convert(context.Background(), imgs[0])
	if err != nil {
		t.Fatal(err)
	}
	m, err := def.Marshal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, md := range m.Metadata {
		if n := md.Description["llb.customname"]; n != "" {
			names = append(names, n)
		}
	}
	all := strings.Join(names, "\n")
	if strings.Contains(all, canary) || !strings.Contains(all, "run (sensitive)") || !strings.Contains(all, "echo plain") {
		t.Errorf("step names:\n%s\nwant the sensitive step named without its value", all)
	}
	be := &BuildError{Image: imgs[0], Step: 0, Err: errors.New(`process "/bin/sh -c echo ` + canary + `" did not complete successfully: exit code: 1`)}
	if dg := be.Diagnostic(); strings.Contains(dg.Summary+dg.Detail, canary) {
		t.Errorf("build error %q quotes the sensitive value", dg.Detail)
	}
}
