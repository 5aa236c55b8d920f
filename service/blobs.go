package service

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"sort"
	"strings"

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
	if !validName(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not a lowercase DNS label", project)
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
func findMissing(ctx context.Context, tx *sql.Tx, project string, digests []string) ([]string, error) {
	want := append([]string(nil), digests...)
	sort.Strings(want)
	want = compactStrings(want)
	have := map[string]bool{}
	const batch = 500
	for i := 0; i < len(want); i += batch {
		part := want[i:min(i+batch, len(want))]
		args := make([]any, 0, len(part)+1)
		args = append(args, project)
		for _, d := range part {
			args = append(args, d)
		}
		rows, err := tx.QueryContext(ctx, "SELECT digest FROM blobs WHERE project = ? AND digest IN (?"+strings.Repeat(",?", len(part)-1)+")", args...)
		if err != nil {
			return nil, dbError(err)
		}
		for rows.Next() {
			var d string
			if err := rows.Scan(&d); err != nil {
				rows.Close()
				return nil, dbError(err)
			}
			have[d] = true
		}
		if err := closeRows(rows); err != nil {
			return nil, err
		}
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

// UploadBlob spools the stream to a temporary file beside the database
// while hashing it, and stores it in one transaction only when its digest
// and size are the ones announced.
func (a *blobAPI) UploadBlob(stream ccv1.BlobService_UploadBlobServer) error {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "no header: %v", err)
	}
	h := first.GetHeader()
	if h == nil {
		return status.Error(codes.InvalidArgument, "the first message of an upload is its header")
	}
	project, digest, size := h.GetProject(), h.GetDigest(), h.GetSize()
	if ci, ok := ctx.Value(callInfoKey{}).(*callInfo); ok {
		ci.project = project
	}
	if !validName(project) {
		return status.Errorf(codes.InvalidArgument, "project %q is not a lowercase DNS label", project)
	}
	if err := authorize(ctx, project); err != nil {
		return err
	}
	if !digestRE.MatchString(digest) {
		return status.Errorf(codes.InvalidArgument, "digest %q is not sha256:HEX", digest)
	}
	if size < 0 || size > a.s.maxBlob {
		return status.Errorf(codes.InvalidArgument, "size %d: want 0 to %d bytes", size, a.s.maxBlob)
	}
	var exists int
	err = a.s.st.r.QueryRowContext(ctx, "SELECT 1 FROM blobs WHERE project = ? AND digest = ?", project, digest).Scan(&exists)
	switch {
	case err == nil:
		return stream.SendAndClose(&ccv1.UploadBlobResponse{Digest: digest, Size: size, Existed: true})
	case !errors.Is(err, sql.ErrNoRows):
		return dbError(err)
	}

	f, err := os.CreateTemp(a.s.tmpDir, ".cc-upload-*")
	if err != nil {
		return status.Errorf(codes.Internal, "spool upload: %v", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
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

	tx, err := a.s.st.w.BeginTx(ctx, nil)
	if err != nil {
		return dbError(err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO blobs (project, digest, size, created_at) VALUES (?, ?, ?, ?)", project, digest, size, a.s.now().UnixNano())
	if err != nil {
		return dbError(err)
	}
	if added, _ := res.RowsAffected(); added == 0 {
		// Uploaded meanwhile by another call.
		return stream.SendAndClose(&ccv1.UploadBlobResponse{Digest: digest, Size: size, Existed: true})
	}
	buf := make([]byte, chunkSize)
	for seq := 0; ; seq++ {
		m, err := io.ReadFull(f, buf)
		if m > 0 {
			if _, err := tx.ExecContext(ctx, "INSERT INTO blob_chunks (project, digest, seq, data) VALUES (?, ?, ?, ?)", project, digest, seq, buf[:m]); err != nil {
				return dbError(err)
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return status.Errorf(codes.Internal, "spool upload: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return dbError(err)
	}
	return stream.SendAndClose(&ccv1.UploadBlobResponse{Digest: digest, Size: size})
}

const (
	defaultReadLimit = 1 << 20
	maxReadLimit     = 4 << 20
)

// ReadBlob returns a blob's first bytes, up to the request's limit.
func (a *blobAPI) ReadBlob(ctx context.Context, req *ccv1.ReadBlobRequest) (*ccv1.ReadBlobResponse, error) {
	project, digest := req.GetProject(), req.GetDigest()
	if !validName(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not a lowercase DNS label", project)
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
