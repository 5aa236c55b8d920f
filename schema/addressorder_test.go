package schema

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCompareAddresses(t *testing.T) {
	want := []string{
		"function.api",
		"module.a.sandbox.w[2]",
		"module.a.sandbox.w[10]",
		"sandbox.w",
		"sandbox.w[0]",
		"sandbox.w[1]",
		"sandbox.w[2]",
		"sandbox.w[9]",
		"sandbox.w[10]",
		"sandbox.w[11]",
		"sandbox.w[100]",
		"sandbox.w[999999]",
		`sandbox.w["10"]`,
		`sandbox.w["2"]`,
		`sandbox.w["a"]`,
		"sandbox.w-2",
		"sandbox.w2[3]",
		"sandbox.w2[20]",
		"volume.a",
	}
	for range 20 {
		got := slices.Clone(want)
		rand.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		slices.SortFunc(got, CompareAddresses)
		if !slices.Equal(got, want) {
			t.Fatalf("sorted = %q\nwant     %q", got, want)
		}
	}
}

// TestCompareAddressesOrder: CompareAddresses is a total order (what a
// sort needs) over addresses and malformed strings alike.
func TestCompareAddressesOrder(t *testing.T) {
	parts := []string{"sandbox.w", "sandbox.w2", "module.m.sandbox.w", "x", ""}
	keys := []string{"", "[0]", "[1]", "[2]", "[10]", "[01]", "[]", "[1a]", `["1"]`, `["b"]`, "[", "]", "[3"}
	var all []string
	for _, p := range parts {
		for _, k := range keys {
			all = append(all, p+k)
		}
	}
	for _, a := range all {
		for _, b := range all {
			ab, ba := CompareAddresses(a, b), CompareAddresses(b, a)
			if ab != -ba || (ab == 0) != (a == b) {
				t.Fatalf("CompareAddresses(%q, %q) = %d, and the other way %d", a, b, ab, ba)
			}
			for _, c := range all {
				if ab < 0 && CompareAddresses(b, c) < 0 && CompareAddresses(a, c) >= 0 {
					t.Fatalf("%q < %q < %q but not %q < %q", a, b, c, a, c)
				}
			}
		}
	}
}
