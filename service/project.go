package service

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

type projectAPI struct {
	ccv1.UnimplementedProjectServiceServer
	s *Server
}

var _ ccv1.ProjectServiceServer = (*projectAPI)(nil)

// GetState reads everything in one read transaction, so the serial, the
// resources and the answers to the values it compares (issue 8 item 8)
// are one consistent snapshot.
func (a *projectAPI) GetState(ctx context.Context, req *ccv1.GetStateRequest) (*ccv1.GetStateResponse, error) {
	if err := a.s.checkStateRequest(ctx, req); err != nil {
		return nil, err
	}
	project := req.GetProject()
	tx, err := a.s.st.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	resp := &ccv1.GetStateResponse{Project: project}
	salt, found, err := a.s.stateHead(ctx, tx, project, resp)
	if err != nil {
		return nil, err
	}
	if err := a.s.stateAnswers(ctx, tx, req, salt, resp); err != nil {
		return nil, err
	}
	if !found {
		return resp, nil
	}
	now := a.s.now().UnixNano()
	if req.GetKnownSerial() != 0 && req.GetKnownSerial() == resp.Serial {
		// A sandbox that expired changed the state without a serial
		// change (issue 10, drift): then the whole state comes.
		expired, err := expiredUnrecorded(ctx, tx, project, now)
		if err != nil {
			return nil, err
		}
		if !expired {
			resp.Unchanged = true
			return resp, nil
		}
	}
	if err := fullState(ctx, tx, project, now, resp); err != nil {
		return nil, err
	}
	if err := a.s.stateOutputs(ctx, tx, project, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// checkStateRequest checks a GetState request before its transaction: its
// project, data lookups, comparisons and unowned names, in that order.
func (s *Server) checkStateRequest(ctx context.Context, req *ccv1.GetStateRequest) error {
	project := req.GetProject()
	if !validProject(project) {
		return status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	if err := checkDataLookups(req.GetData()); err != nil {
		return err
	}
	if err := s.admitComparisons(ctx, req.GetCompare()); err != nil {
		return err
	}
	return checkUnownedNames(req.GetUnowned())
}

// stateHead reads the live lock of project (without its id), its serial
// and lineage into resp, and returns its salt and whether the project
// exists.
func (s *Server) stateHead(ctx context.Context, tx *sql.Tx, project string, resp *ccv1.GetStateResponse) (salt []byte, found bool, err error) {
	if resp.Lock, err = liveLease(ctx, tx, project, s.now().UnixNano()); err != nil {
		return nil, false, dbError(err)
	}
	if resp.Lock != nil {
		// Whoever knows a lease's id can write as its holder.
		resp.Lock.Id = ""
	}
	err = tx.QueryRowContext(ctx, "SELECT serial, lineage, salt FROM projects WHERE name = ?", project).Scan(&resp.Serial, &resp.Lineage, &salt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, false, dbError(err)
	}
	return salt, !errors.Is(err, sql.ErrNoRows), nil
}

// stateAnswers fills in resp what GetState answers even when the state is
// unchanged or the project does not exist: the comparisons (with the
// project's salt), the data sources and the unowned resources asked for.
func (s *Server) stateAnswers(ctx context.Context, tx *sql.Tx, req *ccv1.GetStateRequest, salt []byte, resp *ccv1.GetStateResponse) error {
	var err error
	if len(req.GetCompare()) > 0 {
		// Answered even when the state is unchanged: the local values
		// may have changed while it did not.
		t := &mutation{tx: newStmtTx(tx, nil), ctx: ctx, s: s, project: req.GetProject(), salt: salt}
		if resp.Matches, err = t.matches(req.GetCompare()); err != nil {
			return err
		}
	}
	if len(req.GetData()) > 0 {
		// Answered even when the state is unchanged: the unowned
		// resources move without the project's serial (issue 10).
		if resp.Data, err = resolveData(ctx, tx, req.GetData()); err != nil {
			return err
		}
	}
	// Answered even when the state is unchanged: "-" has its own serial.
	resp.Unowned, err = unownedResources(ctx, tx, req.GetUnowned())
	return err
}

// fullState reads the whole state of project at now into resp: its
// resources with their expiry, protections and versions, its drift, images
// and secret values.
func fullState(ctx context.Context, tx *sql.Tx, project string, now int64, resp *ccv1.GetStateResponse) error {
	var err error
	if resp.Resources, err = stateResources(ctx, tx, project); err != nil {
		return err
	}
	if err := addExpiry(ctx, tx, project, now, resp.Resources); err != nil {
		return err
	}
	if resp.Drift, err = stateDrift(ctx, tx, project, now); err != nil {
		return err
	}
	if err := addProtections(ctx, tx, project, resp.Resources); err != nil {
		return err
	}
	// Secret values are told apart by revision numbers (same_value_as),
	// never by anything derived from a value (issue 8 item 8).
	classes, err := valueClasses(ctx, tx, project)
	if err != nil {
		return err
	}
	if err := addVersions(ctx, tx, project, resp.Resources, classes); err != nil {
		return err
	}
	if resp.Images, err = stateImages(ctx, tx, project); err != nil {
		return err
	}
	resp.SecretValues, err = stateSecretValues(ctx, tx, project, classes)
	return err
}

// stateResources are a project's resources, by address, their sensitive
// values redacted.
func stateResources(ctx context.Context, tx *sql.Tx, project string) ([]*ccv1.Resource, error) {
	rows, err := tx.QueryContext(ctx, "SELECT "+rowColumns+" FROM resources WHERE project = ? ORDER BY address", project)
	if err != nil {
		return nil, dbError(err)
	}
	var out []*ccv1.Resource
	for rows.Next() {
		var r row
		if err := r.scan(rows); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		rp := r.proto()
		rp.Spec = redactedSpec(rp.Spec, rp.Sensitive)
		out = append(out, rp)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	return out, nil
}

// stateImages are a project's images, by hash, their sensitive values
// redacted.
func stateImages(ctx context.Context, tx *sql.Tx, project string) ([]*ccv1.Image, error) {
	rows, err := tx.QueryContext(ctx, "SELECT hash, spec, created_at, sensitive FROM images WHERE project = ? ORDER BY hash", project)
	if err != nil {
		return nil, dbError(err)
	}
	var out []*ccv1.Image
	for rows.Next() {
		var im ccv1.Image
		var created int64
		var sens string
		if err := rows.Scan(&im.Hash, &im.Spec, &created, &sens); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		im.CreatedAt = timestamppb.New(unixTime(created))
		im.Sensitive = splitLines(sens)
		im.Spec = redactedSpec(im.Spec, im.Sensitive)
		out = append(out, &im)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	return out, nil
}

// stateSecretValues are the latest revision of each of a project's
// secret values, by address, told apart by the value classes.
func stateSecretValues(ctx context.Context, tx *sql.Tx, project string, classes map[string]int64) ([]*ccv1.SecretValue, error) {
	rows, err := tx.QueryContext(ctx, `SELECT address, revision, fingerprint, created_at FROM secret_revisions AS s
		WHERE project = ? AND revision = (SELECT MAX(revision) FROM secret_revisions WHERE project = s.project AND address = s.address)
		ORDER BY address`, project)
	if err != nil {
		return nil, dbError(err)
	}
	var out []*ccv1.SecretValue
	for rows.Next() {
		var v ccv1.SecretValue
		var created int64
		var fp string
		if err := rows.Scan(&v.Address, &v.Revision, &fp, &created); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		v.SameValueAs = classes[v.Address+"\x00"+fp]
		v.UpdatedAt = timestamppb.New(unixTime(created))
		out = append(out, &v)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	return out, nil
}

// addVersions lists each versioned resource's versions, without specs,
// with their keys and the secret revisions they were made with.
func addVersions(ctx context.Context, tx *sql.Tx, project string, resources []*ccv1.Resource, classes map[string]int64) error {
	byAddr := make(map[string]*ccv1.Resource)
	for _, r := range resources {
		if schema.Kind(r.GetKind()).Versioned() {
			byAddr[r.GetAddress()] = r
		}
	}
	if len(byAddr) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, "SELECT address, version, hash, created_at, key, secrets FROM versions WHERE project = ? ORDER BY address, version", project)
	if err != nil {
		return dbError(err)
	}
	for rows.Next() {
		var addr, secrets string
		var v ccv1.Version
		var created int64
		if err := rows.Scan(&addr, &v.Version, &v.Hash, &created, &v.Key, &secrets); err != nil {
			rows.Close()
			return dbError(err)
		}
		r := byAddr[addr]
		if r == nil {
			continue
		}
		v.Secrets = decodeVersionSecrets(secrets, classes)
		v.CreatedAt = timestamppb.New(unixTime(created))
		v.Current = v.Version == r.GetVersion()
		r.Versions = append(r.Versions, &v)
	}
	return closeRows(rows)
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return dbError(err)
	}
	return nil
}

const (
	defaultTTL = time.Minute
	maxTTL     = time.Hour
)

func leaseTTL(d interface {
	AsDuration() time.Duration
	IsValid() bool
}, set bool) (time.Duration, error) {
	if !set {
		return defaultTTL, nil
	}
	if !d.IsValid() {
		return 0, status.Error(codes.InvalidArgument, "invalid ttl")
	}
	ttl := d.AsDuration()
	if ttl < time.Second || ttl > maxTTL {
		return 0, status.Errorf(codes.InvalidArgument, "ttl %s: want between 1s and %s", ttl, maxTTL)
	}
	return ttl, nil
}

func (a *projectAPI) Lock(ctx context.Context, req *ccv1.LockRequest) (*ccv1.LockResponse, error) {
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	ttl, err := leaseTTL(req.GetTtl(), req.Ttl != nil)
	if err != nil {
		return nil, err
	}
	h := req.GetHolder()
	if h == nil || h.GetUser() == "" {
		return nil, status.Error(codes.InvalidArgument, "a lock needs a holder with a user")
	}
	if len(h.GetUser()) > 256 || len(h.GetHost()) > 256 || len(h.GetCommand()) > 1024 {
		return nil, status.Error(codes.InvalidArgument, "holder description too long")
	}
	tx, err := a.s.st.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	now := a.s.now()
	held, err := liveLease(ctx, tx, project, now.UnixNano())
	if err != nil {
		return nil, dbError(err)
	}
	if held != nil {
		return nil, lockedStatus(project, held)
	}
	id := make([]byte, 16)
	rand.Read(id)
	l := &ccv1.Lease{
		Id:         hex.EncodeToString(id),
		Holder:     &ccv1.Holder{User: h.GetUser(), Host: h.GetHost(), Command: h.GetCommand(), Pid: h.GetPid()},
		AcquiredAt: timestamppb.New(now),
		ExpiresAt:  timestamppb.New(now.Add(ttl)),
	}
	if _, err := tx.ExecContext(ctx, upsertLock, project, l.Id, h.GetUser(), h.GetHost(), h.GetCommand(), h.GetPid(), now.UnixNano(), now.Add(ttl).UnixNano()); err != nil {
		return nil, dbError(err)
	}
	var serial int64
	var lineage string
	if err := tx.QueryRowContext(ctx, "SELECT serial, lineage FROM projects WHERE name = ?", project).Scan(&serial, &lineage); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, dbError(err)
	}
	if err := tx.Commit(); err != nil {
		return nil, dbError(err)
	}
	return &ccv1.LockResponse{Lease: l, Serial: serial, Lineage: lineage}, nil
}

func (a *projectAPI) RenewLock(ctx context.Context, req *ccv1.RenewLockRequest) (*ccv1.RenewLockResponse, error) {
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	ttl, err := leaseTTL(req.GetTtl(), req.Ttl != nil)
	if err != nil {
		return nil, err
	}
	tx, err := a.s.st.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	now := a.s.now()
	l, err := lease(ctx, tx, project)
	if err != nil {
		return nil, dbError(err)
	}
	if l == nil {
		return nil, status.Errorf(codes.NotFound, "project %s is not locked: lease %s was released", project, req.GetLeaseId())
	}
	if l.GetId() != req.GetLeaseId() {
		if l.GetExpiresAt().AsTime().After(now) {
			return nil, lockedStatus(project, l)
		}
		return nil, status.Errorf(codes.NotFound, "lease %s on project %s was taken over and has expired since", req.GetLeaseId(), project)
	}
	// A lease that expired but that nobody took over is still the
	// holder's to renew.
	l.ExpiresAt = timestamppb.New(now.Add(ttl))
	if _, err := tx.ExecContext(ctx, "UPDATE locks SET expires_at = ? WHERE project = ?", now.Add(ttl).UnixNano(), project); err != nil {
		return nil, dbError(err)
	}
	if err := tx.Commit(); err != nil {
		return nil, dbError(err)
	}
	return &ccv1.RenewLockResponse{Lease: l}, nil
}

func (a *projectAPI) Unlock(ctx context.Context, req *ccv1.UnlockRequest) (*ccv1.UnlockResponse, error) {
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	if !req.GetForce() && req.GetLeaseId() == "" {
		return nil, status.Error(codes.InvalidArgument, "unlock needs the lease id, or force")
	}
	tx, err := a.s.st.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	l, err := lease(ctx, tx, project)
	if err != nil {
		return nil, dbError(err)
	}
	resp := &ccv1.UnlockResponse{}
	switch {
	case l == nil:
		return resp, nil
	case req.GetForce() || l.GetId() == req.GetLeaseId():
		resp.Released = l
	case l.GetExpiresAt().AsTime().After(a.s.now()):
		return nil, lockedStatus(project, l)
	default:
		// Another holder's lease, expired: not ours to release, and it
		// holds nothing any more.
		return resp, nil
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM locks WHERE project = ?", project); err != nil {
		return nil, dbError(err)
	}
	if err := tx.Commit(); err != nil {
		return nil, dbError(err)
	}
	return resp, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// lease returns the project's lease, live or expired, or nil.
func lease(ctx context.Context, q querier, project string) (*ccv1.Lease, error) {
	var l ccv1.Lease
	var h ccv1.Holder
	var acquired, expires int64
	err := q.QueryRowContext(ctx, "SELECT lease_id, \"user\", host, command, pid, acquired_at, expires_at FROM locks WHERE project = ?", project).
		Scan(&l.Id, &h.User, &h.Host, &h.Command, &h.Pid, &acquired, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l.Holder = &h
	l.AcquiredAt = timestamppb.New(unixTime(acquired))
	l.ExpiresAt = timestamppb.New(unixTime(expires))
	return &l, nil
}

// liveLease returns the project's lease if it has not expired at now.
func liveLease(ctx context.Context, q querier, project string, now int64) (*ccv1.Lease, error) {
	l, err := lease(ctx, q, project)
	if err != nil || l == nil {
		return nil, err
	}
	if l.GetExpiresAt().AsTime().UnixNano() <= now {
		return nil, nil
	}
	return l, nil
}

func unixTime(ns int64) time.Time { return time.Unix(0, ns).UTC() }

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func joinLines(s []string) string { return strings.Join(s, "\n") }
