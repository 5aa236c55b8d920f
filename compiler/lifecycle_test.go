package compiler

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

const lifecycleHCL = `project = "demo"

volume "data" {
  size = "1Gi"
  lifecycle {
    prevent_destroy = true
  }
}

sandbox "dev" {
  image {
    from = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
  }
  tags = ["a"]
  env  = { LOG_LEVEL = "debug" }
  lifecycle {
    ignore_changes        = [tags, env.LOG_LEVEL, annotations, env["LOG_LEVEL"], "resources.requests.cpu"]
    create_before_destroy = true
  }
}
`

const lifecycleCUE = `package demo

project: "demo"
volumes: data: {
	size: "1Gi"
	lifecycle: prevent_destroy: true
}
sandboxes: dev: {
	image: from: "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
	tags: ["a"]
	env: LOG_LEVEL: "debug"
	lifecycle: {ignore_changes: ["tags", "env.LOG_LEVEL", "annotations", "resources.requests.cpu"], create_before_destroy: true}
}
`

// TestLifecycleSameFromBothLanguages checks that a lifecycle block
// (HCL, with Terraform's traversals) and a lifecycle field (CUE) give
// byte-identical desired states, with the lifecycle beside the spec and
// in neither the spec nor its hash (issue 10: lifecycle).
func TestLifecycleSameFromBothLanguages(t *testing.T) {
	h := compileJSON(t, writeProject(t, map[string]string{"main.hcl": lifecycleHCL}), Input{})
	c := compileJSON(t, writeProject(t, map[string]string{"main.cue": lifecycleCUE}), Input{})
	if !bytes.Equal(h, c) {
		t.Fatalf("HCL and CUE differ:\n%s\n%s", h, c)
	}
	for _, want := range []string{
		`"lifecycle":{"create_before_destroy":true,"ignore_changes":["annotations","env.LOG_LEVEL","resources.requests.cpu","tags"]}`,
		`"lifecycle":{"prevent_destroy":true}`,
	} {
		if !bytes.Contains(h, []byte(want)) {
			t.Errorf("desired state lacks %s:\n%s", want, h)
		}
	}
	// The same resources without a lifecycle have the same hashes.
	plain := regexp.MustCompile(`(?s)\n  lifecycle \{.*?\n  \}\n`).ReplaceAllString(lifecycleHCL, "\n")
	d := compileOK(t, writeProject(t, map[string]string{"main.hcl": plain}), Input{})
	with := compileOK(t, writeProject(t, map[string]string{"main.hcl": lifecycleHCL}), Input{})
	for _, addr := range []string{"volume.data", "sandbox.dev"} {
		if a, b := d.Lookup(addr), with.Lookup(addr); a == nil || b == nil || a.Hash != b.Hash || !bytes.Equal(a.Spec, b.Spec) {
			t.Errorf("%s: the lifecycle changed the spec or hash", addr)
		}
	}
	if lc := with.Lookup("volume.data").Lifecycle; lc.Position() != "main.hcl:6:5" {
		t.Errorf("prevent_destroy position = %q, want main.hcl:6:5", lc.Position())
	}
}

// TestLifecycleErrors checks the positioned errors of a lifecycle, in
// both languages: an unknown field path (with did-you-mean), a path into
// a map key, create_before_destroy on a kind that does not allow it
// (issue 10: lifecycle).
func TestLifecycleErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file, src string
		want            []string
	}{
		{"hcl", "main.hcl", `project = "demo"
volume "data" {
  size = "1Gi"
  lifecycle {
    create_before_destroy = true
  }
}
sandbox "dev" {
  image {
    from = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
  }
  lifecycle {
    ignore_changes = [tagz, env.LOG_LEVEL.x, resources.cpu]
  }
}
`, []string{
			`main.hcl:5:5: create_before_destroy is for sandboxes, containers and scaling groups only`,
			`main.hcl:13:23: ignore_changes: a sandbox has no field "tagz"; did you mean "tags"?`,
			`main.hcl:13:29: ignore_changes: env.LOG_LEVEL is a key of a map`,
			`main.hcl:13:46: ignore_changes: resources has no field "cpu"; did you mean "resources.requests.cpu"?`,
		}},
		{"cue", "main.cue", `package demo

project: "demo"
volumes: data: {
	size: "1Gi"
	lifecycle: create_before_destroy: true
}
sandboxes: dev: {
	image: from: "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
	lifecycle: ignore_changes: ["tagz", "env.LOG_LEVEL.x", "resources.cpu"]
}
`, []string{
			`main.cue:6:13: create_before_destroy is for sandboxes, containers and scaling groups only`,
			`main.cue:10:30: ignore_changes: a sandbox has no field "tagz"; did you mean "tags"?`,
			`main.cue:10:38: ignore_changes: env.LOG_LEVEL is a key of a map`,
			`main.cue:10:57: ignore_changes: resources has no field "cpu"; did you mean "resources.requests.cpu"?`,
		}},
		{"hcl-index", "main.hcl", `project = "demo"
sandbox "dev" {
  image {
    from = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
  }
  lifecycle {
    ignore_changes = [volume_mounts[0]]
  }
}
`, []string{`main.hcl:7:23: ignore_changes: volume_mounts[...]: a list is ignored whole, not by index`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(context.Background(), Input{Path: writeProject(t, map[string]string{tc.file: tc.src})})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Compile() error = %v, want a configuration error", err)
			}
			got := ce.Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Compile() errors lack %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestLifecycleSchemaFacts checks the schema's facts about lifecycles:
// create_before_destroy is a fact of the kind's lifecycle field
// (issue 10: lifecycle).
func TestLifecycleSchemaFacts(t *testing.T) {
	s := schema.Default()
	// issue 11: a container's and a scaling group's replacement may start first too.
	if got := s.CreateBeforeDestroyKinds(); len(got) != 3 || got[0] != schema.KindSandbox || got[1] != schema.KindContainer || got[2] != schema.KindScalingGroup {
		t.Errorf("CreateBeforeDestroyKinds() = %v, want [sandbox container scaling_group]", got)
	}
	for _, k := range schema.Kinds {
		if k == schema.KindImage {
			continue
		}
		if s.Kind(k).Field("lifecycle") == nil {
			t.Errorf("%s has no lifecycle field", k)
		}
	}
	for path, want := range map[string]string{
		"tags": "", "env.LOG_LEVEL": "", "resources.requests.cpu": "", "annotations.team": "",
		"lifecycle": `a sandbox has no field "lifecycle"`, "tags.x": "tags is a list",
	} {
		if got := s.FieldPathProblem(schema.KindSandbox, path); !strings.Contains(got, want) || (want == "") != (got == "") {
			t.Errorf("FieldPathProblem(sandbox, %q) = %q, want %q", path, got, want)
		}
	}
}

// TestLifecycleLeavesReferencesByContent: a value equal to a declared
// resource refers to it by content whether or not the declaration has a
// lifecycle (issue 10: lifecycle).
func TestLifecycleLeavesReferencesByContent(t *testing.T) {
	d := compileOK(t, writeProject(t, map[string]string{"main.cue": `package demo

project: "demo"
volumes: data: {
	size: "1Gi"
	lifecycle: prevent_destroy: true
}
sandboxes: dev: {
	image: from: "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
	volume_mounts: [{volume: {size: "1Gi"}, path: "/d"}]
}
`}), Input{})
	if r := d.Lookup("sandbox.dev"); r == nil || !strings.Contains(string(r.Spec), `"ref":"volume.data"`) {
		t.Fatalf("sandbox.dev = %v, want it to mount volume.data", r)
	}
}

// TestLifecycleRefusesSensitiveValues: a plan shows a lifecycle, so no
// value of it may come from a sensitive variable (issue 10: lifecycle).
func TestLifecycleRefusesSensitiveValues(t *testing.T) {
	_, err := Compile(context.Background(), Input{Path: writeProject(t, map[string]string{"main.hcl": `project = "demo"
variable "keep" {
  type      = bool
  default   = true
  sensitive = true
}
volume "data" {
  size = "1Gi"
  lifecycle {
    prevent_destroy = var.keep
  }
}
`})})
	if err == nil || !strings.Contains(err.Error(), "main.hcl:10:23: lifecycle: a value from a sensitive variable cannot be used here") {
		t.Fatalf("Compile() = %v, want the sensitive value refused at main.hcl:10:23", err)
	}
}
