package applier_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// TestPlanKeyOwnOnly: the plan key is this machine's own. One that
// others may read (a clone's, checked out 0644) would let whoever has it
// make a saved plan whose sensitive values cc apply takes as checked, and
// check guesses of them; a linked .cc is followed only where
// OwnStateDir follows it. Both are refused, and no part of the key is shown.
func TestPlanKeyOwnOnly(t *testing.T) {
	const text = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".cc"), 0o755)
	key := filepath.Join(root, ".cc", "plan-key")
	os.WriteFile(key, []byte(text), 0o644)
	os.Chmod(key, 0o644)
	_, err := applier.PlanKey(root)
	if err == nil || !strings.Contains(err.Error(), "plan-key is not private (mode -rw-r--r--)") {
		t.Fatalf("PlanKey with a key others may read = %v, want it refused", err)
	}
	if strings.Contains(err.Error(), "00112233") {
		t.Errorf("the refusal shows the key: %v", err)
	}

	linked, elsewhere := t.TempDir(), t.TempDir()
	os.Symlink(filepath.Join(elsewhere, "missing"), filepath.Join(linked, ".cc"))
	if _, err := applier.PlanKey(linked); err == nil || !strings.Contains(err.Error(), "is a symbolic link to nothing") {
		t.Fatalf("PlanKey through a dangling .cc = %v, want it refused", err)
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Errorf("the link's target holds %d entries after the refusal, want none", len(es))
	}
}
