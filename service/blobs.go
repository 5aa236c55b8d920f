package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

type blobAPI struct {
	ccv1.UnimplementedBlobServiceServer
	s *Server
}

var _ ccv1.BlobServiceServer = (*blobAPI)(nil)

const (
	maxDigestsPerCall = 100_000
	chunkSize         = 1 << 20
)

func (a *blobAPI) FindMissingBlobs(ctx context.Context, req *ccv1.FindMissingBlobsRequest) (*ccv1.FindMissingBlobsResponse, error) {
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	if len(req.GetDigests()) > maxDigestsPerCall {
		return nil, status.Errorf(codes.InvalidArgument, "more than %d digests in one call", maxDigestsPerCall)
	}
	for _, d := range req.GetDigests() {
		if !digestRE.MatchString(d) {
			return nil, status.Errorf(codes.InvalidArgument, "digest %q is not sha256:HEX", d)
		}
	}
	tx, err := a.s.st.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	missing, err := findMissing(ctx, tx, project, req.GetDigests())
	if err != nil {
		return nil, err
	}
	return &ccv1.FindMissingBlobsResponse{Missing: missing}, nil
}

// findMissing returns those of digests the project lacks, sorted and
// unique.
func findMissing(ctx context.Context, tx rowsQuerier, project string, digests []string) ([]string, error) {
	want := append([]string(nil), digests...)
	sort.Strings(want)
	want = compactStrings(want)
	have, err := selectIn(ctx, tx, "SELECT digest FROM blobs WHERE project = ? AND digest", project, want)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, d := range want {
		if !have[d] {
			missing = append(missing, d)
		}
	}
	return missing, nil
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// chunksPerTx is how many chunks of a blob one write transaction stores:
// the writer is held for a few milliseconds at a time, so that a large
// upload never stalls another project's mutations.
const chunksPerTx = 4

// UploadBlob spools the stream to a file in the spool directory while
// hashing it, outside any transaction. Only when the digest and size are
// the ones announced does it store the chunks, a few per short write
// transaction, and then register the blob in one more: a blob is there
// for FindMissingBlobs and ApplyResource only once registered, and chunks
// of a blob never registered (the server died meanwhile) are removed at
// start-up. The blob's bytes stay in the database, so that the database
// and its key file remain the whole state to back up. The caller's lease
// is checked on the header (uploadHeader) and again where the blob is
// registered (registerBlob).
func (a *blobAPI) UploadBlob(stream ccv1.BlobService_UploadBlobServer) error {
	ctx := stream.Context()
	h, err := a.uploadHeader(stream)
	if err != nil {
		return err
	}
	project, digest, size := h.GetProject(), h.GetDigest(), h.GetSize()
	existed := &ccv1.UploadBlobResponse{Digest: digest, Size: size, Existed: true}
	done, err := a.s.uploads.start(ctx, uploadKey(ctx))
	if err != nil {
		return err
	}
	defer done()
	if ok, err := a.blobExists(ctx, project, digest); err != nil {
		return dbError(err)
	} else if ok {
		return stream.SendAndClose(existed)
	}

	f, err := os.CreateTemp(a.s.spoolDir, "upload-*")
	if err != nil {
		return status.Errorf(codes.Internal, "spool upload: %v", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := spool(stream, f, digest, size); err != nil {
		return err
	}

	// One upload of a project's blob stores its chunks at a time; another
	// waits, and then finds it there.
	unlock := a.s.blobLocks.lock(project + "\x00" + digest)
	defer unlock()
	if ok, err := a.blobExists(ctx, project, digest); err != nil {
		return dbError(err)
	} else if ok {
		return stream.SendAndClose(existed)
	}
	if err := a.s.storeChunks(ctx, project, digest, f); err != nil {
		// Not registered: remove what was stored, whatever the caller does.
		a.s.dropChunks(context.WithoutCancel(ctx), project, digest)
		return err
	}
	added, err := a.s.registerBlob(ctx, h)
	if err != nil {
		a.s.dropChunks(context.WithoutCancel(ctx), project, digest)
		return err
	}
	if !added {
		return stream.SendAndClose(existed)
	}
	return stream.SendAndClose(&ccv1.UploadBlobResponse{Digest: digest, Size: size})
}

// registerBlob registers a blob whose chunks are stored, in one write
// transaction that checks the upload's lease again: a lease that expired
// or was released by force while the data streamed registers nothing.
// added is false when the project had the blob already.
func (s *Server) registerBlob(ctx context.Context, h *ccv1.UploadBlobRequest_Header) (added bool, err error) {
	tx, err := s.st.w.BeginTx(ctx, nil)
	if err != nil {
		return false, dbError(err)
	}
	defer tx.Rollback()
	now := s.now().UnixNano()
	if err := checkLease(ctx, tx, h.GetProject(), h.GetLeaseId(), now); err != nil {
		return false, err
	}
	if s.st.postgres() {
		if err := checkChunks(ctx, tx, h); err != nil {
			return false, err
		}
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO blobs (project, digest, size, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (project, digest) DO NOTHING", h.GetProject(), h.GetDigest(), h.GetSize(), now)
	if err != nil {
		return false, dbError(err)
	}
	if err := tx.Commit(); err != nil {
		return false, dbError(err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// checkChunks makes sure, on PostgreSQL, that the chunks of an upload
// about to be registered hold its size: another replica's interrupted
// upload of the same blob removes the chunks of the blob while it is not
// registered (dropChunks), and the per-process lock of blobLocks does not
// span replicas. A blob with chunks missing is never registered: the
// upload fails, to be made again.
func checkChunks(ctx context.Context, tx *sql.Tx, h *ccv1.UploadBlobRequest_Header) error {
	var have int64
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(SUM(length(data)), 0) FROM blob_chunks WHERE project = ? AND digest = ?",
		h.GetProject(), h.GetDigest()).Scan(&have); err != nil {
		return dbError(err)
	}
	if have != h.GetSize() {
		return status.Errorf(codes.Aborted, "upload of %s: %d of its %d bytes stored (an interrupted upload of the same blob, through another server, removed the rest): upload it again", h.GetDigest(), have, h.GetSize())
	}
	return nil
}

// uploadHeader receives an upload's header and checks it: the project's
// name and the caller's right to it, the digest's form, the size against
// --max-blob-size, and the caller's lease, so that a caller without the
// lock is refused before any of its data is read.
func (a *blobAPI) uploadHeader(stream ccv1.BlobService_UploadBlobServer) (*ccv1.UploadBlobRequest_Header, error) {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "no header: %v", err)
	}
	h := first.GetHeader()
	if h == nil {
		return nil, status.Error(codes.InvalidArgument, "the first message of an upload is its header")
	}
	if err := checkStrings(h); err != nil {
		return nil, err
	}
	project, digest, size := h.GetProject(), h.GetDigest(), h.GetSize()
	if ci, ok := ctx.Value(callInfoKey{}).(*callInfo); ok {
		ci.project = project
	}
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	if err := authorize(ctx, project); err != nil {
		return nil, err
	}
	if !digestRE.MatchString(digest) {
		return nil, status.Errorf(codes.InvalidArgument, "digest %q is not sha256:HEX", digest)
	}
	if size < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "size %d is negative", size)
	}
	if size > a.s.maxBlob {
		return nil, status.Errorf(codes.InvalidArgument, "blob %s of %d bytes is larger than this server takes, %d bytes (--max-blob-size)", digest, size, a.s.maxBlob)
	}
	if err := checkLease(ctx, a.s.st.r, project, h.GetLeaseId(), a.s.now().UnixNano()); err != nil {
		return nil, err
	}
	return h, nil
}

// blobExists reports whether a project has a registered blob.
func (a *blobAPI) blobExists(ctx context.Context, project, digest string) (bool, error) {
	var one int
	err := a.s.st.r.QueryRowContext(ctx, "SELECT 1 FROM blobs WHERE project = ? AND digest = ?", project, digest).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// spool writes the rest of an upload's stream to f, checks that it has
// the size and digest announced, and rewinds f.
func spool(stream ccv1.BlobService_UploadBlobServer, f *os.File, digest string, size int64) error {
	sum := sha256.New()
	w := io.MultiWriter(f, sum)
	var n int64
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		data := m.GetData()
		if m.GetHeader() != nil {
			return status.Error(codes.InvalidArgument, "a second header in one upload")
		}
		if n+int64(len(data)) > size {
			return status.Errorf(codes.InvalidArgument, "upload of %s is longer than its announced %d bytes", digest, size)
		}
		if _, err := w.Write(data); err != nil {
			return status.Errorf(codes.Internal, "spool upload: %v", err)
		}
		n += int64(len(data))
	}
	if n != size {
		return status.Errorf(codes.InvalidArgument, "upload of %s has %d bytes, not the announced %d", digest, n, size)
	}
	if got := "sha256:" + hex.EncodeToString(sum.Sum(nil)); got != digest {
		return status.Errorf(codes.InvalidArgument, "upload announced as %s has digest %s: nothing stored", digest, got)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return status.Errorf(codes.Internal, "spool upload: %v", err)
	}
	return nil
}

// storeChunks stores the spooled blob r as chunks, chunksPerTx per write
// transaction.
func (s *Server) storeChunks(ctx context.Context, project, digest string, r io.Reader) error {
	buf := make([]byte, chunkSize)
	for seq, eof := 0, false; !eof; {
		tx, err := s.st.w.BeginTx(ctx, nil)
		if err != nil {
			return dbError(err)
		}
		for i := 0; i < chunksPerTx && !eof; i++ {
			m, err := io.ReadFull(r, buf)
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				eof = true
			} else if err != nil {
				tx.Rollback()
				return status.Errorf(codes.Internal, "spool upload: %v", err)
			}
			if m == 0 {
				break
			}
			if _, err := tx.ExecContext(ctx, upsertChunk, project, digest, seq, buf[:m], s.st.uploader); err != nil {
				tx.Rollback()
				return dbError(err)
			}
			seq++
		}
		if err := tx.Commit(); err != nil {
			return dbError(err)
		}
		if s.afterChunks != nil {
			s.afterChunks(project, digest, seq)
		}
	}
	return nil
}

// dropChunks removes the chunks of a blob that was not registered.
func (s *Server) dropChunks(ctx context.Context, project, digest string) {
	if _, err := s.st.w.ExecContext(ctx, "DELETE FROM blob_chunks WHERE project = ? AND digest = ? AND NOT EXISTS (SELECT 1 FROM blobs WHERE project = ? AND digest = ?)",
		project, digest, project, digest); err != nil {
		s.log.Error("remove the chunks of an interrupted upload", "project", project, "digest", digest, "error", err.Error())
	}
}

// uploadKey is whom an upload counts against: its token, or every local
// client together on a server without tokens.
func uploadKey(ctx context.Context) any {
	if p, ok := ctx.Value(principalKey{}).(*principal); ok && p.name != "local" {
		return p
	}
	return "local"
}

// keyLocks are mutexes by key, made as needed and dropped when unused.
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]*keyLock
}

type keyLock struct {
	mu    sync.Mutex
	users int
}

func (k *keyLocks) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyLock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &keyLock{}
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

// cleanSpool removes what interrupted uploads left: the spool directory's
// files and the chunks of blobs never registered.
func cleanSpool(ctx context.Context, st *store, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if _, err := st.w.ExecContext(ctx, `DELETE FROM blob_chunks WHERE NOT EXISTS
		(SELECT 1 FROM blobs WHERE blobs.project = blob_chunks.project AND blobs.digest = blob_chunks.digest)`); err != nil {
		return fmt.Errorf("spool: remove the chunks of interrupted uploads: %w", err)
	}
	return nil
}

// SpoolDir is where a server on the SQLite database at dbPath spools
// uploads. On PostgreSQL each server spools to a directory of its own
// under os.TempDir() (openSpool).
func SpoolDir(dbPath string) string { return dbPath + "-spool" }

// openSpool makes the spool of a server on st, cleaned of what interrupted
// uploads left, and returns its directory. On PostgreSQL the spool is the
// process's own (removed when st closes, held locked while it lives:
// lockSpool), the spools of replicas on this host that were killed are
// removed (reapSpools), and so are the chunks of unregistered blobs that
// replicas which have ended stored (reapChunks); those of a live
// replica's upload are kept.
func openSpool(ctx context.Context, st *store, dbPath string) (string, error) {
	if !st.postgres() {
		return SpoolDir(dbPath), cleanSpool(ctx, st, SpoolDir(dbPath))
	}
	dir, err := os.MkdirTemp("", tmpSpoolPrefix)
	if err != nil {
		return "", fmt.Errorf("spool: %w", err)
	}
	lock, err := lockSpool(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("spool: %w", err)
	}
	st.tmpSpool, st.spoolLock = dir, lock
	reapSpools(os.TempDir(), dir)
	if err := reapChunks(ctx, st); err != nil {
		return "", err
	}
	st.startReaper(reapEvery)
	return dir, nil
}

// reapEvery is how often a PostgreSQL replica reaps, while it lives, what
// replicas that ended since it started left: their spools on this host
// and their chunks. A replica that lives for weeks beside others that are
// killed and started again would otherwise keep their chunks until it
// starts again itself.
var reapEvery = 10 * time.Minute

// startReaper runs reapSpools and reapChunks every period until st
// closes. A reap that fails is tried again at the next tick: what it
// removes is garbage, and nothing waits for it. close cancels what a
// reap is doing rather than wait for it.
func (st *store) startReaper(period time.Duration) {
	stopped, stop := context.WithCancel(context.Background())
	st.reaper.stop, st.reaper.done = stop, make(chan struct{})
	go func() {
		defer close(st.reaper.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-stopped.Done():
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(stopped, time.Minute)
			reapSpools(os.TempDir(), st.tmpSpool)
			reapChunksNow(ctx, st)
			cancel()
		}
	}()
}

// uploaderLockKey is the first key of the PostgreSQL advisory locks the
// replicas hold for their uploads' chunks, (uploaderLockKey, uploader),
// for as long as their processes live: a lock no session holds is a
// replica that has ended. (Two-key advisory locks never meet
// writeLockKey's one-key lock. "cc" in ASCII.)
const uploaderLockKey = 0x6363

// takeUploader opens, on PostgreSQL, the session that holds this
// process's uploader key locked for as long as it lives, and picks the
// key: a random one no live replica holds.
func (st *store) takeUploader(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	for {
		var b [4]byte
		rand.Read(b[:])
		id := int32(binary.BigEndian.Uint32(b[:]) >> 1)
		if id == 0 {
			continue
		}
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", int32(uploaderLockKey), id).Scan(&ok); err != nil {
			conn.Close(ctx)
			return err
		}
		if ok {
			st.uploader, st.uploaderConn = id, conn
			return nil
		}
	}
}

// reapChunks removes, on PostgreSQL, the chunks of unregistered blobs that
// replicas which have ended stored: those of uploads they never finished
// (killed, or their host gone). An uploader's key that can be locked is
// one no live replica holds; it is held while its chunks are removed, so
// that no replica starting meanwhile picks it. Chunks under 0 (stored
// before migration 11) are left alone, since they may be a live upload's.
func reapChunks(ctx context.Context, st *store) error {
	return reapChunksLocking(ctx, st, func(ctx context.Context, q string, id int32) (bool, error) {
		var ok bool
		err := st.uploaderConn.QueryRow(ctx, q, int32(uploaderLockKey), id).Scan(&ok)
		return ok, err
	})
}

// reapChunksLocking is reapChunks, taking and letting go of the keys of
// ended uploaders with query (pg_try_advisory_lock or
// pg_advisory_unlock) on a session of its caller's.
func reapChunksLocking(ctx context.Context, st *store, query func(ctx context.Context, q string, id int32) (bool, error)) error {
	rows, err := st.r.QueryContext(ctx, `SELECT DISTINCT uploader FROM blob_chunks c WHERE uploader <> 0 AND uploader <> ?
		AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.project = c.project AND b.digest = c.digest)`, st.uploader)
	if err != nil {
		return fmt.Errorf("spool: find the chunks of interrupted uploads: %w", err)
	}
	var ids []int32
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("spool: find the chunks of interrupted uploads: %w", err)
		}
		ids = append(ids, int32(id))
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("spool: find the chunks of interrupted uploads: %w", err)
	}
	for _, id := range ids {
		dead, err := query(ctx, "SELECT pg_try_advisory_lock($1, $2)", id)
		if err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		if !dead {
			continue
		}
		_, err = st.w.ExecContext(ctx, `DELETE FROM blob_chunks WHERE uploader = ?
			AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.project = blob_chunks.project AND b.digest = blob_chunks.digest)`, id)
		if _, e := query(ctx, "SELECT pg_advisory_unlock($1, $2)", id); err == nil {
			err = e
		}
		if err != nil {
			return fmt.Errorf("spool: remove the chunks of interrupted uploads: %w", err)
		}
	}
	return nil
}

// reapChunksNow is reapChunks while the store serves: the keys of ended
// uploaders are taken on a connection of the read pool, never on
// uploaderConn, whose session holds this process's own key (a query
// stopped midway ends its session, and would let go of the key with it).
// A connection that failed is closed, not put back holding a key.
func reapChunksNow(ctx context.Context, st *store) error {
	conn, err := st.r.Conn(ctx)
	if err != nil {
		return err
	}
	err = reapChunksLocking(ctx, st, func(ctx context.Context, q string, id int32) (bool, error) {
		var ok bool
		err := conn.QueryRowContext(ctx, q, int32(uploaderLockKey), id).Scan(&ok) // rebind leaves $n alone
		return ok, err
	})
	if err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	conn.Close()
	return err
}

// tmpSpoolPrefix begins the name of a PostgreSQL replica's spool
// directory in os.TempDir().
const tmpSpoolPrefix = "cc-spool-"

// reapSpools removes the spool directories in tmp, but own, whose
// replica has ended (deadSpool): what its interrupted uploads left.
func reapSpools(tmp, own string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		dir := filepath.Join(tmp, e.Name())
		if e.IsDir() && strings.HasPrefix(e.Name(), tmpSpoolPrefix) && dir != own && deadSpool(dir) {
			os.RemoveAll(dir)
		}
	}
}

const (
	defaultReadLimit = 1 << 20
	maxReadLimit     = 4 << 20
)

// ReadBlob returns a blob's first bytes, up to the request's limit.
func (a *blobAPI) ReadBlob(ctx context.Context, req *ccv1.ReadBlobRequest) (*ccv1.ReadBlobResponse, error) {
	project, digest := req.GetProject(), req.GetDigest()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	if !digestRE.MatchString(digest) {
		return nil, status.Errorf(codes.InvalidArgument, "digest %q is not sha256:HEX", digest)
	}
	limit := req.GetLimit()
	switch {
	case limit < 0 || limit > maxReadLimit:
		return nil, status.Errorf(codes.InvalidArgument, "limit %d: want 0 to %d bytes", limit, maxReadLimit)
	case limit == 0:
		limit = defaultReadLimit
	}
	tx, err := a.s.st.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	resp := &ccv1.ReadBlobResponse{Digest: digest}
	err = tx.QueryRowContext(ctx, "SELECT size FROM blobs WHERE project = ? AND digest = ?", project, digest).Scan(&resp.Size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, status.Errorf(codes.NotFound, "project %s has no blob %s", project, digest)
	}
	if err != nil {
		return nil, dbError(err)
	}
	rows, err := tx.QueryContext(ctx, "SELECT data FROM blob_chunks WHERE project = ? AND digest = ? ORDER BY seq", project, digest)
	if err != nil {
		return nil, dbError(err)
	}
	for rows.Next() && int64(len(resp.Data)) < limit {
		var chunk []byte
		if err := rows.Scan(&chunk); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		resp.Data = append(resp.Data, chunk[:min(int64(len(chunk)), limit-int64(len(resp.Data)))]...)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	resp.Truncated = int64(len(resp.Data)) < resp.Size
	return resp, nil
}
