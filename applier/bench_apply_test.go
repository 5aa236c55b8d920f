package applier_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// BenchmarkApplyCreates is the apply of N creates alone (issue 13, aims 5
// and 7): the project compiled once, then in each iteration plan, lock,
// upload and every create on a new database, with the embedded default's
// durability (sync=normal) and cc server's (sync=full: an fsync per
// commit), so that their ratio and the cost per resource at each N come
// from one run; each with changes in batches (the default) and alone
// (batch=1, as before ApplyBatch).
//
//	go test ./applier -run '^$' -bench ApplyCreates -count 5 -timeout 60m
func BenchmarkApplyCreates(b *testing.B) {
	compiled := map[int]*schema.Desired{}
	for _, n := range []int{1000, 10000, 40000} {
		for _, run := range []struct {
			sync  service.Sync
			batch int
		}{{service.SyncNormal, applier.DefaultBatchSize}, {service.SyncNormal, 1}, {service.SyncFull, applier.DefaultBatchSize}, {service.SyncFull, 1}} {
			sync := run.sync
			b.Run(fmt.Sprintf("n=%d/sync=%s/batch=%d", n, sync, run.batch), func(b *testing.B) {
				d := compiled[n]
				if d == nil {
					b.StopTimer() // the compile is not the apply's
					d = compile(b, benchDir(b, workload.Options{N: n}))
					compiled[n] = d
					b.StartTimer()
				}
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					cl, closeFn, err := service.OpenEmbedded(context.Background(), filepath.Join(b.TempDir(), ".cc", "state.db"), service.WithSync(sync))
					if err != nil {
						b.Fatal(err)
					}
					a := newApplier(b, cl, d, applier.WithBatchSize(run.batch))
					b.StartTimer()
					p, res := applyAll(b, a, d)
					if res.Err() != nil || len(res.Done) != n || len(p.Changes) != n {
						b.Fatalf("%d of %d done: %v", len(res.Done), len(p.Changes), res.Err())
					}
					b.StopTimer()
					closeFn()
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/resource")
			})
		}
	}
}
