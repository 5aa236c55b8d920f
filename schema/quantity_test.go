package schema

import (
	"strings"
	"testing"
)

// TestIssue9CanonicalForms: each spelling gives its value's one spelling,
// which is itself a fixed point (issue 9 item 6).
func TestIssue9CanonicalForms(t *testing.T) {
	for _, tc := range []struct {
		form, in, want string
	}{
		{"#CPU", "2", "2"},
		{"#CPU", "2000m", "2"},
		{"#CPU", "2.0", "2"},
		{"#CPU", "0.5", "500m"},
		{"#CPU", ".5", "500m"},
		{"#CPU", "500m", "500m"},
		{"#CPU", "1.250", "1250m"},
		{"#CPU", "0", "0"},
		{"#CPU", "0m", "0"},
		{"#Quantity", "4Gi", "4Gi"},
		{"#Quantity", "4096Mi", "4Gi"},
		{"#Quantity", "4294967296", "4Gi"},
		{"#Quantity", "1.5Gi", "1536Mi"},
		{"#Quantity", "0.5Gi", "512Mi"},
		{"#Quantity", "1000Mi", "1000Mi"},
		{"#Quantity", "2G", "2G"},
		{"#Quantity", "2000M", "2G"},
		{"#Quantity", "2000000000", "2G"},
		{"#Quantity", "1024000", "1000Ki"},
		{"#Quantity", "1500", "1500"},
		{"#Quantity", "1.5k", "1500"},
		{"#Quantity", "1024", "1Ki"},
		{"#Quantity", "0", "0"},
		{"#Quantity", "0.5", "0.5"},
		{"#Quantity", "1.0", "1"},
		{"#Quantity", "1024Ei", "1024Ei"},
		{"#Quantity", "1000E", "1000E"},
		{"#Duration", "3600s", "1h"},
		{"#Duration", "1h", "1h"},
		{"#Duration", "60m", "1h"},
		{"#Duration", "1h0m0s", "1h"},
		{"#Duration", "90m", "1h30m"},
		{"#Duration", "1.5h", "1h30m"},
		{"#Duration", "90s", "1m30s"},
		{"#Duration", "300s", "5m"},
		{"#Duration", "1h0m5s", "1h5s"},
		{"#Duration", "90.5s", "1m30.5s"},
		{"#Duration", "0.5s", "500ms"},
		{"#Duration", "1h500ms", "1h500ms"},
		{"#Duration", "1500us", "1.5ms"},
		{"#Duration", "0s", "0s"},
		{"#Duration", "48h", "48h"},
	} {
		got, err := Forms[tc.form](tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s %q = %q, %v; want %q", tc.form, tc.in, got, err, tc.want)
			continue
		}
		if again, err := Forms[tc.form](got); err != nil || again != got {
			t.Errorf("%s %q: canonical %q is not a fixed point: %q, %v", tc.form, tc.in, got, again, err)
		}
	}
}

// TestIssue9CanonicalFormErrors: a value without a spelling says why.
func TestIssue9CanonicalFormErrors(t *testing.T) {
	for _, tc := range []struct{ form, in, want string }{
		{"#Duration", "9999999h", "longer than 2562047h"},
		{"#Quantity", "4 Gi", "not a quantity"},
		{"#CPU", "", "not a quantity"},
	} {
		if _, err := Forms[tc.form](tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %v, want one saying %q", tc.form, tc.in, err, tc.want)
		}
	}
}

// TestIssue9FieldForms: the schema's fields of the types with a form are
// marked with it, lists too.
func TestIssue9FieldForms(t *testing.T) {
	s := Default()
	for _, tc := range []struct{ def, field, form string }{
		{"#ResourceList", "cpu", "#CPU"},
		{"#ResourceList", "memory", "#Quantity"},
		{"#Volume", "size", "#Quantity"},
		{"#Snapshot", "size", "#Quantity"},
		{"#Sandbox", "lifetime", "#Duration"},
		{"#Function", "timeout", "#Duration"},
		{"#Sandbox", "image", ""},
	} {
		if f := s.Def(tc.def).Field(tc.field); f == nil || f.Form != tc.form {
			t.Errorf("%s.%s: form %v, want %q", tc.def, tc.field, f, tc.form)
		}
	}
	for _, k := range []Kind{KindSandbox, KindFunction, KindVolume} {
		if !s.hasForms(s.Kind(k)) {
			t.Errorf("%s: hasForms false", k)
		}
	}
	if s.hasForms(s.Kind(KindSecret)) {
		t.Errorf("secret: hasForms true")
	}
}

// TestIssue9CanonicalQuantityExact: long fractions keep every digit, so
// two values never share a spelling.
func TestIssue9CanonicalQuantityExact(t *testing.T) {
	long := "0." + strings.Repeat("1", 80)
	got, err := CanonicalQuantity(long)
	if err != nil || got != long {
		t.Errorf("CanonicalQuantity(%s) = %s, %v", long, got, err)
	}
	if got, _ := CanonicalQuantity("0.0005Ki"); got != "0.512" {
		t.Errorf("CanonicalQuantity(0.0005Ki) = %s, want 0.512", got)
	}
}

// FuzzCanonicalForms: a canonical spelling is a fixed point with the same
// value, and never a panic (issue 9 item 6).
func FuzzCanonicalForms(f *testing.F) {
	for _, s := range []string{"2", "2000m", "0.5", "4Gi", "1.5Gi", "1024000", "3600s", "1h30m", "0.5s", "99999999h", "1e3", ".5Ki"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, form := range Forms {
			c, err := form(s)
			if err != nil {
				continue
			}
			again, err := form(c)
			if err != nil || again != c {
				t.Fatalf("%s %q: canonical %q gives %q, %v", name, s, c, again, err)
			}
			if name == "#Duration" {
				continue
			}
			a, _ := ParseQuantity(s)
			b, err := ParseQuantity(c)
			if err != nil || a.Cmp(b) != 0 {
				t.Fatalf("%s %q = %s, canonical %q = %v, %v", name, s, a, c, b, err)
			}
		}
	})
}
