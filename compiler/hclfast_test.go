package compiler

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"cc.dev/cc/compiler/workload"
)

// fastChunkPos is a position a piece of a file cut by splitPoints may
// start at, which fastParseConfig must count from as hclsyntax does.
var fastChunkPos = hcl.Pos{Line: 40, Column: 1, Byte: 1234}

// fastTakes are constructs of the subset fastParseConfig parses itself.
var fastTakes = map[string]string{
	"empty":              "",
	"newlines":           "\n\n",
	"only comment":       "# only a comment",
	"comment line":       "# a comment\n",
	"block comment":      "/* c */",
	"blank start":        "  \n\t a = 1\n",
	"attribute":          "a = 1\n",
	"no final newline":   "a = 1",
	"string":             "a = \"x\"\n",
	"empty string":       "a = \"\"\n",
	"escapes":            "a = \"a\\nb\\tc\\rd\\\"e\\\\f\"\n",
	"template escapes":   "a = \"$${x} %%{y} $${\"\n",
	"dollar percent":     "a = \"a$b%c$ %\"\n",
	"tab in string":      "a = \"tab\there\"\n",
	"interpolation":      "a = \"${x}\"\nb = \"${1}\"\nc = \"${\"x\"}\"\n",
	"templates":          "a = \"x-${var.env}-y\"\nb = \"${a}${b}\"\nc = \"${a}c\"\nd = \"c${a.b[0]}\"\n",
	"template escapes 2": "a = \"a $${x} ${y} %%{z} $\"\n",
	"nested templates":   "a = \"${f(\"${x}-${y}\", [1])}\"\n",
	"long interp":        "a = \"x${\n  y # c\n}z\"\nb = 1\n",
	"template keys":      "a = { \"${a}\" = 1, \"x${b}\": 2 }\n",
	"numbers":            "a = 0\nb = 12345678901234567890123\nc = 1.5\nd = 1e10\ne = 1.5E-3\nf = 007\ng = 2e+2\n",
	"literals":           "a = true\nb = false\nc = null\n",
	"empty tuple":        "a = []\n",
	"tuple":              "a = [1, \"2\", true,]\n",
	"wide tuples":        "a = [" + strings.Repeat("1, ", 40) + "]\nb = [" + strings.Repeat("\"x\", ", 100) + "]\n",
	"wide object":        "a = {" + strings.Repeat("k = 1\n", 100) + "}\n",
	"long tuple":         "a = [\n  1,\n  2\n]\nb = [\n  \"x\",\n  \"y\",\n]\n",
	"nested tuples":      "a = [[1], [2, [3]], []]\n",
	"tuple comments":     "a = [ # c\n 1 /* x */, 2 // y\n, 3]\n",
	"empty object":       "a = {}\nb = {\n}\n",
	"object":             "a = { k = 1, \"k2\" = 2 \n k3: 3 }\n",
	"long object":        "env = {\n  INDEX     = \"0\"\n  LOG_LEVEL = \"info\",\n  API_KEY   = secret.key-0\n}\n",
	"object trailing":    "a = { a = 1, }\nb = {\n  a = 1,\n}\n",
	"nested objects":     "a = { b = { c = [1, { d = 2 }] } }\n",
	"object odd keys":    "a = { true = 1, a.b = 2, f(1) = 3, 4 = 5 }\n",
	"object comments":    "a = { # c\n  b = 1 # d\n  /* e */ c = 2 // f\n}\n",
	"references":         "a = image.img-0\nb = var.x\nc = a.b.c\nd = a-1\n",
	"indexes":            "a = a[0]\nb = a[\"k\"].b[1]\nc = a[1.5][true][null]\n",
	"spaced reference":   "a = a . b [ 0 ]\nb = [a\n.b\n[\n1]]\n",
	"calls":              "a = f()\nb = f(x, y)\nc = f(\n  x,\n  y,\n)\nd = upper(\"x\")\ne = f(g(1), [2], { a = 1 })\n",
	"for as a name":      "for = 1\nb = for\nc = [1, for]\n",
	"blocks":             "b {}\nc {\n}\nd \"l\" {\n  a = 1\n}\ne l1 \"l2\" {\n}\n",
	"one-line blocks":    "apt { packages = [\"curl\"] }\nb \"x\" { a = { b = 1 } }\n",
	"nested blocks":      "a {\n  b {\n    c \"x\" {\n      d = 1\n    }\n  }\n  e { f = 2 }\n}\n",
	"block comments":     "b { a = 1 } # c\nc { # c\n  a = 1\n}\nd {\n  /* c */ }\n",
	"block at the end":   "b {\n}",
	"empty one-line":     "b { }\nc {/**/}\n",
	"comments":           "a = 1 # c\nb = 1 // c\n/* multi\nline */ c = 1\nd = 1 /* c */\ne = 1\n# the end",
	"comment in block":   "b \"x\" /* c\n */ {\n  a = 1\n}\n",
	"tabs":               "b {\n\ta\t=\t\"x\"\n\tc = [\t1,\t2]\n}\n",
	"label escapes":      "b \"a\\\"b\" \"$${c}\" {\n}\n",
	"underscores":        "_a = _b._c\n",
	"workload sandbox":   "sandbox \"box-0\" {\n  image   = image.img-0\n  command = [\"sleep\", \"infinity\"]\n  resources {\n    requests {\n      cpu    = \"500m\"\n    }\n  }\n}\n",
	"operators":          "a = 1 + 2\nb = x * 2 - 1\nc = a || b && c\nd = a == b\ne = a != b\nf = a >= 1\ng = a <= 1\nh = a > 1\ni = a < 1\nj = a / 2 % 3\n",
	"precedence":         "a = 1 + 2 * 3 - 4 / 5 % 6\nb = a || b && c == d != e < f + g * h\nc = [1 +\n 2, \"${a + b}\"]\n",
	"unary":              "a = -1\nb = !x\nc = - - 1\nd = -x.y[0]\ne = !(a && b)\nf = -f(1) * 2\n",
	"parentheses":        "a = (1)\nb = (a\n+ b)\nc = { (k) = 1, (\"j\"): 2 }\nd = ((a))\n",
	"conditional":        "a = x ? 1 : 2\nb = x ? y ? 1 : 2 : 3\nc = [x ?\n 1 : 2]\nd = { a = x ? 1 : 2, b: y ? 3 : 4 }\ne = a == b ? c + 1 : -d\n",
	"number minus":       "a = 1-2\nb = 1 -2\nc = 1e-2-3\n",
	"comment or divide":  "a = 1 // c\nb = 2 /* c */ / 3\nc = 4 # d\n",
	"replicas":           "min = var.replicas\nmax = var.replicas * 2\n",
	"index expressions":  "a = b[c]\nb = b[c].d[0][e]\nc = b[c][d]\nd = b[\"${x}\"]\ne = b[\"x${y}\"].z\nf = b[1 + 2]\n",
	"relative steps":     "a = \"x\".y\nb = [1][0]\nc = f(x).y[0].z\nd = true.x\ne = (b).c\nf = { a = 1 }.a\ng = \"${x}\".y\nh = -a[b].c\n",
	"index newlines":     "a = b[\n  c\n]\nb = [x\n[y]]\n",
	"block after attrs":  "a = 1\nb {\n}\nc = 2\n",
	"attribute, block":   "b = {\n}\nb {\n}\n",
}

// fastRefuses are inputs fastParseConfig leaves to hclsyntax: other
// syntax, and errors.
var fastRefuses = map[string]string{
	"strip before":       "a = \"x ${~ y}\"\n",
	"strip after":        "a = \"${y ~} x\"\n",
	"empty interp":       "a = \"${}\"\n",
	"open interp":        "a = \"${x\"\n",
	"interp two values":  "a = \"${x y}\"\n",
	"interp at EOF":      "a = \"${",
	"directive":          "a = \"%{if x}y%{endif}\"\n",
	"heredoc":            "a = <<EOT\nx\nEOT\n",
	"splat":              "a = b[*].c\n",
	"attribute splat":    "a = b.*.c\n",
	"legacy index":       "a = b.0\n",
	"tuple for":          "a = [for x in y : x]\n",
	"object for":         "a = {\n for k, v in y : k => v }\n",
	"bare for":           "a = [for]\n",
	"expanded argument":  "a = f(x...)\n",
	"namespace":          "a = ns::f()\n",
	"unicode escape":     "a = \"\\u00e9\"\n",
	"bad escape":         "a = \"\\$\"\n",
	"non-ASCII":          "a = \"\u00e9\"\n",
	"non-ASCII comment":  "# \u00e9\na = 1\n",
	"BOM":                "\ufeffa = 1\n",
	"CRLF":               "a = 1\r\n",
	"control byte":       "a = \"\x01\"\n",
	"DEL":                "a = \"\x7f\"\n",
	"NUL in comment":     "# \x00\na = 1\n",
	"open string":        "a = \"x\n",
	"string at EOF":      "a = \"x",
	"duplicate":          "a = 1\na = 2\n",
	"no value":           "a =\n",
	"no value at EOF":    "a = ",
	"equals equals":      "a == 1\n",
	"fat arrow":          "a => 1\n",
	"two attributes":     "b { a = 1 b = 2 }\n",
	"one-line block":     "b { c {} }\n",
	"open one-line":      "b { a = 1\n}\n",
	"one-line comma":     "b { a = 1, }\n",
	"stray brace":        "}\n",
	"two values":         "a = 1 2\n",
	"comma after":        "a = 1,\n",
	"double dollar":      "a = \"$$x\"\n",
	"triple dollar":      "a = \"$$${x}\"\n",
	"quoted name":        "\"a\" = 1\n",
	"number step":        "a = 1.foo\n",
	"number dot":         "a = 1.\n",
	"number letter":      "a = 1x\n",
	"number exponent":    "a = 1e\n",
	"number dots":        "a = 1.2.3\n",
	"open comment":       "/* never closed\na = 1\n",
	"missing comma":      "a = [\n 1\n 2]\n",
	"object two items":   "a = {\n b = 1 c = 2 }\n",
	"label template":     "b \"${x}\" {\n}\n",
	"block newline":      "b\n{\n}\n",
	"open block":         "b {\n",
	"open tuple":         "a = [1,\n",
	"open object":        "a = {\n",
	"dot newline":        "a = b.\nc\n",
	"newline in object":  "a = {\n b\n = 1 }\n",
	"separator colons":   "a = { b :: c }\n",
	"after block":        "b {\n} c = 1\n",
	"one-line after":     "b { a = 1 } c\n",
	"semicolon":          "a = 1;\n",
	"heredoc operand":    "a = 1 + <<EOT\nx\nEOT\n",
	"bitwise or":         "a = 1 | 2\n",
	"bitwise and":        "a = 1 & 2\n",
	"power":              "a = 2 ** 3\n",
	"open paren":         "a = (1\n",
	"paren newline":      "a = (1\n\n",
	"conditional line":   "a = x ?\n 1 : 2\n",
	"missing false":      "a = x ? 1\n",
	"conditional colons": "a = x ? 1 :: 2\n",
	"not equals start":   "a = != 1\n",
	"operator newline":   "a = 1 +\n 2\n",
	"dangling operator":  "a = 1 +\n",
	"operator at EOF":    "a = 1 *",
	"double negation":    "a = !!\n",
	"arrow":              "a = b -> c\n",
	"shift":              "a = b >> c\n",
	"deep conditional":   "a = " + strings.Repeat("x ? ", 200) + "1" + strings.Repeat(" : 2", 200) + "\n",
	"deep negation":      "a = " + strings.Repeat("-", 200) + "1\n",
	"index open":         "a = b[c\n",
	"index newline":      "a = b\n[c]\n",
	"full splat":         "a = b[*]\n",
	"dot number":         "a = b[0].0\n",
	"deep":               "a = " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	"deep blocks":        strings.Repeat("a {\n", 200) + strings.Repeat("}\n", 200),
}

// fastSame checks, when fastParseConfig takes src, that hclsyntax parses
// it with no diagnostic into the very same body, and says whether it was
// taken. It calls fastParse, so that a panic shows.
func fastSame(t *testing.T, name string, src []byte, start hcl.Pos) bool {
	t.Helper()
	got, ok := fastParse(src, "main.hcl", start)
	if !ok {
		if got != nil {
			t.Errorf("%s: refused with a body", name)
		}
		return false
	}
	file, diags := hclsyntax.ParseConfig(src, "main.hcl", start)
	if len(diags) > 0 {
		t.Errorf("%s: taken, but hclsyntax says %v", name, diags)
		return true
	}
	want := file.Body.(*hclsyntax.Body)
	if !reflect.DeepEqual(got, want) {
		diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true }))
		t.Errorf("%s: the body differs from hclsyntax's (-want +got):\n%s", name, diff)
	}
	return true
}

// fastStarts are the positions the tests parse from.
var fastStarts = []hcl.Pos{hcl.InitialPos, fastChunkPos, {Line: 3, Column: 5, Byte: 7}}

// TestFastParseMatchesHCLSyntax checks that whatever fastParseConfig
// takes, among the constructs of its subset, the inputs it must refuse,
// every HCL file of the repository and generated workloads, it parses as
// hclsyntax does, from the start of a file and from within one.
func TestFastParseMatchesHCLSyntax(t *testing.T) {
	for _, start := range fastStarts {
		for name, src := range fastTakes {
			fastSame(t, name, []byte(src), start)
		}
		for name, src := range fastRefuses {
			if fastSame(t, name, []byte(src), start) {
				t.Errorf("%s: taken, which fastParseConfig should leave to hclsyntax", name)
			}
		}
		for _, f := range fastRepoHCLFiles(t) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fastSame(t, f, src, start)
		}
		for _, o := range fastWorkloads() {
			fastSame(t, "workload", workload.HCL(o), start)
		}
	}
}

// fastWorkloads are the shapes of generated workload the tests parse.
func fastWorkloads() []workload.Options {
	return []workload.Options{
		{N: 2000},
		{N: 300, Seed: 3, Changed: 20},
		{N: 200, ImageShare: 0.9, CopyBytes: 100},
		{N: 1},
	}
}

// fastRepoHCLFiles are the .hcl files anywhere in the module.
func fastRepoHCLFiles(t *testing.T) []string {
	var out []string
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".hcl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no HCL files found")
	}
	return out
}

// TestFastParseCovers checks that fastParseConfig takes what it is for:
// the generated workloads, whole and in the pieces splitPoints cuts them
// into, and every construct of its subset.
func TestFastParseCovers(t *testing.T) {
	for name, src := range fastTakes {
		for _, start := range fastStarts {
			if !fastSame(t, name, []byte(src), start) {
				t.Errorf("%s: refused from %v", name, start)
			}
		}
	}
	dir := t.TempDir()
	if err := workload.Write(dir, workload.Options{N: 2000}); err != nil {
		t.Fatal(err)
	}
	main, err := os.ReadFile(filepath.Join(dir, "main.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if !fastSame(t, "main.hcl", main, hcl.InitialPos) {
		t.Error("the generated main.hcl was refused")
	}
	for _, o := range fastWorkloads() {
		src := workload.HCL(o)
		if !fastSame(t, "workload", src, hcl.InitialPos) {
			t.Errorf("workload %+v refused", o)
		}
		last := cut{line: 1}
		for _, c := range append(splitPoints(src, 4<<10), cut{byte: len(src)}) {
			pos := hcl.Pos{Line: last.line, Column: 1, Byte: last.byte}
			if !fastSame(t, "workload piece", src[last.byte:c.byte:c.byte], pos) {
				t.Errorf("workload %+v: the piece at %v refused", o, pos)
			}
			last = c
		}
	}
}

// FuzzFastParse checks, on any bytes, that what fastParseConfig takes
// hclsyntax parses with no diagnostic into the same body.
func FuzzFastParse(f *testing.F) {
	for _, src := range fastTakes {
		f.Add([]byte(src))
	}
	for _, src := range fastRefuses {
		f.Add([]byte(src))
	}
	f.Add(workload.HCL(workload.Options{N: 8}))
	f.Fuzz(func(t *testing.T, src []byte) {
		fastSame(t, "fuzzed", src, hcl.InitialPos)
		fastSame(t, "fuzzed", src, fastChunkPos)
	})
}

// BenchmarkFastParse compares fastParseConfig with hclsyntax.ParseConfig
// on the main.hcl of a 10,000-resource workload.
func BenchmarkFastParse(b *testing.B) {
	src := workload.HCL(workload.Options{N: 10000})
	if _, ok := fastParseConfig(src, "main.hcl", hcl.InitialPos); !ok {
		b.Fatal("the workload was refused")
	}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			fastParseConfig(src, "main.hcl", hcl.InitialPos)
		}
	})
	b.Run("hclsyntax", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			hclsyntax.ParseConfig(src, "main.hcl", hcl.InitialPos)
		}
	})
}
