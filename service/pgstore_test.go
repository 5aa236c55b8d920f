package service_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// TestPostgresReplicasShareOneTruth: issue 14, two servers on one
// PostgreSQL database serve one project: a lease taken through one
// refuses a mutation through the other, an idempotency key replayed on
// the other returns the first answer, and the serials of concurrent
// mutations through both are 1..n with no gap or duplicate.
func TestPostgresReplicasShareOneTruth(t *testing.T) {
	ctx := context.Background()
	db := servicetest.Postgres(t)
	a, b := openRaw(t, db), openRaw(t, db)
	alice := service.Holder{User: "alice", Host: "laptop", Command: "cc apply", PID: 1}
	bob := service.Holder{User: "bob", Host: "ci", Command: "cc apply", PID: 2}

	la, _, err := a.Lock(ctx, "p", alice, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Lock(ctx, "p", bob, time.Minute); !errors.Is(err, service.ErrLocked) || !strings.Contains(err.Error(), "alice") {
		t.Fatalf("Lock() through b while a holds it = %v, want locked by alice", err)
	}
	req := applyReq(t, "p", "volume.v", service.ActionCreate, volume("1Gi"), 0)
	if _, err := b.Apply(ctx, req); !errors.Is(err, service.ErrLeaseRefused) {
		t.Fatalf("Apply() through b without the lease taken through a = %v, want lease refused", err)
	}
	req.LeaseID, req.IdempotencyKey = la.ID, "k1"
	first := mustApply(t, a, req)
	again := mustApply(t, b, req)
	if !cmp.Equal(first, again) {
		t.Fatalf("replay of an idempotency key through b = %+v, want a's answer %+v", again, first)
	}

	const n = 40
	serials := make([]int64, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := a
			if i%2 == 1 {
				c = b
			}
			r := applyReq(t, "p", fmt.Sprintf("volume.c%d", i), service.ActionCreate, volume("1Gi"), 0)
			r.LeaseID = la.ID
			res, err := c.Apply(ctx, r)
			if err != nil {
				errs <- err
				return
			}
			serials[i] = res.Serial
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sort.Slice(serials, func(i, j int) bool { return serials[i] < serials[j] })
	for i, s := range serials {
		if want := first.Serial + 1 + int64(i); s != want {
			t.Fatalf("serials of concurrent mutations through both = %v, want %d..%d", serials, first.Serial+1, first.Serial+n)
		}
	}
	for _, c := range []*service.Client{a, b} {
		st, err := c.GetState(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		if st.Serial != first.Serial+n || len(st.Resources) != n+1 {
			t.Fatalf("state = serial %d with %d resources, want %d with %d", st.Serial, len(st.Resources), first.Serial+n, n+1)
		}
	}
}

// TestPostgresLeaseRefusedAcrossReplicas: issue 14. A lease released by
// force through one replica refuses the next mutation through the other.
func TestPostgresLeaseRefusedAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	db := servicetest.Postgres(t)
	a, b := openRaw(t, db), openRaw(t, db)
	la, _, err := a.Lock(ctx, "p", service.Holder{User: "alice", Host: "h"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.ForceUnlock(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	req := applyReq(t, "p", "volume.v", service.ActionCreate, volume("1Gi"), 0)
	req.LeaseID = la.ID
	if _, err := a.Apply(ctx, req); !errors.Is(err, service.ErrLeaseRefused) {
		t.Fatalf("Apply() through a after force-unlock through b = %v, want lease refused", err)
	}
}

// TestPostgresMigrationsAtOnce: issue 14. Servers starting at once on a
// new database migrate it once between them (the migration runs under an
// advisory lock) and all open it.
func TestPostgresMigrationsAtOnce(t *testing.T) {
	db := servicetest.Postgres(t)
	key := servicetest.KeyFile(db)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv, err := service.Open(context.Background(), db, service.WithSecretKeyFile(key))
			if err == nil {
				err = srv.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open() #%d at once = %v", i, err)
		}
	}
	var v int
	if err := rawDB(t, db).QueryRow("SELECT version FROM cc_schema").Scan(&v); err != nil || v < 9 {
		t.Fatalf("cc_schema version = %d, %v; want the latest", v, err)
	}
}

// TestPostgresNewerSchemaRefused: issue 14, the counterpart of SQLite's
// user_version check. A database whose schema is newer than this cc
// knows is refused.
func TestPostgresNewerSchemaRefused(t *testing.T) {
	db := servicetest.Postgres(t)
	key := servicetest.KeyFile(db)
	srv, err := service.Open(context.Background(), db, service.WithSecretKeyFile(key))
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if _, err := rawDB(t, db).Exec("UPDATE cc_schema SET version = 999"); err != nil {
		t.Fatal(err)
	}
	if _, err := service.Open(context.Background(), db, service.WithSecretKeyFile(key)); err == nil || !strings.Contains(err.Error(), "schema version 999") {
		t.Fatalf("Open(newer schema) = %v, want it refused", err)
	}
}

// TestPostgresSecretKeyRequired: issue 14. A PostgreSQL database needs
// its key file given (none is generated: replicas share it), and refuses
// another key than the one it was first used with.
func TestPostgresSecretKeyRequired(t *testing.T) {
	ctx := context.Background()
	db := servicetest.Postgres(t)
	if _, err := service.Open(ctx, db); err == nil || !strings.Contains(err.Error(), "--secret-key-file") {
		t.Fatalf("Open(postgres, no key file) = %v, want it refused", err)
	}
	srv, err := service.Open(ctx, db, service.WithSecretKeyFile(servicetest.KeyFile(db)))
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	other := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(other, []byte(strings.Repeat("cd", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := service.Open(ctx, db, service.WithSecretKeyFile(other)); err == nil || !strings.Contains(err.Error(), "not the key") {
		t.Fatalf("Open(postgres, another key) = %v, want it refused", err)
	}
}

// TestPostgresPasswordNeverShown: issue 14. The error of a database URL
// that cannot be reached does not show its password.
func TestPostgresPasswordNeverShown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const pw = "Zq7hunter2pw"
	for _, db := range []string{
		"postgres://cc:" + pw + "@127.0.0.1:1/cc?sslmode=disable&connect_timeout=2",
		"postgresql://127.0.0.1:1/cc?user=cc&password=" + pw + "&sslmode=disable&connect_timeout=2",
		"postgres://cc:" + pw + "@127.0.0.1:1/cc?sslmode=bogus",
	} {
		_, err := service.Open(ctx, db, service.WithSecretKeyFile("/nonexistent"))
		if err == nil {
			t.Fatalf("Open(%s) = nil error", service.RedactDB(db))
		}
		if strings.Contains(err.Error(), pw) {
			t.Fatalf("Open() error shows the password: %v", err)
		}
		if r := service.RedactDB(db); strings.Contains(r, pw) || !strings.Contains(r, "xxxxx") {
			t.Fatalf("RedactDB(%s) = %s, want the password replaced by xxxxx", "…", r)
		}
	}
	if got := service.RedactDB("/tmp/state.db"); got != "/tmp/state.db" {
		t.Fatalf("RedactDB(file) = %q, want it unchanged", got)
	}
}

// TestPostgresUploadMissingChunksNotRegistered: issue 14. When the chunks
// of an upload are removed while it is stored (as another replica's
// interrupted upload of the same blob removes them), the blob is not
// registered with chunks missing: the upload fails, and a second one
// stores it whole.
func TestPostgresUploadMissingChunksNotRegistered(t *testing.T) {
	ctx := context.Background()
	db := servicetest.Postgres(t)
	sock := filepath.Join(t.TempDir(), "s")
	srv := serve(t, listenUnix(t, sock), db)
	c, err := service.Dial("unix://"+sock, service.WithGRPCOptions(autoLeasing()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	blob := make([]byte, 9<<20)
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	d := digest(blob)
	raw := rawDB(t, db)
	var once sync.Once
	service.SetAfterChunks(srv, func(project, digest string, chunks int) {
		once.Do(func() {
			if _, err := raw.Exec("DELETE FROM blob_chunks"); err != nil {
				t.Error(err)
			}
		})
	})
	up := service.BlobUpload{Project: "p", Digest: d, Size: int64(len(blob))}
	if _, err := c.UploadBlob(ctx, up, bytes.NewReader(blob)); err == nil {
		t.Fatal("UploadBlob() with chunks removed while stored = nil error, want it refused")
	}
	if _, err := c.ReadBlob(ctx, "p", d, 1); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("ReadBlob() after the refused upload = %v, want not found", err)
	}
	if _, err := c.UploadBlob(ctx, up, bytes.NewReader(blob)); err != nil {
		t.Fatalf("UploadBlob() again = %v", err)
	}
	b, err := c.ReadBlob(ctx, "p", d, 4<<20)
	if err != nil || b.Size != int64(len(blob)) || !bytes.Equal(b.Data, blob[:4<<20]) {
		t.Fatalf("ReadBlob() = %v; want the blob's first 4 MiB", err)
	}
}

// TestPostgresConcurrentLocksOneWins: issue 14. Two replicas asked at once
// for a project's lock: exactly one takes it, and the other names it as
// the holder.
func TestPostgresConcurrentLocksOneWins(t *testing.T) {
	ctx := context.Background()
	db := servicetest.Postgres(t)
	a, b := openRaw(t, db), openRaw(t, db)
	for i := range 20 {
		project := fmt.Sprintf("p%d", i)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for j, c := range []*service.Client{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, errs[j] = c.Lock(ctx, project, service.Holder{User: fmt.Sprintf("user%d", j), Host: "h"}, time.Minute)
			}()
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("%s: Lock() at once through both = %v and %v, want exactly one to succeed", project, errs[0], errs[1])
		}
		loser, winner := 0, "user1"
		if errs[0] == nil {
			loser, winner = 1, "user0"
		}
		if !errors.Is(errs[loser], service.ErrLocked) || !strings.Contains(errs[loser].Error(), winner) {
			t.Fatalf("%s: the refused Lock() = %v, want locked by %s", project, errs[loser], winner)
		}
	}
}

// TestPostgresDeadSpoolReaped: a replica that starts removes the spool
// directory of one on the host that was killed (its lock let go of), and
// leaves a live replica's alone.
func TestPostgresDeadSpoolReaped(t *testing.T) {
	db := servicetest.Postgres(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := filepath.Join(tmp, "cc-spool-killed")
	os.MkdirAll(dead, 0o700)
	os.WriteFile(filepath.Join(dead, "upload-1"), []byte("part of an upload"), 0o600)
	os.WriteFile(filepath.Join(dead, "lock"), nil, 0o600) // no process holds it
	openRaw(t, db)
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed replica's spool after a start: %v, want it removed", err)
	}
	first, _ := filepath.Glob(filepath.Join(tmp, "cc-spool-*"))
	if len(first) != 1 {
		t.Fatalf("spools %v, want the live replica's", first)
	}
	openRaw(t, db)
	if _, err := os.Stat(first[0]); err != nil {
		t.Fatalf("a live replica's spool after another started: %v, want it kept", err)
	}
}

// TestPostgresFrozenWriterLetGo: a replica that freezes inside a write
// transaction (its host stopped, its network cut) holds the write lock
// that every replica's writes take first. PostgreSQL ends that session
// once it has sat idle in its transaction for pgIdleInTransaction, so the
// other replicas' writes go on, and what the frozen one wrote is never
// committed.
func TestPostgresFrozenWriterLetGo(t *testing.T) {
	db := servicetest.Postgres(t)
	defer service.SetPGIdleInTransaction(service.SetPGIdleInTransaction("1s"))
	c := open(t, db)
	ctx := context.Background()
	before := mustApply(t, c, applyReq(t, "p", "volume.before", service.ActionCreate, volume("1Gi"), 0))

	frozen, closeStore, err := service.BeginPGWrite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	defer frozen.Rollback()
	if _, err := frozen.ExecContext(ctx, "UPDATE projects SET serial = serial + 100 WHERE name = 'p'"); err != nil {
		t.Fatal(err)
	}

	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := c.Apply(wait, applyReq(t, "p", "volume.after", service.ActionCreate, volume("1Gi"), 0))
	if err != nil {
		t.Fatalf("Apply() while another replica froze inside a write transaction = %v, want it applied once PostgreSQL ends that session", err)
	}
	if res.Serial != before.Serial+1 {
		t.Fatalf("serial = %d, want %d (the frozen transaction's write never committed)", res.Serial, before.Serial+1)
	}
	if err := frozen.Commit(); err == nil {
		t.Fatal("the frozen replica's transaction committed after PostgreSQL ended its session")
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != res.Serial || len(st.Resources) != 2 {
		t.Fatalf("state = serial %d with %d resources, want %d with 2", st.Serial, len(st.Resources), res.Serial)
	}
}

// TestPostgresIdleInTransactionOwnSetting: a database URL that sets
// idle_in_transaction_session_timeout keeps it; without one, cc's
// sessions get pgIdleInTransaction.
func TestPostgresIdleInTransactionOwnSetting(t *testing.T) {
	db := servicetest.Postgres(t)
	ctx := context.Background()
	own, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	q := own.Query()
	q.Set("idle_in_transaction_session_timeout", "7min")
	own.RawQuery = q.Encode()
	for _, c := range []struct{ db, want string }{{db, "30s"}, {own.String(), "7min"}} {
		tx, closeStore, err := service.BeginPGWrite(ctx, c.db)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = tx.QueryRowContext(ctx, "SHOW idle_in_transaction_session_timeout").Scan(&got)
		tx.Rollback()
		closeStore()
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("idle_in_transaction_session_timeout of a session opened with %s = %q, want %q", service.RedactDB(c.db), got, c.want)
		}
	}
}

// stalledUploads gives, on the PostgreSQL database db, chunks: how many
// chunks of a blob are stored; and stalled: a replica process started
// under name, in the middle of uploading a 9 MiB blob of fill bytes (the
// server never finishes it), once it has stored a chunk of it.
func stalledUploads(t *testing.T, db string) (chunks func(digest string) int, stalled func(name string, fill byte) (*serverProc, string)) {
	dir := t.TempDir()
	key := "CC_SERVICE_TEST_SERVER_KEY=" + servicetest.KeyFile(db)
	raw := rawDB(t, db)
	chunks = func(digest string) int {
		t.Helper()
		var n int
		if err := raw.QueryRow("SELECT count(*) FROM blob_chunks WHERE digest = $1", digest).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	stalled = func(name string, fill byte) (*serverProc, string) {
		t.Helper()
		p, c := startServerProcess(t, db, filepath.Join(dir, name), key, "CC_SERVICE_TEST_SERVER_STALL_UPLOADS=1")
		blob := bytes.Repeat([]byte{fill}, 9<<20)
		d := digest(blob)
		go c.UploadBlob(context.Background(), service.BlobUpload{Project: "p", Digest: d, Size: int64(len(blob))}, bytes.NewReader(blob))
		for deadline := time.Now().Add(time.Minute); chunks(d) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no chunk of %s's upload stored in a minute\n%s", name, p.stderr.String())
			}
		}
		return p, d
	}
	return chunks, stalled
}

// TestPostgresDeadUploadChunksReaped: the chunks a killed replica stored
// of an upload it never finished are removed when a replica starts; the
// chunks of an upload a live replica is storing are kept.
func TestPostgresDeadUploadChunksReaped(t *testing.T) {
	db := servicetest.Postgres(t)
	chunks, stalled := stalledUploads(t, db)
	killed, dead := stalled("killed", 1)
	_, live := stalled("live", 2)
	killed.cmd.Process.Kill()
	killed.cmd.Wait()
	if chunks(dead) == 0 {
		t.Fatal("the killed replica's chunks are gone before any replica started")
	}

	openRaw(t, db)
	if n := chunks(dead); n != 0 {
		t.Errorf("after a replica started, %d chunks of the killed replica's unfinished upload are left, want none", n)
	}
	if chunks(live) == 0 {
		t.Error("after a replica started, the chunks of a live replica's upload are gone, want them kept")
	}
}

// TestPostgresDeadUploadChunksReapedWhileServing: a replica that keeps
// running reaps, every reapEvery, the chunks of a replica killed after
// it started, without starting again; a live replica's upload keeps its
// chunks, and the reaper's own uploader key stays held (its upload
// goes on). Before, only a start reaped.
func TestPostgresDeadUploadChunksReapedWhileServing(t *testing.T) {
	db := servicetest.Postgres(t)
	defer service.SetReapEvery(service.SetReapEvery(100 * time.Millisecond))
	serve(t, listenUnix(t, filepath.Join(t.TempDir(), "reaper")), db) // started first, never again
	chunks, stalled := stalledUploads(t, db)
	killed, dead := stalled("killed", 1)
	_, live := stalled("live", 2)
	killed.cmd.Process.Kill()
	killed.cmd.Wait()
	for deadline := time.Now().Add(30 * time.Second); chunks(dead) != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the replica was killed, %d chunks of its unfinished upload are left beside a replica that serves, want none", chunks(dead))
		}
	}
	time.Sleep(300 * time.Millisecond) // a few more reaps
	if chunks(live) == 0 {
		t.Error("the chunks of a live replica's upload are gone, want them kept")
	}
	// The uploader keys held: the serving replica's and the live one's,
	// and none the reaps took and kept.
	var held int
	if err := rawDB(t, db).QueryRow("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2 AND granted", 0x6363).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held != 2 {
		t.Errorf("%d uploader keys held after the reaps, want 2 (the two replicas that live)", held)
	}
}

// TestPostgresCloseTwiceAtOnce: a server closed by two goroutines at once
// (a test's cleanup and a stop mid-apply, as TestItem16ServerStoppedMidApply
// does) closes its store once; under the race detector (.ci/test) the two
// closed its uploader's connection together before.
func TestPostgresCloseTwiceAtOnce(t *testing.T) {
	db := servicetest.Postgres(t)
	srv := serve(t, listenUnix(t, filepath.Join(t.TempDir(), "s")), db)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = srv.Close()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Close() #%d = %v", i+1, err)
		}
	}
}
