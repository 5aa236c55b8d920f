package compiler

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every field of a scaling group, in both languages (issue 11: scaling
// groups).
const (
	scalingCUE = `package p

project: "p"
images: app: from: "python:3.12-slim"
secrets: openai: from_env: "OPENAI_API_KEY"
volumes: cache: size: "10Gi"
scaling_groups: api: {
	image:   images.app
	command: ["python", "-m", "app.serve"]
	resources: requests: {cpu: "0.5", memory: "1024Mi"}
	replicas: {min: 2, max: 8, target_concurrency: 20}
	env: {LOG_LEVEL: "info", OPENAI_KEY: secrets.openai}
	env_from: [secrets.openai]
	credentials: [{hosts: ["api.openai.com"], secret: secrets.openai}]
	network: {ingress_mode: "public", exposed_ports: [8080], egress_allow: ["api.openai.com"]}
	ports: [8080]
	volume_mounts: [{volume: volumes.cache, path: "/cache"}]
	identity: true
	tags: ["team:search"]
	annotations: owner: "search"
	lifecycle: create_before_destroy: true
}
`
	scalingHCL = `project = "p"
image "app" { from = "python:3.12-slim" }
secret "openai" { from_env = "OPENAI_API_KEY" }
volume "cache" { size = "10Gi" }
scaling_group "api" {
  image   = image.app
  command = ["python", "-m", "app.serve"]
  resources {
    requests {
      cpu    = "0.5"
      memory = "1024Mi"
    }
  }
  replicas {
    min                = 2
    max                = 8
    target_concurrency = 20
  }
  env = {
    LOG_LEVEL      = "info"
    OPENAI_KEY     = secret.openai
  }
  env_from = [secret.openai]
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.openai
  }
  network {
    ingress_mode  = "public"
    exposed_ports = [8080]
    egress_allow  = ["api.openai.com"]
  }
  ports = [8080]
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
  identity    = true
  tags        = ["team:search"]
  annotations = { owner = "search" }
  lifecycle {
    create_before_destroy = true
  }
}
`
)

// issue 11: scaling groups. Every field of #ScalingGroup compiles, from
// CUE and HCL, to byte-identical desired states, with the references
// resolved and the quantities in their canonical spellings.
func TestScalingGroupSameFromBothLanguages(t *testing.T) {
	c := compileJSON(t, filepath.Join(writeProject(t, map[string]string{"main.cue": scalingCUE}), "main.cue"), Input{})
	h := compileJSON(t, filepath.Join(writeProject(t, map[string]string{"main.hcl": scalingHCL}), "main.hcl"), Input{})
	if !bytes.Equal(c, h) {
		t.Fatalf("CUE and HCL compile differently:\n%s", cmp.Diff(string(c), string(h)))
	}
	for _, want := range []string{`"kind":"scaling_group"`, `"replicas":{"max":8,"min":2,"target_concurrency":20}`, `"cpu":"500m"`, `"memory":"1Gi"`,
		`"ports":[8080]`, `"identity":true`, `"depends_on":["image.app","secret.openai","volume.cache"]`, `"create_before_destroy":true`} {
		if !strings.Contains(string(c), want) {
			t.Errorf("the desired state lacks %s:\n%s", want, c)
		}
	}
}

// issue 11: scaling groups. Bad scaling groups are positioned errors in
// both languages: a port listed twice, replicas.max below min, a field the
// kind lacks.
func TestScalingGroupErrors(t *testing.T) {
	for _, tc := range []struct {
		name, cue, hcl, cueWant, hclWant string
	}{
		{"port twice", "ports: [8080, 9090, 8080]", "ports = [8080, 9090, 8080]",
			"main.cue:5:62: ports: port 8080 is listed twice (first at ", "main.hcl:5:24: ports: port 8080 is listed twice (first at "},
		{"replicas", "replicas: {min: 3, max: 2}", "replicas {\n    min = 3\n    max = 2\n  }", "main.cue:5:", "main.hcl:"},
		{"unknown field", "handler: \"m:f\"", "handler = \"m:f\"", "main.cue:5:", "main.hcl:5:3: unknown attribute \"handler\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cue := "package p\n\nproject: \"p\"\nimages: app: from: \"" + pinnedBase + "\"\nscaling_groups: api: {image: images.app, " + tc.cue + "}\n"
			hcl := "project = \"p\"\nimage \"app\" { from = \"" + pinnedBase + "\" }\nscaling_group \"api\" {\n  image = image.app\n  " + tc.hcl + "\n}\n"
			for file, src := range map[string]string{"main.cue": cue, "main.hcl": hcl} {
				want := tc.cueWant
				if file == "main.hcl" {
					want = tc.hclWant
				}
				_, err := Compile(context.Background(), Input{Path: filepath.Join(writeProject(t, map[string]string{file: src}), file)})
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: Compile() = %v, want an error at %s", file, err, want)
				}
			}
		})
	}
}
