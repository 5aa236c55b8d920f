package compiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"

	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// TestWorkloadBothLanguages: the generated CUE and HCL are one project.
func TestWorkloadBothLanguages(t *testing.T) {
	dir := t.TempDir()
	if err := workload.Write(dir, workload.Options{N: 200}); err != nil {
		t.Fatal(err)
	}
	c := compileJSON(t, filepath.Join(dir, "main.cue"), Input{})
	h := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{})
	if !bytes.Equal(c, h) {
		t.Fatal("generated CUE and HCL compile differently")
	}
	res, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[schema.Kind]int{}
	for _, r := range res.Desired.Resources {
		counts[r.Kind]++
	}
	want := workload.CountsFor(200)
	if counts[schema.KindImage] != want.Images || counts[schema.KindSandbox] != want.Sandboxes ||
		counts[schema.KindFunction] != want.Functions || counts[schema.KindSecret] != want.Secrets {
		t.Errorf("kinds = %v, want %+v", counts, want)
	}
	if n := len(res.Desired.Resources); n != 200 {
		t.Errorf("%d resources, want 200", n)
	}
}

var benchDirs = map[int]string{}

func benchProject(b *testing.B, n int) string {
	if dir, ok := benchDirs[n]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", fmt.Sprintf("cc-bench-%d-", n))
	if err != nil {
		b.Fatal(err)
	}
	if err := workload.Write(dir, workload.Options{N: n}); err != nil {
		b.Fatal(err)
	}
	benchDirs[n] = dir
	return dir
}

// peakRSS resets the process's peak resident set size (Linux) and returns
// a function that reads it, in MB.
func peakRSS() func() float64 {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return func() float64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return kb / 1024
			}
		}
		return 0
	}
}

// BenchmarkCompile compiles generated projects of N resources in each
// language, reporting the peak RSS of the process.
//
//	go test ./compiler -run '^$' -bench 'Compile|CUEExport' -count 6
func BenchmarkCompile(b *testing.B) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	for _, n := range []int{1000, 10000} {
		for _, lang := range []string{"cue", "hcl"} {
			b.Run(fmt.Sprintf("%s/%d", lang, n), func(b *testing.B) {
				path := filepath.Join(benchProject(b, n), "main."+lang)
				peak := peakRSS()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := Compile(context.Background(), Input{Path: path}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(peak(), "peak-MB")
			})
		}
	}
}

// BenchmarkCUEExport does what `cue export` does with the same file (load,
// build, validate concrete, marshal JSON), as the baseline the CUE path is
// measured against in the same run.
func BenchmarkCUEExport(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := benchProject(b, n)
			peak := peakRSS()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ctx := cuecontext.New()
				inst := load.Instances([]string{"./main.cue"}, &load.Config{Dir: dir})[0]
				if inst.Err != nil {
					b.Fatal(inst.Err)
				}
				v := ctx.BuildInstance(inst)
				if err := v.Validate(cue.Concrete(true)); err != nil {
					b.Fatal(err)
				}
				if _, err := v.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(peak(), "peak-MB")
		})
	}
}

// BenchmarkRandomBytesHCL compiles 800 KB of random bytes as HCL (issue 8
// item 14): it fails, with diag.MaxShown diagnostics and a count of the
// rest, in time linear in the input.
//
//	go test ./compiler -run '^$' -bench RandomBytes -count 6
func BenchmarkRandomBytesHCL(b *testing.B) {
	src := make([]byte, 800_000)
	rnd := rand.New(rand.NewPCG(8, 14))
	for i := range src {
		src[i] = byte(rnd.Uint32())
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	peak := peakRSS()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := Compile(context.Background(), Input{Path: dir})
		var cerr *Error
		if !errors.As(err, &cerr) {
			b.Fatalf("Compile() error = %v, want diagnostics", err)
		}
		var out bytes.Buffer
		diag.WriteText(&out, cerr.Diagnostics, func(string) []byte { return src })
	}
	b.ReportMetric(peak(), "peak-MB")
}

// TestWorkloadExactlyN: issue 13. A generated project has exactly the N
// resources asked for, past N = 400 too (it stopped at 100 distinct
// images, whose equal contents merged, so N = 10,000 compiled to 7,600),
// and -images and -copy-bytes change the share of images and the copied
// files' size.
func TestWorkloadExactlyN(t *testing.T) {
	for _, o := range []workload.Options{{N: 1000}, {N: 1000, ImageShare: 0.5, CopyBytes: 4096}, {N: 3}} {
		dir := t.TempDir()
		if err := workload.Write(dir, o); err != nil {
			t.Fatal(err)
		}
		res, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.hcl")})
		if err != nil {
			t.Fatal(err)
		}
		images := 0
		for _, r := range res.Desired.Resources {
			if r.Kind == schema.KindImage {
				images++
			}
		}
		if n := len(res.Desired.Resources); n != o.N {
			t.Errorf("%+v: %d resources, want %d", o, n, o.N)
		}
		if o.ImageShare == 0.5 && images != 500 {
			t.Errorf("%+v: %d images, want 500", o, images)
		}
		if o.CopyBytes > 0 {
			fi, err := os.Stat(filepath.Join(dir, "files", "config-0.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != int64(o.CopyBytes) {
				t.Errorf("%+v: config-0.yaml has %d bytes", o, fi.Size())
			}
		}
	}
}
