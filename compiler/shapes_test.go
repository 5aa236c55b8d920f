package compiler

import (
	"sort"
	"testing"

	"cc.dev/cc/schema"
)

// TestIssue16ShapesFromSchema: the HCL block shapes read from the schema's
// @cc(block) facts are the hand-written table they replace (issue 16 item
// 1), so HCL accepts and refuses the same blocks as before.
func TestIssue16ShapesFromSchema(t *testing.T) {
	got, want := shapesOf(schema.Default()), handShapes()
	if len(got) != len(want) {
		t.Fatalf("shapes for %d kinds, want %d", len(got), len(want))
	}
	for k := range want {
		sameShape(t, k, got[k], want[k], map[[2]*shape]bool{})
	}
}

func sameShape(t *testing.T, at string, got, want *shape, seen map[[2]*shape]bool) {
	t.Helper()
	if got == nil || want == nil {
		if got != want {
			t.Errorf("%s: shape %v, want %v", at, got, want)
		}
		return
	}
	if seen[[2]*shape{got, want}] {
		return
	}
	seen[[2]*shape{got, want}] = true
	if g, w := keys(got.blocks), keys(want.blocks); !equalSorted(g, w) {
		t.Errorf("%s: blocks %v, want %v", at, g, w)
		return
	}
	for name, w := range want.blocks {
		g := got.blocks[name]
		p := at + "." + name
		if g.field != w.field || g.mode != w.mode {
			t.Errorf("%s: field %s mode %d, want %s %d", p, g.field, g.mode, w.field, w.mode)
		}
		sameShape(t, p, g.shape, w.shape, seen)
		if gl, wl := keys(g.labels), keys(w.labels); !equalSorted(gl, wl) {
			t.Errorf("%s: labels %v, want %v", p, gl, wl)
			continue
		}
		for l := range w.labels {
			sameShape(t, p+"."+l, g.labels[l], w.labels[l], seen)
		}
	}
}

func equalSorted(a, b []string) bool {
	sort.Strings(a)
	sort.Strings(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// handShapes is the table compiler/hclbody.go held before issue 16.

func handShapes() map[string]*shape {
	leaf := &shape{}
	single := func(field string, s *shape) blockSpec { return blockSpec{field: field, mode: blockSingle, shape: s} }
	list := func(field string) blockSpec { return blockSpec{field: field, mode: blockList, shape: leaf} }

	image := &shape{blocks: map[string]blockSpec{}}
	image.blocks["from"] = single("from", image)
	for _, k := range schema.StepKinds {
		image.blocks[k] = blockSpec{field: "steps", mode: blockStep, shape: leaf}
	}
	resources := &shape{blocks: map[string]blockSpec{
		"requests": single("requests", leaf), "limits": single("limits", leaf), "gpu": single("gpu", leaf),
	}}
	sandbox := &shape{blocks: map[string]blockSpec{
		"image":        single("image", image),
		"resources":    single("resources", resources),
		"network":      single("network", leaf),
		"credential":   list("credentials"),
		"volume_mount": list("volume_mounts"),
		"mounted_file": list("mounted_files"),
		"snapshot":     single("snapshot", leaf),
		// issue 11: the sandbox's new blocks.
		"port":     list("ports"),
		"s3_mount": single("s3_mount", leaf),
		"stop":     single("stop", leaf),
	}}
	function := &shape{blocks: map[string]blockSpec{
		"image":        single("image", image),
		"source":       single("source", leaf),
		"resources":    single("resources", resources),
		"volume_mount": list("volume_mounts"),
		"scaling":      single("scaling", leaf),
		// issue 11: the sandbox field groups a function takes.
		"network":      single("network", leaf),
		"credential":   list("credentials"),
		"mounted_file": list("mounted_files"),
		// and seed B's advanced sandbox options.
		"port":     list("ports"),
		"s3_mount": single("s3_mount", leaf),
		"snapshot": single("snapshot", leaf),
	}}
	// issue 11: container, training
	container := &shape{blocks: map[string]blockSpec{
		"image":        single("image", image),
		"resources":    single("resources", resources),
		"port":         list("ports"),
		"health_check": single("health_check", leaf),
		"network":      single("network", leaf),
		"credential":   list("credentials"),
		"volume_mount": list("volume_mounts"),
		"mounted_file": list("mounted_files"),
	}}
	training := &shape{blocks: map[string]blockSpec{
		"image":         single("image", image),
		"resources":     single("resources", resources),
		"dataset_mount": list("dataset_mounts"),
		"volume_mount":  list("volume_mounts"),
	}}
	// issue 11: scaling groups.
	scalingGroup := &shape{blocks: map[string]blockSpec{
		"image":        single("image", image),
		"resources":    single("resources", resources),
		"replicas":     single("replicas", leaf),
		"network":      single("network", leaf),
		"credential":   list("credentials"),
		"volume_mount": list("volume_mounts"),
	}}
	// issue 11: a reply field may be an object of fields or a list of
	// items, each a type with blocks of its own.
	field, items := &shape{}, &shape{}
	field.blocks = map[string]blockSpec{"field": {field: "fields", mode: blockList, shape: field}, "items": single("items", items)}
	items.blocks = field.blocks
	judge := &shape{blocks: map[string]blockSpec{"field": {field: "fields", mode: blockList, shape: field}}}
	scorers := map[string]*shape{}
	for _, k := range schema.ScorerKinds {
		scorers[k] = leaf
	}
	scorers["llm_judge"] = judge
	evaluation := &shape{blocks: map[string]blockSpec{
		"external_task": single("external_task", leaf),
		"scorer":        {field: "scorers", mode: blockLabelled, labels: scorers},
	}}
	secret := &shape{blocks: map[string]blockSpec{
		"from_env_file":    single("from_env_file", leaf),
		"from_integration": single("from_integration", leaf),
		"from_store":       single("from_store", leaf),
	}}
	// Every resource kind but image has a lifecycle block (issue 10).
	lifecycle := single("lifecycle", leaf)
	for _, sh := range []*shape{sandbox, function, container, training, evaluation, secret, scalingGroup} {
		sh.blocks["lifecycle"] = lifecycle
	}
	volume := &shape{blocks: map[string]blockSpec{"lifecycle": lifecycle}}
	dataset := &shape{blocks: map[string]blockSpec{"lifecycle": lifecycle}}
	suite := &shape{blocks: map[string]blockSpec{"lifecycle": lifecycle}}
	return map[string]*shape{
		"image": image, "secret": secret, "volume": volume, "dataset": dataset, "suite": suite,
		"sandbox": sandbox, "function": function, "evaluation": evaluation,
		"container": container, "training": training, "scaling_group": scalingGroup,
	}
}
