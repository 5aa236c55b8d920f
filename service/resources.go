package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

type resourceAPI struct {
	ccv1.UnimplementedResourceServiceServer
	s *Server
}

var _ ccv1.ResourceServiceServer = (*resourceAPI)(nil)

// maxSecretValue bounds a secret value's size.
const maxSecretValue = 1 << 20

func (a *resourceAPI) EnsureImage(ctx context.Context, req *ccv1.EnsureImageRequest) (*ccv1.EnsureImageResponse, error) {
	p, resp, err := a.ensureImage(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := a.s.commits.do(p); err != nil {
		return nil, err
	}
	return resp, nil
}

// ensureImage checks an EnsureImage request and returns the mutation that
// carries it out, to run in a batch, and the response it fills.
func (a *resourceAPI) ensureImage(ctx context.Context, req *ccv1.EnsureImageRequest) (*pending, *ccv1.EnsureImageResponse, error) {
	kind, name, err := parseAddress(req.GetAddress())
	if err != nil {
		return nil, nil, err
	}
	if kind != schema.KindImage {
		return nil, nil, status.Errorf(codes.InvalidArgument, "EnsureImage takes an image address, not %s", req.GetAddress())
	}
	sens, deps, err := checkRequestSpec(req.GetAddress(), kind, req.GetSpec(), req.GetHash(), req.GetSensitive(), req.GetDependsOn(), true)
	if err != nil {
		return nil, nil, err
	}
	resp := &ccv1.EnsureImageResponse{}
	p, err := a.s.prepareMutation(ctx, ccv1.ResourceService_EnsureImage_FullMethodName, req, resp, func(t *mutation) error {
		cur, err := t.resource(req.GetAddress())
		if err != nil {
			return dbError(err)
		}
		if err := t.staleRow(req.GetAddress(), req.GetExpectedSerial(), cur); err != nil {
			return err
		}
		if err := t.checkGraph(req.GetAddress(), deps); err != nil {
			return err
		}
		created, imgSens, sealed, err := t.ensureImageValue(req.GetAddress(), req.GetHash(), req.GetSpec(), sens, &resp.Created)
		if err != nil {
			return err
		}
		// The response is kept for idempotent retries: no sensitive value.
		resp.Image = &ccv1.Image{Hash: req.GetHash(), Spec: redactedSpec(req.GetSpec(), sens), CreatedAt: timestamppb.New(unixTime(created)), Sensitive: splitLines(imgSens)}
		curSpec := []byte(nil)
		if cur != nil {
			if curSpec, err = t.unsealSpec(cur.address, cur.spec, splitLines(cur.sensitive)); err != nil {
				return err
			}
		}
		if cur != nil && cur.hash == req.GetHash() && bytes.Equal(curSpec, req.GetSpec()) && cur.deps == joinLines(deps) && cur.sensitive == joinLines(sens) && !resp.Created {
			resp.Resource, resp.Serial = cur.proto(), t.serial
			return nil
		}
		r := &row{address: req.GetAddress(), kind: string(kind), name: name, hash: req.GetHash(), spec: sealed,
			status: int64(ccv1.Status_STATUS_READY), created: t.now, updated: t.now, serial: t.bump(), deps: joinLines(deps),
			sensitive: joinLines(sens)}
		if cur != nil {
			r.created, r.id = cur.created, cur.id
		}
		if err := t.put(r); err != nil {
			return dbError(err)
		}
		resp.Resource, resp.Serial, resp.Changed = r.proto(), t.serial, true
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	p.address = req.GetAddress()
	return p, resp, nil
}

// checkRequestSpec checks the spec of an EnsureImage (image) or
// ApplyResource request at addr, with its hash, sensitive pointers and
// dependencies, and returns the pointers and the dependencies checked.
func checkRequestSpec(addr string, kind schema.Kind, spec []byte, hash string, sensitive, dependsOn []string, image bool) (sens, deps []string, err error) {
	if sens, err = checkSensitive(sensitive); err != nil {
		return nil, nil, err
	}
	if err := checkSensitiveSpec(spec, hash, sens, image); err != nil {
		return nil, nil, err
	}
	if deps, err = checkDeps(addr, dependsOn); err != nil {
		return nil, nil, err
	}
	if err := checkKindSpec(addr, kind, spec, deps, sens); err != nil {
		return nil, nil, err
	}
	return sens, deps, nil
}

// ensureImageValue stores the image value with hash and spec, its
// sensitive values sealed (sealSpec), unless the project has it already
// (then with a new sensitive value, or more sensitive pointers, it is
// updated): it returns when the value was first stored, its sensitive
// pointers, and the spec sealed for the image resource at addr; *created
// says it was stored now.
func (t *mutation) ensureImageValue(addr, hash string, spec []byte, sens []string, created *bool) (int64, string, []byte, error) {
	var at int64
	var imgSens string
	var imgSpec []byte
	err := t.tx.QueryRowContext(t.ctx, "SELECT created_at, sensitive, spec FROM images WHERE project = ? AND hash = ?", t.project, hash).Scan(&at, &imgSens, &imgSpec)
	if err == nil {
		if imgSpec, err = t.unsealSpec(imagePlace(hash), imgSpec, splitLines(imgSens)); err != nil {
			return 0, "", nil, err
		}
	}
	sealedImage, serr := t.sealSpec(imagePlace(hash), spec, sens)
	if serr != nil {
		return 0, "", nil, serr
	}
	sealed, serr := t.sealSpec(addr, spec, sens)
	if serr != nil {
		return 0, "", nil, serr
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		at = t.now
		*created = true
		t.bump()
		imgSens = joinLines(sens)
		if err := t.exec("INSERT INTO images (project, hash, spec, created_at, sensitive) VALUES (?, ?, ?, ?, ?)",
			t.project, hash, sealedImage, t.now, imgSens); err != nil {
			return 0, "", nil, dbError(err)
		}
	case err != nil:
		return 0, "", nil, dbError(err)
	case len(sens) > 0 && !bytes.Equal(imgSpec, spec):
		// An image with sensitive values is hashed without them: the
		// same hash with another value is this image with a new value.
		imgSens = joinLines(sens)
		t.bump()
		if err := t.exec("UPDATE images SET spec = ?, sensitive = ? WHERE project = ? AND hash = ?", sealedImage, imgSens, t.project, hash); err != nil {
			return 0, "", nil, dbError(err)
		}
	default:
		// The same content always has the same sensitive values; keep
		// every pointer any caller named.
		if u := joinLines(unionSorted(splitLines(imgSens), sens)); u != imgSens {
			imgSens = u
			t.bump()
			if err := t.exec("UPDATE images SET sensitive = ? WHERE project = ? AND hash = ?", imgSens, t.project, hash); err != nil {
				return 0, "", nil, dbError(err)
			}
		}
	}
	return at, imgSens, sealed, nil
}

// staleRow refuses a change to a resource that was changed or deleted after
// the expected serial.
func (t *mutation) staleRow(address string, expected int64, cur *row) error {
	last, err := t.tombstone(address)
	if err != nil {
		return dbError(err)
	}
	if cur != nil {
		last = max(last, cur.serial)
	}
	return t.stale(address, expected, last)
}

func (a *resourceAPI) ApplyResource(ctx context.Context, req *ccv1.ApplyResourceRequest) (*ccv1.ApplyResourceResponse, error) {
	p, resp, err := a.applyResource(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := a.s.commits.do(p); err != nil {
		return nil, err
	}
	return resp, nil
}

// applyResource checks an ApplyResource request and returns the mutation
// that carries it out, to run in a batch, and the response it fills.
func (a *resourceAPI) applyResource(ctx context.Context, req *ccv1.ApplyResourceRequest) (*pending, *ccv1.ApplyResourceResponse, error) {
	in, err := checkApplyRequest(req)
	if err != nil {
		return nil, nil, err
	}
	resp := &ccv1.ApplyResourceResponse{}
	p, err := a.s.prepareMutation(ctx, ccv1.ResourceService_ApplyResource_FullMethodName, req, resp, func(t *mutation) error {
		return t.applyResource(in, resp)
	})
	if err != nil {
		return nil, nil, err
	}
	p.address, p.blobs = req.GetAddress(), req.GetBlobs()
	return p, resp, nil
}

// applyInput is an ApplyResource request checked before its transaction,
// with what the checks found in it.
type applyInput struct {
	req      *ccv1.ApplyResourceRequest
	action   ccv1.Action
	kind     schema.Kind
	name     string
	sens     []string
	deps     []string
	dataPins []*ccv1.DataPin
}

// checkApplyRequest checks an ApplyResource request on its own, before
// any transaction: its address, action, spec, lifecycle, blob digests,
// new_version and data pins, in that order.
func checkApplyRequest(req *ccv1.ApplyResourceRequest) (*applyInput, error) {
	kind, name, err := parseAddress(req.GetAddress())
	if err != nil {
		return nil, err
	}
	if kind == schema.KindImage {
		return nil, status.Errorf(codes.InvalidArgument, "%s: images are ensured with EnsureImage, not applied", req.GetAddress())
	}
	action := req.GetAction()
	if action != ccv1.Action_ACTION_CREATE && action != ccv1.Action_ACTION_UPDATE && action != ccv1.Action_ACTION_REPLACE {
		return nil, status.Errorf(codes.InvalidArgument, "%s: unknown action %v", req.GetAddress(), action)
	}
	sens, deps, err := checkRequestSpec(req.GetAddress(), kind, req.GetSpec(), req.GetHash(), req.GetSensitive(), req.GetDependsOn(), false)
	if err != nil {
		return nil, err
	}
	if err := checkLifecycleRequest(req.GetAddress(), kind, req); err != nil {
		return nil, err
	}
	for _, d := range req.GetBlobs() {
		if !digestRE.MatchString(d) {
			return nil, status.Errorf(codes.InvalidArgument, "blob digest %q is not sha256:HEX", d)
		}
	}
	if err := checkNewVersion(req.GetAddress(), kind, action, req.GetNewVersion()); err != nil {
		return nil, err
	}
	dataPins, err := checkDataPins(req.GetAddress(), deps, req.GetDataPins())
	if err != nil {
		return nil, err
	}
	return &applyInput{req: req, action: action, kind: kind, name: name, sens: sens, deps: deps, dataPins: dataPins}, nil
}

// applyResource applies the checked request in, inside the transaction of
// t, and fills resp: an update that changes nothing leaves the resource
// as it is.
func (t *mutation) applyResource(in *applyInput, resp *ccv1.ApplyResourceResponse) error {
	req, addr := in.req, in.req.GetAddress()
	cur, err := t.resource(addr)
	if err != nil {
		return dbError(err)
	}
	if err := t.refuseApply(in, cur); err != nil {
		return err
	}
	protectedAt, protected, err := t.protection(addr)
	if err != nil {
		return err
	}
	// A request that says nothing of the protection keeps it.
	want, wantAt := protected, protectedAt
	if req.PreventDestroy != nil {
		want, wantAt = req.GetPreventDestroy(), req.GetPreventDestroyAt()
	}
	sameProtection := protected == want && protectedAt == wantAt
	v, err := t.applyValues(in, cur)
	if err != nil {
		return err
	}
	resp.Reused = v.reused
	if v.unchanged(in, cur) && sameProtection {
		resp.Resource, resp.Serial, resp.Version = cur.proto(), t.serial, v.version
		resp.Resource.PreventDestroy, resp.Resource.PreventDestroyAt = protected, protectedAt
		return nil
	}
	r, err := t.putApplied(in, cur, v)
	if err != nil {
		return err
	}
	// cc applied it: what was changed outside cc is put back.
	if err := t.clearDrift(addr); err != nil {
		return err
	}
	if err := t.protect(addr, want, wantAt); err != nil {
		return err
	}
	resp.Resource, resp.Serial, resp.Version, resp.Changed = r.proto(), t.serial, v.version, true
	resp.Resource.PreventDestroy, resp.Resource.PreventDestroyAt = want, wantAt
	// The reference server replaces in this one transaction whichever
	// the order (cc.proto, create_before_destroy); it says which order
	// it was asked for.
	resp.CreatedBeforeDestroy = in.action == ccv1.Action_ACTION_REPLACE && req.GetCreateBeforeDestroy()
	return nil
}

// refuseApply refuses to apply in to the resource now at its address (cur,
// nil: none) for what checkApply refuses, for an unresolved data source,
// and, for a replace, when the resource is protected.
func (t *mutation) refuseApply(in *applyInput, cur *row) error {
	addr := in.req.GetAddress()
	if err := t.checkApply(addr, in.action, in.req.GetExpectedSerial(), cur, in.deps, in.req.GetBlobs()); err != nil {
		return err
	}
	if err := t.checkDataResolved(addr, in.dataPins); err != nil {
		return err
	}
	if in.kind == schema.KindTraining {
		if err := t.checkTrainingSecrets(addr, in.req.GetSpec()); err != nil {
			return err
		}
	}
	if in.action == ccv1.Action_ACTION_REPLACE {
		if err := t.refuseProtected(addr, "replace"); err != nil {
			return err
		}
	}
	return nil
}

// appliedValues are what an applied resource is stored with, next to what
// it has now.
type appliedValues struct {
	sealed  []byte   // the spec as stored, its sensitive values sealed
	pins    []string // the versions of its versioned dependencies
	version int64    // its version (0: not versioned)
	reused  bool     // whether the version is one it had
	curSpec []byte   // the current spec, unsealed (nil: none)
}

// applyValues works out what in is stored with (sealed spec, pins,
// version) and unseals the current spec of cur (nil: none) to compare.
func (t *mutation) applyValues(in *applyInput, cur *row) (*appliedValues, error) {
	req, addr := in.req, in.req.GetAddress()
	v := &appliedValues{}
	var err error
	// Sensitive values are stored sealed (sealSpec).
	if v.sealed, err = t.sealSpec(addr, req.GetSpec(), in.sens); err != nil {
		return nil, err
	}
	if v.pins, err = t.pins(addr, in.deps); err != nil {
		return nil, err
	}
	if in.kind.Versioned() {
		if v.version, v.reused, err = t.versionOf(addr, req.GetHash(), req.GetSpec(), v.sealed, in.deps, in.sens, req.GetNewVersion()); err != nil {
			return nil, err
		}
	}
	if cur != nil {
		if v.curSpec, err = t.unsealSpec(addr, cur.spec, splitLines(cur.sensitive)); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// unchanged reports whether in is an update of cur (nil: none) that stores
// exactly what cur has (its protection aside).
func (v *appliedValues) unchanged(in *applyInput, cur *row) bool {
	req := in.req
	return cur != nil && in.action == ccv1.Action_ACTION_UPDATE && cur.hash == req.GetHash() && bytes.Equal(v.curSpec, req.GetSpec()) && cur.version == v.version &&
		cur.deps == joinLines(in.deps) && cur.pins == joinLines(v.pins) && cur.sensitive == joinLines(in.sens) && cur.dataPins == encodeDataPins(in.dataPins)
}

// putApplied stores the resource in applies with values v, as a new
// serial: an update keeps the identity of cur, a replace or a create
// makes a new one.
func (t *mutation) putApplied(in *applyInput, cur *row, v *appliedValues) (*row, error) {
	req := in.req
	r := &row{address: req.GetAddress(), kind: string(in.kind), name: in.name, hash: req.GetHash(), spec: v.sealed, version: v.version,
		status: int64(ccv1.Status_STATUS_READY), created: t.now, updated: t.now, serial: t.bump(),
		deps: joinLines(in.deps), pins: joinLines(v.pins), sensitive: joinLines(in.sens), dataPins: encodeDataPins(in.dataPins)}
	if in.action == ccv1.Action_ACTION_UPDATE {
		// An update keeps the resource's identity; a replace makes a
		// new one.
		r.created, r.id = cur.created, cur.id
	}
	if err := t.put(r); err != nil {
		return nil, dbError(err)
	}
	return r, nil
}

// checkApply refuses to apply the resource at addr, now cur (nil: none),
// with action when it changed after the serial expected, when the action
// does not fit what there is, when its dependencies would make a cycle,
// or when the project lacks a blob it needs.
func (t *mutation) checkApply(addr string, action ccv1.Action, expected int64, cur *row, deps, blobs []string) error {
	if err := t.staleRow(addr, expected, cur); err != nil {
		return err
	}
	if err := t.checkAction(addr, action, cur); err != nil {
		return err
	}
	if err := t.checkGraph(addr, deps); err != nil {
		return err
	}
	if missing, err := t.missingBlobs(blobs); err != nil {
		return err
	} else if len(missing) > 0 {
		return missingBlobsStatus(missing)
	}
	return nil
}

// checkAction refuses an action that does not fit what there is at addr:
// a create needs the address free (a terminated or expired sandbox frees
// it: issue 10, drift), an update or a replace a resource there, and an
// update one that still runs.
func (t *mutation) checkAction(addr string, action ccv1.Action, cur *row) error {
	if cur == nil {
		if action != ccv1.Action_ACTION_CREATE {
			return status.Errorf(codes.NotFound, "project %s has no %s to %s", t.project, addr, actionVerb(action))
		}
		return nil
	}
	st, isGone, err := t.goneRow(cur)
	if err != nil {
		return err
	}
	switch {
	case action == ccv1.Action_ACTION_CREATE && !isGone:
		return status.Errorf(codes.AlreadyExists, "project %s already has %s", t.project, addr)
	case action == ccv1.Action_ACTION_UPDATE && isGone:
		return status.Errorf(codes.FailedPrecondition, "%s of project %s is %s: plan again (it will be created again)", addr, t.project, statusWord(st))
	}
	return nil
}

// statusWord is how an error names a status.
func statusWord(s ccv1.Status) string {
	switch s {
	case ccv1.Status_STATUS_TERMINATED:
		return "terminated"
	case ccv1.Status_STATUS_EXPIRED:
		return "expired"
	}
	return s.String()
}

// pins are the versions of the versioned dependencies of the resource at
// addr, "ADDRESS@VERSION": what it is applied with.
func (t *mutation) pins(addr string, deps []string) ([]string, error) {
	var pins []string
	for _, d := range deps {
		if !schema.KindOf(d).Versioned() {
			continue
		}
		dep, err := t.resource(d)
		if err != nil {
			return nil, dbError(err)
		}
		if dep == nil {
			return nil, status.Errorf(codes.FailedPrecondition, "%s depends on %s, which project %s does not have: apply it first", addr, d, t.project)
		}
		pins = append(pins, fmt.Sprintf("%s@%d", d, dep.version))
	}
	return pins, nil
}

// versionOf is the version of the versioned resource at addr with hash
// and spec (sealed: as stored) made with the current values of the
// managed secrets among deps and its sensitive values: the one with that
// key, reused, or a new one.
func (t *mutation) versionOf(addr, hash string, spec, sealed []byte, deps, sens []string, forced bool) (int64, bool, error) {
	secrets, err := versionSecrets(deps, func(address string) (*versionSecret, error) {
		return t.tx.versionSecret(t.ctx, t.project, address)
	})
	if err != nil {
		return 0, false, dbError(err)
	}
	entries, err := t.sensitiveVersionEntries(addr, spec, sens)
	if err != nil {
		return 0, false, err
	}
	secrets = append(secrets, entries...)
	sortVersionSecrets(secrets)
	return t.version(addr, hash, secrets, sealed, joinLines(sens), forced)
}

func actionVerb(a ccv1.Action) string {
	if a == ccv1.Action_ACTION_REPLACE {
		return "replace"
	}
	return "update"
}

// version finds the version of address with the key of hash and secrets,
// or adds one; forced (new_version) always adds one. Of several versions
// with the key (a forced one has the key of the one it bypassed), the
// newest is reused: it was made for a reason the key does not see, such as
// a rotated value of a secret the service does not hold. A scaling group
// reuses only its current revision (an unchanged spec): every change
// appends one (issue 11: scaling groups, revisionQuery).
func (t *mutation) version(address, hash string, secrets []versionSecret, spec []byte, sensitive string, forced bool) (v int64, reused bool, err error) {
	key := versionKey(hash, secrets)
	if !forced {
		err = t.tx.QueryRowContext(t.ctx, reuseQuery(schema.KindOf(address)), t.project, address, key).Scan(&v)
		if err == nil {
			return v, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, false, dbError(err)
		}
	}
	if err := t.tx.QueryRowContext(t.ctx, "SELECT COALESCE(MAX(version), 0) + 1 FROM versions WHERE project = ? AND address = ?",
		t.project, address).Scan(&v); err != nil {
		return 0, false, dbError(err)
	}
	t.bump()
	if err := t.exec("INSERT INTO versions (project, address, version, hash, spec, created_at, sensitive, key, secrets) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		t.project, address, v, hash, spec, t.now, sensitive, key, encodeVersionSecrets(secrets)); err != nil {
		return 0, false, dbError(err)
	}
	return v, false, nil
}

// missingBlobs returns those of digests the project lacks, sorted.
func (t *mutation) missingBlobs(digests []string) ([]string, error) {
	if len(digests) == 0 {
		return nil, nil
	}
	if len(digests) <= maxLookups {
		return t.missingFew(digests)
	}
	return findMissing(t.ctx, t.tx, t.project, digests)
}

// maxLookups is how many blobs missingBlobs looks up one by one, with one
// prepared statement (issue 13: an IN list of each length is parsed again
// each time), rather than in one query.
const maxLookups = 16

// missingFew is missingBlobs for a few digests.
func (t *mutation) missingFew(digests []string) ([]string, error) {
	want := append([]string(nil), digests...)
	sort.Strings(want)
	var missing []string
	for _, d := range compactStrings(want) {
		if t.tx.facts.isPresent("blobs", t.project, d) {
			continue
		}
		if t.tx.facts.isAbsent("blobs", t.project, d) {
			missing = append(missing, d)
			continue
		}
		var one int
		err := t.tx.QueryRowContext(t.ctx, "SELECT 1 FROM blobs WHERE project = ? AND digest = ?", t.project, d).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			missing = append(missing, d)
		} else if err != nil {
			return nil, dbError(err)
		}
	}
	return missing, nil
}

func (a *resourceAPI) DeleteResource(ctx context.Context, req *ccv1.DeleteResourceRequest) (*ccv1.DeleteResourceResponse, error) {
	if _, _, err := parseAddress(req.GetAddress()); err != nil {
		return nil, err
	}
	resp := &ccv1.DeleteResourceResponse{}
	err := a.s.mutate(ctx, ccv1.ResourceService_DeleteResource_FullMethodName, req, resp, func(t *mutation) error {
		addr := req.GetAddress()
		cur, err := t.resource(addr)
		if err != nil {
			return dbError(err)
		}
		rev, err := t.latestRevision(addr)
		if err != nil {
			return err
		}
		if cur == nil && rev == nil {
			return status.Errorf(codes.NotFound, "project %s has no %s to delete", t.project, addr)
		}
		last, err := t.tombstone(addr)
		if err != nil {
			return dbError(err)
		}
		if cur != nil {
			last = max(last, cur.serial)
		}
		if rev != nil {
			last = max(last, rev.serial)
		}
		if err := t.stale(addr, req.GetExpectedSerial(), last); err != nil {
			return err
		}
		if err := t.refuseProtected(addr, "delete"); err != nil {
			return err
		}
		if ds, err := t.dependants(addr); err != nil {
			return err
		} else if len(ds) > 0 {
			return dependantsStatus(addr, ds)
		}
		serial := t.bump()
		for _, q := range []string{
			"DELETE FROM resources WHERE project = ? AND address = ?",
			"DELETE FROM versions WHERE project = ? AND address = ?",
			"DELETE FROM secret_revisions WHERE project = ? AND address = ?",
		} {
			if err := t.exec(q, t.project, addr); err != nil {
				return dbError(err)
			}
		}
		if err := t.exec(upsertTombstone, t.project, addr, serial); err != nil {
			return dbError(err)
		}
		if err := t.clearDrift(addr); err != nil {
			return err
		}
		if cur != nil {
			resp.Deleted = cur.proto()
		}
		resp.Serial = serial
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func (a *resourceAPI) ListVersions(ctx context.Context, req *ccv1.ListVersionsRequest) (*ccv1.ListVersionsResponse, error) {
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	kind, _, err := parseAddress(req.GetAddress())
	if err != nil {
		return nil, err
	}
	if !kind.Versioned() && kind != schema.KindSecret {
		return nil, status.Errorf(codes.InvalidArgument, "%s: %s have no versions", req.GetAddress(), kind.Plural())
	}
	tx, err := a.s.st.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, dbError(err)
	}
	defer tx.Rollback()
	var current int64
	q := "SELECT version, hash, spec, created_at, key, secrets, sensitive FROM versions WHERE project = ? AND address = ? ORDER BY version"
	if kind == schema.KindSecret {
		// Nothing derived from a value is sent: no fingerprint for hash.
		q = "SELECT revision, '', x'', created_at, '', '', '' FROM secret_revisions WHERE project = ? AND address = ? ORDER BY revision"
	} else {
		err := tx.QueryRowContext(ctx, "SELECT version FROM resources WHERE project = ? AND address = ?", project, req.GetAddress()).Scan(&current)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, dbError(err)
		}
	}
	classes, err := valueClasses(ctx, tx, project)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, q, project, req.GetAddress())
	if err != nil {
		return nil, dbError(err)
	}
	resp := &ccv1.ListVersionsResponse{}
	for rows.Next() {
		var v ccv1.Version
		var created int64
		var secrets, sens string
		if err := rows.Scan(&v.Version, &v.Hash, &v.Spec, &created, &v.Key, &secrets, &sens); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		v.Spec = redactedSpec(v.Spec, splitLines(sens))
		v.Secrets = decodeVersionSecrets(secrets, classes)
		if len(v.Spec) == 0 {
			v.Spec = nil
		}
		v.CreatedAt = timestamppb.New(unixTime(created))
		v.Current = v.Version == current
		resp.Versions = append(resp.Versions, &v)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	if len(resp.Versions) == 0 {
		return nil, status.Errorf(codes.NotFound, "project %s has no %s", project, req.GetAddress())
	}
	if kind == schema.KindSecret {
		resp.Versions[len(resp.Versions)-1].Current = true
	}
	return resp, nil
}

func (a *resourceAPI) Rollback(ctx context.Context, req *ccv1.RollbackRequest) (*ccv1.RollbackResponse, error) {
	kind, _, err := parseAddress(req.GetAddress())
	if err != nil {
		return nil, err
	}
	if !kind.Versioned() {
		return nil, status.Errorf(codes.InvalidArgument, "%s: only %s have versions to roll back to", req.GetAddress(), schema.VersionedKinds())
	}
	resp := &ccv1.RollbackResponse{}
	err = a.s.mutate(ctx, ccv1.ResourceService_Rollback_FullMethodName, req, resp, func(t *mutation) error {
		addr := req.GetAddress()
		cur, err := t.resource(addr)
		if err != nil {
			return dbError(err)
		}
		if cur == nil {
			return status.Errorf(codes.NotFound, "project %s has no %s", t.project, addr)
		}
		if err := t.staleRow(addr, req.GetExpectedSerial(), cur); err != nil {
			return err
		}
		var hash, sens string
		var spec []byte
		err = t.tx.QueryRowContext(t.ctx, "SELECT hash, spec, sensitive FROM versions WHERE project = ? AND address = ? AND version = ?",
			t.project, addr, req.GetVersion()).Scan(&hash, &spec, &sens)
		if errors.Is(err, sql.ErrNoRows) {
			return status.Errorf(codes.NotFound, "%s in project %s has no %s %d", addr, t.project, kind.VersionNoun(), req.GetVersion())
		}
		if err != nil {
			return dbError(err)
		}
		if cur.version == req.GetVersion() {
			resp.Resource, resp.Serial = cur.proto(), t.serial
			return nil
		}
		cur.hash, cur.spec, cur.version, cur.updated, cur.serial = hash, spec, req.GetVersion(), t.now, t.bump()
		cur.sensitive = sens
		if err := t.put(cur); err != nil {
			return dbError(err)
		}
		resp.Resource, resp.Serial, resp.Changed = cur.proto(), t.serial, true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// revision is a stored secret revision, without its value.
type revision struct {
	revision    int64
	fingerprint string
	created     int64
	serial      int64
}

func (t *mutation) latestRevision(address string) (*revision, error) {
	var r revision
	err := t.tx.QueryRowContext(t.ctx, `SELECT revision, fingerprint, created_at, serial FROM secret_revisions
		WHERE project = ? AND address = ? ORDER BY revision DESC LIMIT 1`, t.project, address).Scan(&r.revision, &r.fingerprint, &r.created, &r.serial)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, dbError(err)
	}
	return &r, nil
}

func (a *resourceAPI) PutSecretValue(ctx context.Context, req *ccv1.PutSecretValueRequest) (*ccv1.PutSecretValueResponse, error) {
	kind, _, err := parseAddress(req.GetAddress())
	if err != nil {
		return nil, err
	}
	if kind != schema.KindSecret {
		return nil, status.Errorf(codes.InvalidArgument, "%s is not a secret", req.GetAddress())
	}
	if len(req.GetValue()) > maxSecretValue {
		return nil, status.Errorf(codes.InvalidArgument, "%s: value larger than %d bytes", req.GetAddress(), maxSecretValue)
	}
	resp := &ccv1.PutSecretValueResponse{}
	err = a.s.mutate(ctx, ccv1.ResourceService_PutSecretValue_FullMethodName, req, resp, func(t *mutation) error {
		addr := req.GetAddress()
		rev, err := t.latestRevision(addr)
		if err != nil {
			return err
		}
		last, err := t.tombstone(addr)
		if err != nil {
			return dbError(err)
		}
		if rev != nil {
			last = max(last, rev.serial)
		}
		if err := t.stale(addr, req.GetExpectedSerial(), last); err != nil {
			return err
		}
		keyed, legacy := t.secretFingerprints(addr, req.GetValue())
		if rev != nil && (hmac.Equal([]byte(rev.fingerprint), []byte(keyed)) || hmac.Equal([]byte(rev.fingerprint), []byte(legacy))) {
			same, _, err := equalRevision(t.ctx, t.tx.Tx, t.project, addr, keyed, legacy)
			if err != nil {
				return dbError(err)
			}
			resp.SecretValue = &ccv1.SecretValue{Address: addr, Revision: rev.revision, SameValueAs: same, UpdatedAt: timestamppb.New(unixTime(rev.created))}
			resp.Serial = t.serial
			return nil
		}
		// A value an earlier revision had keeps that revision's
		// fingerprint, so versions made with it are reused.
		fp, same := keyed, int64(0)
		if r, f, err := equalRevision(t.ctx, t.tx.Tx, t.project, addr, keyed, legacy); err != nil {
			return dbError(err)
		} else if f != "" {
			fp, same = f, r
		}
		n := int64(1)
		if rev != nil {
			n = rev.revision + 1
		}
		nonce, ct := t.s.keys.seal(req.GetValue(), t.project, addr, n)
		serial := t.bump()
		if err := t.exec(`INSERT INTO secret_revisions (project, address, revision, nonce, ciphertext, fingerprint, created_at, serial)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, t.project, addr, n, nonce, ct, fp, t.now, serial); err != nil {
			return dbError(err)
		}
		if err := t.exec("DELETE FROM tombstones WHERE project = ? AND address = ?", t.project, addr); err != nil {
			return dbError(err)
		}
		if same == 0 {
			same = n
		}
		resp.SecretValue = &ccv1.SecretValue{Address: addr, Revision: n, SameValueAs: same, UpdatedAt: timestamppb.New(unixTime(t.now))}
		resp.Serial, resp.Changed = serial, true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}
