package compiler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/schema"
)

// instancesHCL declares three for_each sandboxes, two count volumes and
// an image whose steps come from a dynamic block (issue 12: reuse).
const instancesHCL = `
project = "inst"

variable "workers" {
  default = { a = "1", b = "2", c = "3" }
}

image "base" {
  from = "python:3.12-slim"
  dynamic "apt" {
    for_each = ["git", "curl"]
    iterator = pkg
    content { packages = [pkg.value] }
  }
}

volume "cache" {
  count = 2
  size  = "${count.index + 1}Gi"
}

sandbox "worker" {
  for_each = var.workers
  image    = image.base
  command  = ["sleep", each.value]
  env      = { NAME = each.key }
}
`

// TestForEachCountInstances checks the addresses of for_each and count
// instances and that each instance's body sees its own key (issue 12:
// reuse).
func TestForEachCountInstances(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": instancesHCL})
	d := compileOK(t, dir, Input{})
	var addrs []string
	for _, r := range d.Resources {
		addrs = append(addrs, r.Address)
	}
	got := strings.Join(addrs, " ")
	for _, want := range []string{`sandbox.worker["a"]`, `sandbox.worker["b"]`, `sandbox.worker["c"]`, `volume.cache[0]`, `volume.cache[1]`} {
		if !strings.Contains(got, want) {
			t.Errorf("addresses %s lack %s", got, want)
		}
	}
	b := d.Lookup(`sandbox.worker["b"]`)
	if b == nil {
		t.Fatal("no sandbox.worker[\"b\"]")
	}
	spec, _ := json.Marshal(b.Spec)
	if !strings.Contains(string(spec), `"sleep","2"`) || !strings.Contains(string(spec), `"NAME":"b"`) {
		t.Errorf("worker b's spec = %s", spec)
	}
}

// fleetHCL and fleetCUE declare the same instances, by for_each, count
// and dynamic in HCL and by comprehensions writing member keys in CUE (the
// pattern README documents).
const fleetHCL = `
project = "fleet"

variable "workers" {
  default = { b = "2", a = "1", c = "3" }
}

image "tools" {
  from = "python:3.12-slim"
  dynamic "apt" {
    for_each = ["git", "curl"]
    content { packages = [apt.value] }
  }
}

volume "cache" {
  count = 2
  size  = "${count.index + 1}Gi"
}

sandbox "worker" {
  for_each      = var.workers
  image         = image.tools
  command       = ["sleep", each.value]
  env           = { NAME = each.key }
  volume_mounts = [{ volume = volume.cache[0], path = "/cache" }]
}
`

const fleetCUE = `
package fleet

project: "fleet"

#workers: {a: "1", b: "2", c: "3"}

images: tools: {
	from: "python:3.12-slim"
	steps: [for p in ["git", "curl"] {apt: packages: [p]}]
}

volumes: {for i in [0, 1] {"cache[\(i)]": size: "\(i+1)Gi"}}

sandboxes: {for k, v in #workers {"worker[\"\(k)\"]": {
	image: images.tools
	command: ["sleep", v]
	env: NAME: k
	volume_mounts: [{volume: volumes["cache[0]"], path: "/cache"}]
}}}
`

// TestInstancesSameDesiredInCUE checks that a CUE comprehension writing
// member keys gives the byte-identical desired state of HCL's for_each,
// count and dynamic (issue 12: reuse, CUE parity).
func TestInstancesSameDesiredInCUE(t *testing.T) {
	h := compileJSON(t, writeProject(t, map[string]string{"main.hcl": fleetHCL}), Input{})
	c := compileJSON(t, writeProject(t, map[string]string{"main.cue": fleetCUE}), Input{})
	if string(h) != string(c) {
		t.Errorf("HCL and CUE differ:\nHCL %s\nCUE %s", h, c)
	}
	if !strings.Contains(string(h), `"sandbox.worker[\"c\"]"`) {
		t.Errorf("no sandbox.worker[\"c\"] in %s", h)
	}
}

// TestInstanceLifecycleAndDeps checks that moved, removed and import
// blocks name instances, and that a dependency names the instance
// referred to (issue 12: reuse).
func TestInstanceLifecycleAndDeps(t *testing.T) {
	src := `
project = "life"

volume "cache" {
  for_each = toset(["a", "b"])
  size     = "1Gi"
}

sandbox "web" {
  count         = 1
  image         = "python:3.12-slim"
  command       = ["sleep", "1"]
  volume_mounts = [{ volume = volume.cache["b"], path = "/c" }]
}

moved {
  from = sandbox.web
  to   = sandbox.web[0]
}

removed {
  from = volume.cache["old"]
}

import {
  to = volume.cache["a"]
  id = "shared"
}
`
	d := compileOK(t, writeProject(t, map[string]string{"main.hcl": src}), Input{})
	if len(d.Moves) != 1 || d.Moves[0].From != "sandbox.web" || d.Moves[0].To != "sandbox.web[0]" {
		t.Errorf("moves = %+v", d.Moves)
	}
	if len(d.Removed) != 1 || d.Removed[0].Address != `volume.cache["old"]` {
		t.Errorf("removed = %+v", d.Removed)
	}
	if len(d.Imports) != 1 || d.Imports[0].To != `volume.cache["a"]` {
		t.Errorf("imports = %+v", d.Imports)
	}
	web := d.Lookup("sandbox.web[0]")
	if web == nil || !strings.Contains(strings.Join(web.DependsOn, ","), `volume.cache["b"]`) || strings.Contains(strings.Join(web.DependsOn, ","), `volume.cache["a"]`) {
		t.Errorf("sandbox.web[0] = %+v, want it to depend on volume.cache[\"b\"]", web)
	}
}

// TestInstanceRefusals checks that each misuse of for_each, count and
// dynamic is an error at its place (issue 12: reuse).
func TestInstanceRefusals(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`volume "v" {
  for_each = ["a", "a"]
  size = "1Gi"
}`, `main.hcl:3:14: for_each has key "a" twice`},
		{`volume "v" {
  for_each = 3
  size = "1Gi"
}`, `main.hcl:3:14: for_each must be a map or a set of strings, not number`},
		{`volume "v" {
  count = 1001
  size = "1Gi"
}`, `main.hcl:3:11: count must be a whole number from 0 to 1000, not 1001`},
		{`volume "v" {
  count = 2
  size = "1Gi"
}
sandbox "s" {
  image = "python:3.12-slim"
  command = ["x"]
  volume_mounts = [{ volume = volume.v.size, path = "/c" }]
}`, `main.hcl:9:31: volume.v has instances: refer to one as volume.v[KEY]`},
		{`volume "v" {
  count = 2
  size = "1Gi"
}
sandbox "s" {
  image = "python:3.12-slim"
  command = ["x"]
  volume_mounts = [{ volume = volume.v[2], path = "/c" }]
}`, `main.hcl:9:31: reference to volume.v[2], an instance volume.v does not have; did you mean volume.v[0]?`},
		{`image "i" {
  from = "python:3.12-slim"
  dynamic "apt" {
    for_each = ["git"]
    each = 1
  }
}`, `main.hcl:6:5: unknown attribute "each" in a dynamic block`},
		{`image "i" {
  from = "python:3.12-slim"
  dynamic "apt" {
    for_each = ["git"]
  }
}`, `main.hcl:4:3: a dynamic block needs a content block`},
		{`image "i" {
  from = "python:3.12-slim"
  dynamic "apt" {
    for_each = 1
    content { packages = ["x"] }
  }
}`, `main.hcl:5:16: for_each of a dynamic block must be a known list, set or map, not number`},
		{`sandbox "s" {
  image = "python:3.12-slim"
  command = ["x"]
}
moved {
  from = sandbox.old["a b"]
  to   = sandbox.s
}`, `main.hcl:7:10: from must name an instance as KIND.NAME["key"] or KIND.NAME[0]`},
		{`secret "s" {
  from_env = "S"
}
volume "v" {
  for_each = secret.s
  size = "1Gi"
}`, `main.hcl:6:14: for_each must not be a secret`},
		{`image "i" {
  from = "python:3.12-slim"
  dynamic "apt" {
    for_each = ["git"]
    iterator = var
    content { packages = [var.value] }
  }
}`, `main.hcl:6:16: the iterator var would hide the references that start with var`},
		// Every instance points at the same place: its errors say whose
		// they are.
		{`sandbox "w" {
  count   = 3
  image   = "python:3.12-slim"
  command = ["x"]
  resources {
    requests {
      cpu = count.index == 1 ? "lots" : "1"
    }
  }
}`, `main.hcl:8:13: sandbox.w[1]: cpu: invalid value "lots"`},
		{`sandbox "w" {
  for_each = toset(["a", "b"])
  image    = "python:3.12-slim"
  command  = ["x", file("${each.key}.txt")]
}`, `main.hcl:5:25: sandbox.w["a"]: Invalid function argument; Invalid value for "path" parameter: no file exists at "a.txt"`},
		{`sandbox "w" {
  image = "python:3.12-slim"
  command = ["x"]
  resources {
    requests {
      cpu = "lots"
    }
  }
}`, `main.hcl:7:13: cpu: invalid value "lots"`},
	} {
		got := compileErrors(t, "main.hcl", map[string]string{"main.hcl": "project = \"p\"\n" + tc.src})
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s\ngives %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestInstanceErrorsOnce: a problem every instance (or several) has is
// one error that names them, not one per instance, for the schema's
// errors and the evaluation's alike.
func TestInstanceErrorsOnce(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`sandbox "w" {
  count   = 30
  image   = "python:3.12-slim"
  command = ["x"]
  resources {
    requests {
      cpu = "lots"
    }
  }
}`, `main.hcl:8:13: sandbox.w[0] and 29 other instances: cpu: invalid value "lots"`},
		{`sandbox "w" {
  count   = 30
  image   = "python:3.12-slim"
  command = ["x", file(count.index == 3 || count.index == 12 ? "nothere.txt" : "main.hcl")]
}`, `main.hcl:5:24: sandbox.w[3] and sandbox.w[12]: Invalid function argument`},
		{`sandbox "w" {
  for_each = toset(["a", "b", "c"])
  image    = "python:3.12-slim"
  command  = ["x", file("nothere.txt")]
}`, `main.hcl:5:26: sandbox.w["a"] and 2 other instances: Invalid function argument`},
	} {
		got := compileErrors(t, "main.hcl", map[string]string{"main.hcl": "project = \"p\"\n" + tc.src})
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s\ngives %s\nwant %s", tc.src, got, tc.want)
		}
		if n := strings.Count(got, "main.hcl:"); n != 1 {
			t.Errorf("%s\ngives %d errors, want 1:\n%s", tc.src, n, got)
		}
	}
}

// TestGenerateInstances checks how cc plan --generate-config-out writes
// an imported instance: in HCL, a block declaring just it (for_each of its
// key, count = 1 for [0]) that compiles to that instance; in CUE, under
// its member key; another index is refused (issue 12: reuse).
func TestGenerateInstances(t *testing.T) {
	gen := func(lang, addr string) (string, error) {
		out, err := Generate(GenerateInput{Lang: lang, Resources: []GenerateResource{{Address: addr, Spec: []byte(`{"size":"1Gi"}`)}}})
		return string(out), err
	}
	for addr, want := range map[string]string{`volume.cache["a"]`: `for_each = toset(["a"])`, "volume.cache[0]": "count = 1"} {
		out, err := gen("hcl", addr)
		if err != nil || !strings.Contains(out, want) || !strings.Contains(out, `volume "cache" {`) {
			t.Fatalf("Generate(hcl, %s) = %s, %v; want %q", addr, out, err, want)
		}
		d := compileOK(t, writeProject(t, map[string]string{"main.hcl": "project = \"g\"\n" + out}), Input{})
		if d.Lookup(addr) == nil {
			t.Errorf("the generated block of %s does not declare it:\n%s", addr, out)
		}
	}
	if out, err := gen("cue", `volume.cache["a"]`); err != nil || !strings.Contains(out, `volumes: "cache[\"a\"]": size: "1Gi"`) {
		t.Errorf("Generate(cue) = %s, %v", out, err)
	}
	if _, err := gen("hcl", "volume.cache[1]"); err == nil || !strings.Contains(err.Error(), "volume.cache[1]: an instance of a count other than [0]") {
		t.Errorf("Generate(hcl, volume.cache[1]) = %v, want a refusal", err)
	}
}

// TestWholeRepeatedResource checks that a repeated resource referred to
// as a whole is the object of its instances (for_each) or the tuple of
// them (count), for for expressions and values() (issue 12: reuse).
func TestWholeRepeatedResource(t *testing.T) {
	src := `
project = "whole"

volume "data" {
  for_each = toset(["x", "y"])
  size     = "1Gi"
}

volume "scratch" {
  count = 2
  size  = "1Gi"
}

sandbox "s" {
  image   = "python:3.12-slim"
  command = ["sleep", "n${length(values(volume.data))}"]
  volume_mounts = concat(
    [for k, v in volume.data : { volume = v, path = "/d/${k}" }],
    [for i, v in volume.scratch : { volume = v, path = "/s/${i}" }],
  )
}
`
	d := compileOK(t, writeProject(t, map[string]string{"main.hcl": src}), Input{})
	s := d.Lookup("sandbox.s")
	if s == nil {
		t.Fatal("no sandbox.s")
	}
	got := strings.Join(s.DependsOn, " ")
	for _, want := range []string{`volume.data["x"]`, `volume.data["y"]`, "volume.scratch[0]", "volume.scratch[1]"} {
		if !strings.Contains(got, want) {
			t.Errorf("sandbox.s depends on %s, not on %s", got, want)
		}
	}
	spec, _ := json.Marshal(s.Spec)
	if !strings.Contains(string(spec), `"sleep","n2"`) || !strings.Contains(string(spec), `"/s/1"`) {
		t.Errorf("spec = %s", spec)
	}
}

// TestDynamicLabelledBlocks checks that dynamic blocks with labels give
// the same desired state as the blocks written out: the quickstart's
// scorers from one dynamic "scorer" block (issue 12: reuse).
func TestDynamicLabelledBlocks(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../examples/quickstart", dir)
	if err := os.Remove(filepath.Join(dir, "main.cue")); err != nil {
		t.Fatal(err)
	}
	want := compileJSON(t, dir, Input{})
	main := filepath.Join(dir, "main.hcl")
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	static := `  scorer "exact_match" {
    inputs           = ["output", "expected"]
    case_insensitive = true
  }
  scorer "levenshtein" {
    inputs = ["output", "expected"]
  }
`
	dynamic := `  dynamic "scorer" {
    for_each = { exact_match = { case_insensitive = true }, levenshtein = {} }
    labels   = [scorer.key]
    content {
      inputs           = ["output", "expected"]
      case_insensitive = lookup(scorer.value, "case_insensitive", null)
    }
  }
`
	if !strings.Contains(string(src), static) {
		t.Fatal("the quickstart's scorers changed: update this test")
	}
	if err := os.WriteFile(main, []byte(strings.Replace(string(src), static, dynamic, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := compileJSON(t, dir, Input{}); string(got) != string(want) {
		t.Errorf("dynamic scorers give\n%s\nwant\n%s", got, want)
	}
}

// TestConfigInstancePathsUnderCollection: the sensitive values of a
// repeated resource's instances are noted at the instances' own paths
// in the assembled configuration, data sources' under data, so that
// CUE's result marks them (putInstances noted data.volumes' under
// volumes). Data blocks refuse count and for_each today; the loader
// is built by hand so that the path cannot go wrong once they do not.
func TestConfigInstancePathsUnderCollection(t *testing.T) {
	l := &hclLoader{resources: map[string]*hclResource{}, ranges: newHCLLocator(), shared: newSharedDefaults()}
	secret := cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("hunter2").Mark(sensitiveMark)})
	add := func(addr string, r *hclResource) {
		r.count = &hclsyntax.Attribute{Name: "count"}
		r.instances = []hclInstance{{key: cty.NumberIntVal(0), member: r.name + "[0]", value: secret}}
		l.resources[addr] = r
		l.order = append(l.order, addr)
	}
	add("data.volume.v", &hclResource{kind: "data", dataKind: schema.KindVolume, name: "v"})
	add("volume.w", &hclResource{kind: "volume", name: "w"})
	cfg := l.config("p", nil)
	got := pathKeys(l.ranges.sensitive)
	want := pathKeys([][]string{{"data", "volumes", "v[0]", "name"}, {"volumes", "w[0]", "name"}})
	if got != want {
		t.Fatalf("sensitive paths %q, want %q", got, want)
	}
	for _, p := range l.ranges.sensitive {
		var at any = cfg
		for _, s := range p {
			m, _ := at.(map[string]any)
			at = m[s]
		}
		if at != "hunter2" {
			t.Errorf("sensitive path %q holds %v in the configuration, not the value", p, at)
		}
	}
}
