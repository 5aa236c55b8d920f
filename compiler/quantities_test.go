package compiler

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// spellingProject is a project with a value of every quantity and duration
// field of the schema's kinds: cpu, memory, sizes, lifetime and timeout.
func spellingProject(lang, cpu, mem, size, dur string) map[string]string {
	r := strings.NewReplacer("CPU", cpu, "MEM", mem, "SIZE", size, "DUR", dur, "BASE", pinnedBase)
	if lang == "cue" {
		return map[string]string{"src/main.py": "def run(): pass\n", "main.cue": r.Replace(`package p
project: "p"
images: base: from: "BASE"
volumes: data: size: "SIZE"
sandboxes: dev: {
	image: images.base
	resources: {
		requests: {cpu: "CPU", memory: "MEM"}
		limits: {cpu: "CPU", memory: "MEM"}
	}
	snapshot: {mount_path: "/work", size: "SIZE"}
	lifetime: "DUR"
}
functions: api: {
	image: images.base
	source: paths: ["src"]
	handler: "main:run"
	timeout: "DUR"
	resources: limits: {cpu: "CPU", memory: "MEM"}
}
`)}
	}
	return map[string]string{"src/main.py": "def run(): pass\n", "main.hcl": r.Replace(`project = "p"
image "base" { from = "BASE" }
volume "data" { size = "SIZE" }
sandbox "dev" {
  image = image.base
  resources {
    requests {
      cpu    = "CPU"
      memory = "MEM"
    }
    limits {
      cpu    = "CPU"
      memory = "MEM"
    }
  }
  snapshot {
    mount_path = "/work"
    size       = "SIZE"
  }
  lifetime = "DUR"
}
function "api" {
  image = image.base
  source { paths = ["src"] }
  handler = "main:run"
  timeout = "DUR"
  resources {
    limits {
      cpu    = "CPU"
      memory = "MEM"
    }
  }
}
`)}
}

func compileSpelling(t *testing.T, lang, cpu, mem, size, dur string) *schema.Desired {
	t.Helper()
	dir := writeProject(t, spellingProject(lang, cpu, mem, size, dur))
	return compileOK(t, filepath.Join(dir, "main."+lang), Input{})
}

// TestIssue9EqualSpellingsHashEqual: every pair of spellings of one value
// compiles to the same hashes, in both languages, and a project respelled
// after an apply plans no change (issue 9 item 6, acceptance 2). Before,
// "2" and "2000m" replaced the sandbox and "3600s" and "1h" updated it.
func TestIssue9EqualSpellingsHashEqual(t *testing.T) {
	type spelling struct{ cpu, mem, size, dur string }
	base := spelling{"2", "4Gi", "20Gi", "1h"}
	for _, tc := range []struct {
		name string
		alt  spelling
	}{
		{"cpu 2000m", spelling{"2000m", base.mem, base.size, base.dur}},
		{"cpu 2.0", spelling{"2.0", base.mem, base.size, base.dur}},
		{"cpu 2.000", spelling{"2.000", base.mem, base.size, base.dur}},
		{"memory 4096Mi", spelling{base.cpu, "4096Mi", base.size, base.dur}},
		{"memory 4194304Ki", spelling{base.cpu, "4194304Ki", base.size, base.dur}},
		{"memory bytes", spelling{base.cpu, "4294967296", base.size, base.dur}},
		{"size 20480Mi", spelling{base.cpu, base.mem, "20480Mi", base.dur}},
		{"size 0.01953125Ti", spelling{base.cpu, base.mem, "0.01953125Ti", base.dur}},
		{"duration 3600s", spelling{base.cpu, base.mem, base.size, "3600s"}},
		{"duration 60m", spelling{base.cpu, base.mem, base.size, "60m"}},
		{"duration 1h0m0s", spelling{base.cpu, base.mem, base.size, "1h0m0s"}},
		{"duration 0.5h30m", spelling{base.cpu, base.mem, base.size, "0.5h30m"}},
		{"duration ms", spelling{base.cpu, base.mem, base.size, "3600000ms"}},
	} {
		for _, lang := range []string{"cue", "hcl"} {
			t.Run(tc.name+"/"+lang, func(t *testing.T) {
				d1 := compileSpelling(t, lang, base.cpu, base.mem, base.size, base.dur)
				d2 := compileSpelling(t, lang, tc.alt.cpu, tc.alt.mem, tc.alt.size, tc.alt.dur)
				if len(d1.Resources) != len(d2.Resources) {
					t.Fatalf("%d resources, respelled %d", len(d1.Resources), len(d2.Resources))
				}
				for i := range d1.Resources {
					a, b := d1.Resources[i], d2.Resources[i]
					if a.Address != b.Address || a.Hash != b.Hash {
						t.Errorf("%s %s, respelled %s %s\n%s\n%s", a.Address, a.Hash, b.Address, b.Hash, a.Spec, b.Spec)
					}
				}
				p, err := planner.Diff(d2, appliedState(d1), planner.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Changes) != 0 {
					t.Errorf("respelled project plans %d changes, want none: %+v", len(p.Changes), p.Changes)
				}
			})
		}
	}
}

// TestIssue9CanonicalSpellingInSpec: the spec holds the canonical spelling
// of each quantity and duration, whatever was written (issue 9 item 6).
func TestIssue9CanonicalSpellingInSpec(t *testing.T) {
	d := compileSpelling(t, "cue", "1500m", "1.5Gi", "2000M", "5400s")
	sb := specOf(t, d, "sandbox.dev")
	res := sb["resources"].(map[string]any)
	req := res["requests"].(map[string]any)
	if req["cpu"] != "1500m" || req["memory"] != "1536Mi" {
		t.Errorf("requests = %v, want cpu 1500m, memory 1536Mi", req)
	}
	if sb["lifetime"] != "1h30m" {
		t.Errorf("lifetime = %v, want 1h30m", sb["lifetime"])
	}
	if sz := sb["snapshot"].(map[string]any)["size"]; sz != "2G" {
		t.Errorf("snapshot.size = %v, want 2G", sz)
	}
	if sz := specOf(t, d, "volume.data")["size"]; sz != "2G" {
		t.Errorf("volume size = %v, want 2G", sz)
	}
	if to := specOf(t, d, "function.api")["timeout"]; to != "1h30m" {
		t.Errorf("function timeout = %v, want 1h30m", to)
	}
}

// TestIssue9FormsFollowTheSchema: a field the schema types #Duration is
// canonicalized though no Go code names it: the rule is the schema's type
// (issue 9 item 6).
func TestIssue9FormsFollowTheSchema(t *testing.T) {
	s := schemaCopy(t, "workload.cue", "\ttemp_dir?: #AbsPath @cc(replace)\n",
		"\ttemp_dir?: #AbsPath @cc(replace)\n\tidle?: #Duration\n\tdisks?: [...#Quantity]\n")
	compile := func(idle, disk string) *schema.Desired {
		src := `package p
project: "p"
images: base: from: "` + pinnedBase + `"
sandboxes: dev: {image: images.base, idle: "` + idle + `", disks: ["` + disk + `"]}
`
		res, err := Compile(context.Background(), Input{Path: filepath.Join(writeProject(t, map[string]string{"main.cue": src}), "main.cue"), Schema: s})
		if err != nil {
			t.Fatal(err)
		}
		return res.Desired
	}
	a, b := compile("1h", "1Gi"), compile("3600s", "1024Mi")
	if ha, hb := a.Lookup("sandbox.dev").Hash, b.Lookup("sandbox.dev").Hash; ha != hb {
		t.Errorf("hashes %s and %s differ:\n%s\n%s", ha, hb, a.Lookup("sandbox.dev").Spec, b.Lookup("sandbox.dev").Spec)
	}
}

// TestIssue9RequestsOverLimits: requests above limits are an error at the
// request naming the limit's position; equal values in other spellings
// are not (issue 9 item 2). Before, both compiled.
func TestIssue9RequestsOverLimits(t *testing.T) {
	src := func(reqCPU, limCPU string) string {
		return `project = "p"
image "base" { from = "` + pinnedBase + `" }
sandbox "dev" {
  image = image.base
  resources {
    requests { cpu = "` + reqCPU + `" }
    limits { cpu = "` + limCPU + `" }
  }
}
`
	}
	dir := writeProject(t, map[string]string{"main.hcl": src("2001m", "2")})
	_, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.hcl")})
	if err == nil || !strings.Contains(err.Error(), `main.hcl:6:22: requests.cpu "2001m" is more than limits.cpu "2" (set at `) ||
		!strings.Contains(err.Error(), `main.hcl:7:20)`) {
		t.Fatalf("Compile() error = %v, want requests.cpu over limits.cpu at both positions", err)
	}
	dir = writeProject(t, map[string]string{"main.hcl": src("2000m", "2")})
	compileOK(t, filepath.Join(dir, "main.hcl"), Input{})
}
