package service_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"cc.dev/cc/service"
)

// workload makes n resources shaped like a project's: functions
// (versioned), sandboxes and volumes, each with a spec of a few hundred
// bytes.
func workload(b testing.TB, n int) []service.ApplyRequest {
	reqs := make([]service.ApplyRequest, n)
	for i := range reqs {
		var addr string
		var v any
		switch i % 3 {
		case 0:
			addr = fmt.Sprintf("function.fn-%05d", i)
			v = map[string]any{
				"handler": "handlers.main:run", "image": "sha256:4f1c5a0e8f3b2d7a9c6e1b0d3f5a7c9e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a",
				"source":  map[string]any{"paths": []string{"handlers"}, "digest": fmt.Sprintf("sha256:%064x", i)},
				"env":     map[string]any{"LOG_LEVEL": "info", "REGION": "eu-west-1"},
				"scaling": map[string]any{"min_replicas": 0, "max_replicas": 10, "concurrency": 4},
				"timeout": "60s", "retries": 2,
			}
		case 1:
			addr = fmt.Sprintf("sandbox.sb-%05d", i)
			v = map[string]any{
				"image": "sha256:9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b", "command": []string{"python", "-m", "app", fmt.Sprint(i)},
				"resources": map[string]any{"requests": map[string]any{"cpu": "500m", "memory": "1Gi"}},
				"network":   map[string]any{"egress_allow": []string{"api.openai.com", "*.slack.com"}},
				"lifetime":  "1h", "tags": []string{"team:search", "env:dev"},
			}
		default:
			addr = fmt.Sprintf("volume.vol-%05d", i)
			v = map[string]any{"size": fmt.Sprintf("%dGi", 1+i%100)}
		}
		reqs[i] = applyReq(b, "", addr, service.ActionCreate, v, 0)
	}
	return reqs
}

// applyAll applies reqs to project with the given number of clients.
func applyAll(b testing.TB, c *service.Client, project string, reqs []service.ApplyRequest, clients int) {
	var wg sync.WaitGroup
	per := (len(reqs) + clients - 1) / clients
	for w := 0; w < clients; w++ {
		part := reqs[min(w*per, len(reqs)):min((w+1)*per, len(reqs))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range part {
				r.Project = project
				if _, err := c.Apply(context.Background(), r); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkGetState reads a project of 10,000 resources: one op is one
// whole state read through the client, as plan does it.
func BenchmarkGetState10k(b *testing.B) {
	c := open(b, filepath.Join(b.TempDir(), "state.db"))
	applyAll(b, c, "big", workload(b, 10_000), 10)
	ctx := context.Background()
	for b.Loop() {
		st, err := c.GetState(ctx, "big")
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Resources) != 10_000 {
			b.Fatalf("%d resources", len(st.Resources))
		}
	}
}

// BenchmarkApply1000 applies 1,000 creates to a fresh project: one op is
// all 1,000, from one client in sequence or from 10 concurrent clients, on
// the embedded server, with each durability mode.
func BenchmarkApply1000(b *testing.B) {
	reqs := workload(b, 1000)
	for _, sync := range []service.Sync{service.SyncNormal, service.SyncFull} {
		for _, clients := range []int{1, 10} {
			b.Run(fmt.Sprintf("sync=%s/clients=%d", sync, clients), func(b *testing.B) {
				c := open(b, filepath.Join(b.TempDir(), "state.db"), service.WithSync(sync))
				i := 0
				for b.Loop() {
					i++
					applyAll(b, c, fmt.Sprintf("p%d", i), reqs, clients)
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(reqs)), "µs/apply")
			})
		}
	}
}

// BenchmarkGetStateCompare is a no-op plan's one read of a project of
// 10,000 functions, each with a sensitive value (sealed at rest) and
// one of every five with two versions: one op is a GetState carrying a
// comparison of each value, its state unchanged, as plan sends it.
func BenchmarkGetStateCompare(b *testing.B) {
	ctx := context.Background()
	clk := newClock()
	c := open(b, filepath.Join(b.TempDir(), "state.db"), service.WithClock(clk.Now))
	const n = 10_000
	sens := []string{"/env/LOG_LEVEL"}
	fn := func(i int, level string) map[string]any {
		return function(fmt.Sprintf("m:f%d", i), map[string]any{"env": map[string]any{"LOG_LEVEL": level, "REGION": "eu-west-1"}})
	}
	var reqs []service.ApplyRequest
	for i := range n {
		reqs = append(reqs, sensitiveApply(b, fmt.Sprintf("function.f-%05d", i), service.ActionCreate, fn(i, "debug"), sens, 0))
	}
	applyAll(b, c, "p", reqs, 10)
	st, err := c.GetState(ctx, "p")
	if err != nil {
		b.Fatal(err)
	}
	serial := st.Serial
	for i := 0; i < n; i += 5 {
		serial = mustApply(b, c, sensitiveApply(b, fmt.Sprintf("function.f-%05d", i), service.ActionUpdate, fn(i, "info"), sens, serial)).Serial
	}
	vals := make([]service.ValueToCompare, n)
	for i := range vals {
		v := `"debug"`
		if i%5 == 0 {
			v = `"info"`
		}
		vals[i] = service.ValueToCompare{Address: fmt.Sprintf("function.f-%05d", i), Pointer: sens[0], Value: []byte(v)}
	}
	for b.Loop() {
		clk.Advance(time.Minute) // past the comparisons' rate limit
		resp, err := c.ReadState(ctx, service.StateRequest{Project: "p", KnownSerial: serial, Compare: vals})
		if err != nil {
			b.Fatal(err)
		}
		ms := resp.Matches
		if !resp.Unchanged {
			b.Fatal("state changed")
		}
		if len(ms) != n || ms[0].Comparison != service.Equal || len(ms[0].EqualRevisions) != 1 || ms[0].EqualRevisions[0] != 2 || ms[1].Comparison != service.Equal {
			b.Fatalf("matches %+v %+v", ms[0], ms[1])
		}
	}
}
