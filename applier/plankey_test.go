package applier_test

import (
	"bytes"
	"sync"
	"testing"

	"cc.dev/cc/applier"
)

// TestIssue16PlanKeyRace is issue 16 item 6 (staticcheck SA4006 in
// planKey, applier.PlanKey since issue 12): when two cc processes make a
// project's plan key at the same time, the one whose exclusive create
// loses reads the winner's key. It used to read it into a shadowed err and
// then report the first read's "no such file" instead.
func TestIssue16PlanKeyRace(t *testing.T) {
	const rounds, racers = 50, 8
	for range rounds {
		root := t.TempDir()
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			keys  = make([][]byte, racers)
			errs  = make([]error, racers)
		)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				keys[i], errs[i] = applier.PlanKey(root)
			}()
		}
		close(start)
		wg.Wait()
		for i := range racers {
			if errs[i] != nil {
				t.Fatalf("planKey() = %v, want the key another process made", errs[i])
			}
			if !bytes.Equal(keys[i], keys[0]) {
				t.Fatalf("planKey() gave two keys for one project")
			}
		}
	}
}
