package compiler

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// benchVariants are one construct each in the generated project, which
// once multiplied the cost of its compile (issue 13): a heredoc (the
// parallel parse gave up), a CUE comprehension (the gate sent it to CUE's
// unification), a sensitive variable in most resources (every path
// compared with every resource), a misspelt attribute (a second
// evaluation), a misspelt field in a defaults block (CUE judged every
// resource), a definition of the user's own in every CUE sandbox, an
// environment's values picked by a tag's disjunction, and one CUE output
// (each sent the configuration to CUE's unification).
// BenchmarkCompileVariants compiles them beside the plain project, so
// that such a cliff shows in `go test -bench`.
var benchVariants = []struct {
	name, file string
	edit       func(string) string
	fails      bool
}{
	{"hcl/plain", "main.hcl", func(s string) string { return s }, false},
	{"hcl/heredoc", "main.hcl", func(s string) string {
		return s + "locals {\n  banner = <<-EOT\n    hello\n  EOT\n}\n"
	}, false},
	{"hcl/sensitive", "main.hcl", func(s string) string {
		return strings.ReplaceAll(s, `LOG_LEVEL = "info"`, `LOG_LEVEL = var.level`) +
			"variable \"level\" {\n  type      = string\n  default   = \"info\"\n  sensitive = true\n}\n"
	}, false},
	{"hcl/typo", "main.hcl", func(s string) string {
		i := strings.Index(s[len(s)/2:], "  command = ") + len(s)/2
		return s[:i] + "  comand  = " + s[i+len("  command = "):]
	}, true},
	{"hcl/defaults-typo", "main.hcl", func(s string) string {
		return s + "defaults {\n  sandbox {\n    timeout = \"1h\"\n  }\n}\n"
	}, true},
	{"cue/plain", "main.cue", func(s string) string { return s }, false},
	{"cue/comprehension", "main.cue", func(s string) string {
		return s + "\n_regions: [\"eu\", \"us\"]\nvolumes: {for r in _regions {\"cache-\\(r)\": size: \"1Gi\"}}\n"
	}, false},
	{"cue/definition", "main.cue", func(s string) string {
		s = strings.ReplaceAll(s, "\tcommand: [\"sleep\", \"infinity\"]\n\tresources: requests: {cpu: \"500m\", memory: \"1Gi\"}\n", "")
		s = sandboxOpen.ReplaceAllString(s, "${1}#Box & {")
		return s + "\n#Box: {\n\tcommand: [\"sleep\", \"infinity\"]\n\tresources: requests: {cpu: \"500m\", memory: \"1Gi\"}\n\t...\n}\n"
	}, false},
	{"cue/environment", "main.cue", func(s string) string {
		s = strings.ReplaceAll(s, `LOG_LEVEL: "info"`, `LOG_LEVEL: _values.level`)
		return s + "\n_env: *\"\" | \"dev\" | \"prod\" @tag(env)\n_values: {\"\": {level: \"debug\"}, dev: {level: \"debug\"}, prod: {level: \"warn\"}}[_env]\n"
	}, false},
	{"cue/output", "main.cue", func(s string) string {
		return s + "\noutputs: url: {value: \"https://example.com\", description: \"the url\"}\n"
	}, false},
}

// sandboxOpen is where a generated CUE sandbox opens.
var sandboxOpen = regexp.MustCompile(`(sandboxes: "box-[0-9]+": )\{`)

func BenchmarkCompileVariants(b *testing.B) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	const n = 10000
	base := benchProject(b, n)
	for _, v := range benchVariants {
		b.Run(v.name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "p")
			if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
				b.Fatal(err)
			}
			src, err := os.ReadFile(filepath.Join(base, v.file))
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(dir, v.file)
			if err := os.WriteFile(path, []byte(v.edit(string(src))), 0o644); err != nil {
				b.Fatal(err)
			}
			peak := peakRSS()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, err := Compile(context.Background(), Input{Path: path})
				if (err != nil) != v.fails {
					b.Fatalf("Compile() = %v; want an error: %v", err, v.fails)
				}
			}
			b.ReportMetric(peak(), "peak-MB")
		})
	}
}
