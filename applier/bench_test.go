package applier_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// The benchmarks of BENCHMARKS.md, "Plan and apply": what cc plan and cc
// apply do, in process, on generated projects (compiler/workload), with
// the state in the embedded default (the reference server on SQLite over
// an in-memory gRPC connection).
//
//	go test ./applier -run '^$' -bench . -count 6 -timeout 60m

// benchDir writes a generated project once per options.
var benchDirs = map[workload.Options]string{}

func benchDir(b *testing.B, o workload.Options) string {
	if d, ok := benchDirs[o]; ok {
		return d
	}
	d, err := os.MkdirTemp("", fmt.Sprintf("cc-bench-%d-%d-", o.N, o.Changed))
	if err != nil {
		b.Fatal(err)
	}
	if err := workload.Write(d, o); err != nil {
		b.Fatal(err)
	}
	benchDirs[o] = d
	return d
}

func compile(b *testing.B, dir string) *schema.Desired {
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, "main.hcl")})
	if err != nil {
		b.Fatal(err)
	}
	return res.Desired
}

// embedded opens a fresh embedded server.
func embedded(b *testing.B) (*service.Client, func() error) {
	cl, closeFn, err := service.OpenEmbedded(context.Background(), filepath.Join(b.TempDir(), ".cc", "state.db"), service.WithSync(service.SyncNormal))
	if err != nil {
		b.Fatal(err)
	}
	return cl, closeFn
}

// applied returns a server holding the project at dir, applied.
func appliedServer(b *testing.B, dir string) (*service.Client, func() error) {
	cl, closeFn := embedded(b)
	d := compile(b, dir)
	a := newApplier(b, cl, d)
	if _, res := applyAll(b, a, d); res.Err() != nil {
		b.Fatal(res.Err())
	}
	return cl, closeFn
}

// BenchmarkCompile is the compile of each project, measured in the same
// run as the plans for the ratio the aim is stated in.
func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := benchDir(b, workload.Options{N: n})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				compile(b, dir)
			}
		})
	}
}

// BenchmarkPlan is cc plan: compile, one state read, the diff. "empty" has
// no state; "noop" the same project applied; "changed1pct" the project
// applied and then 1% of its images and functions changed (their
// dependants change too).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, kind := range []string{"empty", "noop", "changed1pct"} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				base := benchDir(b, workload.Options{N: n})
				dir := base
				var cl *service.Client
				var closeFn func() error
				switch kind {
				case "empty":
					cl, closeFn = embedded(b)
				case "noop":
					cl, closeFn = appliedServer(b, base)
				case "changed1pct":
					cl, closeFn = appliedServer(b, base)
					dir = benchDir(b, workload.Options{N: n, Changed: n / 100})
				}
				defer closeFn()
				a, err := applier.New(cl, applier.WithSecrets(applier.LocalSecrets{Root: dir, LookupEnv: env}))
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				var p *planner.Plan
				for i := 0; i < b.N; i++ {
					d := compile(b, dir)
					if p, _, err = a.Plan(context.Background(), d, planner.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(len(p.Changes)), "changes")
			})
		}
	}
}

// BenchmarkDiff is the planner alone, on the desired state and the state
// already in memory: the plan's own work beyond compile and the read.
func BenchmarkDiff(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, kind := range []string{"empty", "noop", "changed1pct"} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				base := benchDir(b, workload.Options{N: n})
				dir := base
				var cl *service.Client
				var closeFn func() error
				switch kind {
				case "empty":
					cl, closeFn = embedded(b)
				default:
					cl, closeFn = appliedServer(b, base)
				}
				defer closeFn()
				if kind == "changed1pct" {
					dir = benchDir(b, workload.Options{N: n, Changed: n / 100})
				}
				d := compile(b, dir)
				st, err := cl.GetState(context.Background(), d.Project)
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := planner.Diff(d, st, planner.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkApply1000 is cc apply --auto-approve of 1,000 creates on the
// embedded default: compile, plan, lock, upload, apply, unlock, on a new
// database each time.
func BenchmarkApply1000(b *testing.B) {
	dir := benchDir(b, workload.Options{N: 1000})
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cl, closeFn := embedded(b)
		b.StartTimer()
		d := compile(b, dir)
		a := newApplier(b, cl, d)
		p, res := applyAll(b, a, d)
		if res.Err() != nil || len(res.Done) != 1000 || len(p.Changes) != 1000 {
			b.Fatalf("%d of %d done: %v", len(res.Done), len(p.Changes), res.Err())
		}
		b.StopTimer()
		closeFn()
		b.StartTimer()
	}
}

// BenchmarkNoopPlanVsCompile measures, in each iteration, the compile of a
// project and then the whole no-op plan of it (compile, one state read,
// diff), so that both see the same load on the machine: the aim is a
// no-op plan of 10,000 resources within 1.2 times the compile.
func BenchmarkNoopPlanVsCompile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := benchDir(b, workload.Options{N: n})
			cl, closeFn := appliedServer(b, dir)
			defer closeFn()
			a, err := applier.New(cl, applier.WithSecrets(applier.LocalSecrets{Root: dir, LookupEnv: env}))
			if err != nil {
				b.Fatal(err)
			}
			var compileTime, planTime time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				compile(b, dir)
				t1 := time.Now()
				p, _, err := a.Plan(context.Background(), compile(b, dir), planner.Options{})
				if err != nil || p.Changed() {
					b.Fatalf("plan: %v, changed %v", err, p != nil && p.Changed())
				}
				compileTime += t1.Sub(t0)
				planTime += time.Since(t1)
			}
			b.ReportMetric(float64(compileTime.Milliseconds())/float64(b.N), "compile-ms")
			b.ReportMetric(float64(planTime.Milliseconds())/float64(b.N), "plan-ms")
			b.ReportMetric(float64(planTime)/float64(compileTime), "plan/compile")
		})
	}
}
