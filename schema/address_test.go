package schema

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// issue 12: instances and modules. Address and ParseAddress are inverses
// over every form, and ParseAddress refuses what no compiler makes.
func TestAddressForms(t *testing.T) {
	good := []struct {
		addr   string
		kind   Kind
		member string
	}{
		{"sandbox.web", KindSandbox, "web"},
		{`sandbox.worker["a"]`, KindSandbox, `worker["a"]`},
		{`sandbox.worker["us-east-1.b_2"]`, KindSandbox, `worker["us-east-1.b_2"]`},
		{"sandbox.worker[0]", KindSandbox, "worker[0]"},
		{"sandbox.worker[999999]", KindSandbox, "worker[999999]"},
		{"module.api.sandbox.web", KindSandbox, "module.api.web"},
		{"module.api.module.db.volume.data[2]", KindVolume, "module.api.module.db.data[2]"},
		{"scaling_group.api", KindScalingGroup, "api"},
		{"image.0123456789ab", KindImage, "0123456789ab"},
		{"module.m.image.base", KindImage, "module.m.base"},
	}
	for _, g := range good {
		k, m, ok := ParseAddress(g.addr)
		if !ok || k != g.kind || m != g.member {
			t.Errorf("ParseAddress(%q) = %q, %q, %v; want %q, %q", g.addr, k, m, ok, g.kind, g.member)
		}
		if a := Address(g.kind, g.member); a != g.addr {
			t.Errorf("Address(%q, %q) = %q; want %q", g.kind, g.member, a, g.addr)
		}
		if KindOf(g.addr) != g.kind {
			t.Errorf("KindOf(%q) = %q", g.addr, KindOf(g.addr))
		}
		if !ValidMember(g.kind, g.member) {
			t.Errorf("ValidMember(%q, %q) = false", g.kind, g.member)
		}
	}
	bad := []string{
		"", "sandbox", "sandbox.", "nokind.web", "sandbox.Web", "sandbox.web[", "sandbox.web[]",
		"sandbox.web[01]", "sandbox.web[1000000]", "sandbox.web[-1]", `sandbox.web["a"][0]`,
		`sandbox.web[""]`, `sandbox.web["a b"]`, `sandbox.web["a\"]`, `sandbox.web['a']`, `sandbox.web["-a"]`,
		"sandbox.web[0]x", "module.sandbox.web", "module..sandbox.web", "module.API.sandbox.web",
		"sandbox.0123456789ab", "image.0123456789ab[0]", "module.api.web", `sandbox.web["` + strings.Repeat("a", 64) + `"]`,
	}
	for _, a := range bad {
		if k, m, ok := ParseAddress(a); ok {
			t.Errorf("ParseAddress(%q) = %q, %q, ok; want refused", a, k, m)
		}
	}
	if b, key := BaseAddress(`module.a.sandbox.w["x"]`), InstanceKey(`module.a.sandbox.w["x"]`); b != "module.a.sandbox.w" || key != `["x"]` {
		t.Errorf("BaseAddress/InstanceKey = %q, %q", b, key)
	}
}

// issue 12: the schema's #Address and #Member take exactly the forms
// ParseAddress takes (for kinds other than images, which #Address leaves
// out).
func TestAddressSchemaPatternsAgree(t *testing.T) {
	src, err := os.ReadFile("config.cue")
	if err != nil {
		t.Fatal(err)
	}
	pattern := func(def string) *regexp.Regexp {
		m := regexp.MustCompile(`(?m)^` + def + `: =~(".*")$`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("config.cue has no %s: =~\"...\"", def)
		}
		s, err := strconv.Unquote(string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(s)
	}
	addrRE, memberRE := pattern("#Address"), pattern("#Member")
	for _, a := range []string{"sandbox.web", `sandbox.worker["a"]`, "sandbox.worker[0]", "module.api.sandbox.web",
		"sandbox.web[01]", `sandbox.web["a b"]`, "module.api.web", "sandbox.Web", "scaling_group.x[3]", "volume.v[1000000]"} {
		_, m, ok := ParseAddress(a)
		if got := addrRE.MatchString(a); got != ok {
			t.Errorf("#Address matches %q: %v; ParseAddress: %v", a, got, ok)
		}
		if ok && !memberRE.MatchString(m) {
			t.Errorf("#Member refuses %q", m)
		}
	}
}
