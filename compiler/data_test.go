package compiler

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

// dataCUE and dataHCL are one project in both languages that uses a data
// source of every kind wherever it can stand.
const dataCUE = `project: "demo"
data: volumes: cache: name: "build-cache"
data: datasets: evals: name: "build-evals"
data: datasets: old: {name: "build-evals", revision: 2}
data: functions: ranker: {name: "ranker", version: 3}
data: functions: judge: name: "judge"
data: secrets: openai: name: "openai"
images: base: from: "python:3.12-slim@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
sandboxes: dev: {
	image: images.base
	env: KEY: data.secrets.openai
	env_from: [data.secrets.openai]
	volume_mounts: [{volume: data.volumes.cache, path: "/cache"}]
}
evaluations: e: {
	dataset: data.datasets.evals
	task: data.functions.ranker
	scorers: [{exact_match: {}}]
	metadata: judge: "none"
}
evaluations: pinned: {
	dataset: data.datasets.old
	task: data.functions.ranker
	scorers: [{exact_match: {}}]
}
`

const dataHCL = `project = "demo"
data "volume" "cache" {
  name = "build-cache"
}
data "dataset" "evals" {
  name = "build-evals"
}
data "dataset" "old" {
  name     = "build-evals"
  revision = 2
}
data "function" "ranker" {
  name    = "ranker"
  version = 3
}
data "function" "judge" {
  name = "judge"
}
data "secret" "openai" {
  name = "openai"
}
image "base" {
  from = "python:3.12-slim@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
}
sandbox "dev" {
  image    = image.base
  env      = { KEY = data.secret.openai }
  env_from = [data.secret.openai]
  volume_mount {
    volume = data.volume.cache
    path   = "/cache"
  }
}
evaluation "e" {
  metadata = { judge = "none" }
  dataset  = data.dataset.evals
  task    = data.function.ranker
  scorer "exact_match" {}
}
evaluation "pinned" {
  dataset = data.dataset.old
  task    = data.function.ranker
  scorer "exact_match" {}
}
`

// TestIssue10DataSourcesSameDesired: data sources of every kind compile to
// the same Desired state from CUE and HCL, listed in Desired.Data with
// their pinned versions, and referred to by their addresses, without a
// hash, in specs and depends_on (issue 10: data sources).
func TestIssue10DataSourcesSameDesired(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.cue": dataCUE, "main.hcl": dataHCL})
	c := compileJSON(t, filepath.Join(dir, "main.cue"), Input{})
	h := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{})
	if !bytes.Equal(c, h) {
		t.Fatalf("CUE and HCL compile differently:\n%s", cmp.Diff(string(c), string(h)))
	}
	for _, file := range []string{"main.cue", "main.hcl"} {
		d := compileOK(t, filepath.Join(dir, file), Input{})
		want := []schema.DataSource{
			{Address: "data.dataset.evals", Kind: schema.KindDataset, Name: "build-evals"},
			{Address: "data.dataset.old", Kind: schema.KindDataset, Name: "build-evals", Version: 2},
			{Address: "data.function.judge", Kind: schema.KindFunction, Name: "judge"},
			{Address: "data.function.ranker", Kind: schema.KindFunction, Name: "ranker", Version: 3},
			{Address: "data.secret.openai", Kind: schema.KindSecret, Name: "openai"},
			{Address: "data.volume.cache", Kind: schema.KindVolume, Name: "build-cache"},
		}
		got := append([]schema.DataSource(nil), d.Data...)
		for i := range got {
			if got[i].Range == nil || got[i].Range.File == "" || got[i].Range.Start.Line == 0 {
				t.Errorf("%s: %s has no range", file, got[i].Address)
			}
			got[i].Range = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Data (-want +got):\n%s", file, diff)
		}
		sb := spec[schema.SandboxSpec](t, d, "sandbox.dev")
		if sb.VolumeMounts[0].Volume != (schema.Ref{Ref: "data.volume.cache"}) || sb.EnvFrom[0] != (schema.Ref{Ref: "data.secret.openai"}) || *sb.Env["KEY"].Secret != (schema.Ref{Ref: "data.secret.openai"}) {
			t.Errorf("%s: sandbox spec %+v", file, sb)
		}
		ev := spec[schema.EvaluationSpec](t, d, "evaluation.e")
		if ev.Dataset != (schema.Ref{Ref: "data.dataset.evals"}) || *ev.Task != (schema.Ref{Ref: "data.function.ranker"}) {
			t.Errorf("%s: evaluation spec %+v", file, ev)
		}
		if got := d.Lookup("evaluation.e").DependsOn; !cmp.Equal(got, []string{"data.dataset.evals", "data.function.ranker"}) {
			t.Errorf("%s: evaluation.e depends_on %v", file, got)
		}
		if got := d.Lookup("sandbox.dev").DependsOn; !cmp.Equal(got, []string{"data.secret.openai", "data.volume.cache", "image.base"}) {
			t.Errorf("%s: sandbox.dev depends_on %v", file, got)
		}
	}
}
