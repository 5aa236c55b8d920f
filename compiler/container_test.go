package compiler

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestContainerTrainingSameFromBothLanguages: a container and a training
// using every field group give byte-identical desired states from CUE and
// HCL, with the schema's defaults (protocol tcp, health check timeout and
// threshold) filled in (issue 11: container, training).
func TestContainerTrainingSameFromBothLanguages(t *testing.T) {
	c := compileJSON(t, "testdata/kinds/main.cue", Input{})
	h := compileJSON(t, "testdata/kinds/main.hcl", Input{})
	if !bytes.Equal(c, h) {
		t.Fatalf("CUE and HCL desired states differ:\n%s\n---\n%s", c, h)
	}
	d := compileOK(t, "testdata/kinds/main.cue", Input{})
	web := specOf(t, d, "container.web")
	hc, _ := web["health_check"].(map[string]any)
	if hc["timeout"] != "5s" || hc["failure_threshold"] != float64(3) || hc["interval"] != "30s" {
		t.Errorf("container.web health_check = %v, want interval 30s and the defaults timeout 5s, failure_threshold 3", hc)
	}
	ports, _ := web["ports"].([]any)
	if len(ports) != 2 || ports[0].(map[string]any)["protocol"] != "tcp" {
		t.Errorf("container.web ports = %v, want 8080/tcp (the default protocol) and 9090/udp", ports)
	}
	ft := specOf(t, d, "training.finetune")
	mounts, _ := ft["dataset_mounts"].([]any)
	if len(mounts) != 1 || mounts[0].(map[string]any)["dataset"].(map[string]any)["ref"] != "dataset.goldens" {
		t.Errorf("training.finetune dataset_mounts = %v, want dataset.goldens by reference", mounts)
	}
	if r := d.Lookup("container.web"); r.Lifecycle == nil || !r.Lifecycle.CreateBeforeDestroy {
		t.Errorf("container.web lifecycle = %+v, want create_before_destroy", r.Lifecycle)
	}
}

// TestContainerRestartPolicyDefault: a container without restart_policy
// has "always" (issue 11: container).
func TestContainerRestartPolicyDefault(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": `project = "p"
container "web" {
  image { from = "` + pinnedBase + `" }
}
`})
	spec := specOf(t, compileOK(t, filepath.Join(dir, "main.hcl"), Input{}), "container.web")
	if spec["restart_policy"] != "always" {
		t.Errorf("restart_policy = %v, want always", spec["restart_policy"])
	}
}

// compileErrors compiles files and returns the error's text, failing when
// it compiles.
func compileErrors(t *testing.T, main string, files map[string]string) string {
	t.Helper()
	dir := writeProject(t, files)
	_, err := Compile(context.Background(), Input{Path: filepath.Join(dir, main)})
	if err == nil {
		t.Fatalf("%s compiled; want errors", main)
	}
	return err.Error()
}

// TestTrainingRefusesLocalSecrets: a training reaching a secret read on
// the machine running cc (from_env, from_env_file), in env or env_from,
// is an error at the use, file:line:col, in both languages; secrets the
// service holds, data sources included, are accepted (issue 11: training,
// acceptance 5).
func TestTrainingRefusesLocalSecrets(t *testing.T) {
	env := map[string]string{"dev.env": "HF=1\n"}
	for _, tc := range []struct {
		main, src string
		want      []string
	}{
		{"main.cue", `package p
project: "p"
images: app: from: "` + pinnedBase + `"
secrets: {
	openai: from_env: "OPENAI_API_KEY"
	hf: from_env_file: path: "dev.env"
	svc: from_service: "shared.token"
}
trainings: finetune: {
	image: images.app
	env: {KEY: secrets.openai, OK: secrets.svc, V: data.secrets.vault}
	env_from: [secrets.svc, secrets.hf]
}
data: secrets: vault: name: "vault"
`, []string{
			"main.cue:11:8: training env KEY: secret.openai comes from the local environment (from_env OPENAI_API_KEY), and a training accepts only secrets the service holds (from_service, from_integration, from_store, data.secrets.NAME)",
			"main.cue:12:26: training env_from[1]: secret.hf comes from a local file (from_env_file dev.env)",
		}},
		{"main.hcl", `project = "p"
image "app" { from = "` + pinnedBase + `" }
secret "openai" { from_env = "OPENAI_API_KEY" }
secret "hf" {
  from_env_file { path = "dev.env" }
}
secret "svc" { from_service = "shared.token" }
training "finetune" {
  image    = image.app
  env      = { KEY = secret.openai, OK = secret.svc, V = data.secret.vault }
  env_from = [secret.svc, secret.hf]
}
data "secret" "vault" { name = "vault" }
`, []string{
			"main.hcl:10:22: training env KEY: secret.openai comes from the local environment (from_env OPENAI_API_KEY), and a training accepts only secrets the service holds (from_service, from_integration, from_store, data.secrets.NAME)",
			"main.hcl:11:27: training env_from[1]: secret.hf comes from a local file (from_env_file dev.env)",
		}},
	} {
		t.Run(tc.main, func(t *testing.T) {
			files := map[string]string{tc.main: tc.src}
			for k, v := range env {
				files[k] = v
			}
			got := compileErrors(t, tc.main, files)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("errors lack %q:\n%s", w, got)
				}
			}
			if n := strings.Count(got, "a training accepts only"); n != 2 {
				t.Errorf("%d refusals, want 2 (secret.svc and data.secrets.vault are the service's):\n%s", n, got)
			}
		})
	}
}

// TestContainerChecks: what spans a container's fields is checked with
// positions: a health check probing one way, on a port it listens on; a
// port listed once; exposed ports it listens on (issue 11: container).
func TestContainerChecks(t *testing.T) {
	src := `project = "p"
image "app" { from = "` + pinnedBase + `" }
container "a" {
  image = image.app
  port { port = 8080 }
  port { port = 8080 }
  health_check {
    http_path = "/healthz"
    port      = 9999
  }
  network {
    ingress_mode  = "public"
    exposed_ports = [7070]
  }
}
container "b" {
  image = image.app
  health_check { http_path = "/healthz" }
}
container "c" {
  image = image.app
  health_check {
    http_path = "/healthz"
    command   = ["true"]
    port      = 80
  }
}
container "d" {
  image = image.app
  health_check { interval = "1s" }
}
`
	got := compileErrors(t, "main.hcl", map[string]string{"main.hcl": src})
	for _, w := range []string{
		"main.hcl:6:3: ports: 8080/tcp is listed twice",
		"main.hcl:9:17: health_check: port 9999 is not one of the container's ports",
		"main.hcl:13:22: network: port 7070 is exposed but is not one of the container's ports",
		"main.hcl:18:30: health_check: http_path needs the port to probe",
		"main.hcl:24:17: health_check: set http_path or command, not both",
		"main.hcl:30:3: health_check: set http_path (an HTTP GET) or command (run in the container)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("errors lack %q:\n%s", w, got)
		}
	}
}

// TestContainerTrainingPlanSemantics: the plan follows the schema's
// facts: a container's health check, restart policy and tags change in
// place, its ports and command replace it; every change of a training,
// a new revision of a dataset it mounts included, replaces it (a job runs
// once) (issue 11: container, training).
func TestContainerTrainingPlanSemantics(t *testing.T) {
	base, err := os.ReadFile("testdata/kinds/main.cue")
	if err != nil {
		t.Fatal(err)
	}
	csv := "input,expected\na,b\n"
	project := func(edit func(string) string, data string) string {
		return writeProject(t, map[string]string{"main.cue": edit(string(base)), "data/goldens.csv": data, "conf/app.toml": "x=1\n"})
	}
	same := func(s string) string { return s }
	st := appliedState(compileOK(t, filepath.Join(project(same, csv), "main.cue"), Input{}))
	for _, tc := range []struct {
		name, old, new, data string
		addr                 string
		action               planner.Action
	}{
		{"health check", `interval: "30s"`, `interval: "1m"`, csv, "container.web", planner.Update},
		{"restart policy", `restart_policy: "on_failure"`, `restart_policy: "never"`, csv, "container.web", planner.Update},
		{"tags", `tags: ["web"]`, `tags: ["web", "v2"]`, csv, "container.web", planner.Update},
		{"ports", `{port: 9090, protocol: "udp"}`, `{port: 9091, protocol: "udp"}`, csv, "container.web", planner.Replace},
		{"container command", `"http.server", "8080"`, `"http.server", "8081"`, csv, "container.web", planner.Replace},
		{"training command", `"train.py"]`, `"train.py", "--epochs=2"]`, csv, "training.finetune", planner.Replace},
		{"dataset revision", "", "", csv + "c,d\n", "training.finetune", planner.Replace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edit := func(s string) string {
				if tc.old == "" {
					return s
				}
				if !strings.Contains(s, tc.old) {
					t.Fatalf("the project has no %q", tc.old)
				}
				return strings.Replace(s, tc.old, tc.new, 1)
			}
			d := compileOK(t, filepath.Join(project(edit, tc.data), "main.cue"), Input{})
			p, err := planner.Diff(d, st, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, c := range p.Changes {
				if c.Addr == tc.addr {
					found = true
					if c.Action != tc.action {
						t.Errorf("%s: %v, want %v", tc.addr, c.Action, tc.action)
					}
				}
			}
			if !found {
				t.Errorf("no change of %s in %+v", tc.addr, p.Changes)
			}
		})
	}
}

// TestContainerTrainingSpecsValidated: the service's check of a compiled
// spec (schema.ValidateSpec) refuses what the compiler never makes
// (issue 11: container, training).
func TestContainerTrainingSpecsValidated(t *testing.T) {
	d := compileOK(t, "testdata/kinds/main.cue", Input{})
	for _, addr := range []string{"container.web", "training.finetune"} {
		r := d.Lookup(addr)
		if err := schema.ValidateSpec(r.Kind, r.Spec); err != nil {
			t.Errorf("%s: the compiled spec is refused: %v", addr, err)
		}
	}
}

// TestContainerMountedFileCause: a container's mounted file changing is
// explained by the file, as a sandbox's is (issue 11: container).
func TestContainerMountedFileCause(t *testing.T) {
	src := `project = "p"
container "web" {
  image { from = "` + pinnedBase + `" }
  mounted_file {
    src  = "conf/app.toml"
    path = "/etc/app.toml"
  }
}
`
	old := compileOK(t, filepath.Join(writeProject(t, map[string]string{"main.hcl": src, "conf/app.toml": "x=1\n"}), "main.hcl"), Input{})
	d := compileOK(t, filepath.Join(writeProject(t, map[string]string{"main.hcl": src, "conf/app.toml": "x=2\n"}), "main.hcl"), Input{})
	p, err := planner.Diff(d, appliedState(old), planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, c := range p.Changes {
		for _, r := range c.Reasons {
			msgs = append(msgs, c.Addr+": "+r.Message)
		}
	}
	if !strings.Contains(strings.Join(msgs, "\n"), "container.web: mounted file conf/app.toml changed") {
		t.Errorf("reasons %q, want the mounted file's change", msgs)
	}
}
