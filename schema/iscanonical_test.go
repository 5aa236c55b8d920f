package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// canonicalAgrees reports whether IsCanonical(b) says what Canonical does:
// that it gives b back.
func canonicalAgrees(t *testing.T, b []byte) {
	t.Helper()
	c, err := Canonical(json.RawMessage(b))
	want := err == nil && bytes.Equal(c, b)
	if got := IsCanonical(b); got != want {
		t.Fatalf("IsCanonical(%q) = %v; Canonical gives %q, %v", b, got, c, err)
	}
}

var isCanonicalCases = []struct {
	in   string
	want bool
}{
	{`{}`, true},
	{`[]`, true},
	{`{"a":1,"b":[true,false,null,"x",{}]}`, true},
	{`{"b":1,"a":2}`, false},
	{`{"a":1,"a":1}`, false},
	{` {}`, false},
	{`{} `, false},
	{`{"a": 1}`, false},
	{`{}{}`, false},
	{`1.0`, false},
	{`1.5`, true},
	{`1e21`, false},
	{`1e+21`, true},
	{`1E+21`, false},
	{`0.000001`, true},
	{`1e-7`, true},
	{`-0`, false},
	{`0`, true},
	{`-12`, true},
	{`012`, false},
	{`12345678901234567890123`, true},
	{`"\u0041"`, false},
	{`"\u001f"`, true},
	{`"\u001F"`, false},
	{`"\u000a"`, false},
	{`"\n\r\t\"\\"`, true},
	{`"\b"`, false},
	{`"\/"`, false},
	{"\"\xff\"", false},
	{"\"\xed\xa0\x80\"", false},
	{"\"\xef\xbf\xbd\"", true},
	{"\"é<&>\u2028\"", true},
	{"\"\x01\"", false},
	{`{"a\n":1,"a":2}`, false},
	{`{"a":2,"a\n":1}`, true},
	{`{"\u0001":1,"\u0002":2}`, true},
	{`{"\u0002":1,"\u0001":2}`, false},
	{`tru`, false},
	{`truex`, false},
	{`[1,]`, false},
	{`[1 ,2]`, false},
	{`{"a":1,}`, false},
	{`"abc`, false},
	{`"abc\`, false},
	{`"\u00`, false},
	{``, false},
}

// TestIsCanonical: IsCanonical says what Canonical does, on each case, and
// the cases are what they say they are.
func TestIsCanonical(t *testing.T) {
	for _, c := range isCanonicalCases {
		if got := IsCanonical([]byte(c.in)); got != c.want {
			t.Errorf("IsCanonical(%q) = %v, want %v", c.in, got, c.want)
		}
		canonicalAgrees(t, []byte(c.in))
	}
}

// TestIsCanonicalDepth: nested as deep as encoding/json allows is
// canonical; one more is refused, as Canonical refuses it.
func TestIsCanonicalDepth(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		b := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		canonicalAgrees(t, b)
		if got := IsCanonical(b); got != (n == maxDepth) {
			t.Errorf("depth %d: IsCanonical = %v", n, got)
		}
	}
}

// TestIsCanonicalAllocates: checking a spec allocates nothing.
func TestIsCanonicalAllocates(t *testing.T) {
	b := []byte(`{"command":["python","-m","app"],"cpu":"1500m","env":{"A":"1","B":"x\ny"},"image":"image.web","memory":"2Gi","n":12,"ok":true}`)
	if !IsCanonical(b) {
		t.Fatal("not canonical")
	}
	if n := testing.AllocsPerRun(100, func() { IsCanonical(b) }); n != 0 {
		t.Errorf("IsCanonical allocates %v times", n)
	}
}

// FuzzIsCanonical: on any bytes, IsCanonical says what Canonical does.
func FuzzIsCanonical(f *testing.F) {
	for _, c := range isCanonicalCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		canonicalAgrees(t, b)
	})
}

// BenchmarkIsCanonical checks a function's spec as the service does, read
// once (IsCanonical) and, as before, decoded and encoded again.
//
//	go test ./schema -run '^$' -bench IsCanonical -benchmem
func BenchmarkIsCanonical(b *testing.B) {
	spec := []byte(`{"command":["python","-m","app.main","--port","8080"],"cpu":"1500m","env":{"LOG_LEVEL":"info","MODE":"serve","REGION":"eu-west-1"},"image":"image.app-17","memory":"2Gi","ports":[8080],"retries":3,"timeout":"300s","volumes":{"/data":"volume.data-3"}}`)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if !IsCanonical(spec) {
				b.Fatal("not canonical")
			}
		}
	})
	b.Run("decode+encode", func(b *testing.B) {
		for b.Loop() {
			if c, err := Canonical(json.RawMessage(spec)); err != nil || !bytes.Equal(c, spec) {
				b.Fatal("not canonical")
			}
		}
	})
}
