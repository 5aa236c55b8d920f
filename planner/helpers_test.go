package planner_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"testing"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// res makes a desired resource with a canonical spec.
func res(t testing.TB, addr string, spec any, deps ...string) schema.Resource {
	t.Helper()
	h, b, err := schema.HashOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	k := schema.KindOf(addr)
	return schema.Resource{Address: addr, Kind: k, Name: strings.TrimPrefix(addr, string(k)+"."), Hash: h, Spec: b, DependsOn: deps}
}

func desired(rs ...schema.Resource) *schema.Desired {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Address < rs[j].Address })
	return &schema.Desired{FormatVersion: schema.FormatVersion, Project: "p", Resources: rs, Root: "/nonexistent"}
}

// applied is the state a service holds after applying d at serial: every
// versioned resource at version 1, every image value kept.
func applied(d *schema.Desired, serial int64) *planner.State {
	st := &planner.State{Project: d.Project, Serial: serial}
	for _, r := range d.Resources {
		addrs := []string{r.Address}
		for _, a := range r.Aliases {
			addrs = append(addrs, "image."+a)
		}
		for _, a := range addrs {
			pr := planner.Resource{Address: a, Kind: r.Kind, Hash: r.Hash, Spec: r.Spec, Sensitive: r.Sensitive, DependsOn: r.DependsOn}
			if r.Kind.Versioned() {
				pr.Version = 1
				pr.Versions = []planner.Version{{Version: 1, Hash: r.Hash}}
			}
			st.Resources = append(st.Resources, pr)
		}
		if r.Kind == schema.KindImage {
			st.Images = append(st.Images, planner.Image{Hash: r.Hash, Spec: r.Spec, Sensitive: r.Sensitive})
		}
	}
	sort.Slice(st.Resources, func(i, j int) bool { return st.Resources[i].Address < st.Resources[j].Address })
	sort.Slice(st.Images, func(i, j int) bool { return st.Images[i].Hash < st.Images[j].Hash })
	return st
}

func diff(t testing.TB, d *schema.Desired, st *planner.State, o planner.Options) *planner.Plan {
	t.Helper()
	p, err := planner.Diff(d, st, o)
	if err != nil {
		t.Fatalf("Diff() = %v", err)
	}
	return p
}

func change(t testing.TB, p *planner.Plan, addr string) *planner.Change {
	t.Helper()
	for i := range p.Changes {
		if p.Changes[i].Addr == addr {
			return &p.Changes[i]
		}
	}
	t.Fatalf("the plan has no change of %s; it has %v", addr, addrs(p))
	return nil
}

func addrs(p *planner.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Addr+":"+c.Action.String())
	}
	return out
}

func reasons(c *planner.Change) string {
	var out []string
	for _, r := range c.Reasons {
		out = append(out, r.Message)
	}
	return strings.Join(out, "\n")
}

// renderAll renders a plan in every format.
func renderAll(t testing.TB, p *planner.Plan) map[string]string {
	t.Helper()
	out := map[string]string{}
	var b bytes.Buffer
	if err := planner.WriteText(&b, p, planner.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out["text"] = b.String()
	b.Reset()
	if err := planner.WriteText(&b, p, planner.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	out["color"] = b.String()
	b.Reset()
	if err := planner.WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	out["json"] = b.String()
	b.Reset()
	if err := planner.WriteMarkdown(&b, p, planner.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	out["markdown"] = b.String()
	return out
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// content is an in-memory planner.Content.
type content struct {
	trees map[string][]schema.TreeEntry
	files map[string][]byte
}

func (c *content) Tree(d string) ([]schema.TreeEntry, bool) { t, ok := c.trees[d]; return t, ok }
func (c *content) File(d string) ([]byte, bool)             { b, ok := c.files[d]; return b, ok }

// tree makes a tree of files, recording it and the files' contents.
func (c *content) tree(t testing.TB, files map[string]string) string {
	t.Helper()
	var entries []schema.TreeEntry
	for p, text := range files {
		d := digest(text)
		c.files[d] = []byte(text)
		entries = append(entries, schema.TreeEntry{Path: p, Mode: "0644", Size: int64(len(text)), Digest: d})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	h, _, err := schema.HashOf(entries)
	if err != nil {
		t.Fatal(err)
	}
	c.trees[h] = entries
	return h
}

func newContent() *content {
	return &content{trees: map[string][]schema.TreeEntry{}, files: map[string][]byte{}}
}
