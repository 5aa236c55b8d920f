package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// Data sources (issue 10): a project refers to resources of the reserved
// project Unowned by kind and name. GetState resolves them in its read;
// ApplyResource checks, in its write, that each still resolves to what
// the plan showed, and keeps what it was applied with.

// maxDataLookups bounds the data sources one GetState resolves.
const maxDataLookups = 1000

// checkDataLookups checks the data sources a GetState names.
func checkDataLookups(ls []*ccv1.DataLookup) error {
	if len(ls) > maxDataLookups {
		return status.Errorf(codes.InvalidArgument, "%d data sources: at most %d a call", len(ls), maxDataLookups)
	}
	for i, l := range ls {
		k := schema.Kind(l.GetKind())
		switch {
		case !schema.DataKind(k):
			return status.Errorf(codes.InvalidArgument, "data source %d: kind %q is not one of secret, volume, dataset, function", i, l.GetKind())
		case !schema.ValidName(l.GetName()):
			return status.Errorf(codes.InvalidArgument, "data source %d: name %q is not a lowercase DNS label", i, logValue(l.GetName()))
		case l.GetVersion() < 0 || l.GetVersion() > 0 && !k.Versioned():
			return status.Errorf(codes.InvalidArgument, "data source %d: version %d of a %s", i, l.GetVersion(), k)
		}
	}
	return nil
}

// resolveData answers the data sources a GetState names, in its read.
func resolveData(ctx context.Context, tx *sql.Tx, ls []*ccv1.DataLookup) ([]*ccv1.DataResolution, error) {
	var out []*ccv1.DataResolution
	for _, l := range ls {
		r, err := resolveDataSource(ctx, tx, schema.Kind(l.GetKind()), l.GetName(), l.GetVersion())
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// resolveDataSource finds the unowned resource of kind k and name, at a
// version of a dataset or function (0: the current one).
func resolveDataSource(ctx context.Context, tx *sql.Tx, k schema.Kind, name string, version int64) (*ccv1.DataResolution, error) {
	addr := schema.Address(k, name)
	res := &ccv1.DataResolution{Address: addr}
	var hash string
	var current int64
	err := tx.QueryRowContext(ctx, "SELECT hash, version FROM resources WHERE project = ? AND address = ?", Unowned, addr).Scan(&hash, &current)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, dbError(err)
	}
	switch {
	case k.Versioned() && version > 0:
		err := tx.QueryRowContext(ctx, "SELECT hash FROM versions WHERE project = ? AND address = ? AND version = ?", Unowned, addr, version).Scan(&hash)
		if errors.Is(err, sql.ErrNoRows) {
			return &ccv1.DataResolution{}, nil
		}
		if err != nil {
			return nil, dbError(err)
		}
		res.Found, res.Hash, res.Version = true, hash, version
	case k == schema.KindSecret:
		var rev sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT MAX(revision) FROM secret_revisions WHERE project = ? AND address = ?", Unowned, addr).Scan(&rev); err != nil {
			return nil, dbError(err)
		}
		res.Found, res.Hash, res.Version = found || rev.Valid, hash, rev.Int64
	default:
		res.Found, res.Hash, res.Version = found, hash, current
	}
	if !res.Found {
		return &ccv1.DataResolution{}, nil
	}
	return res, nil
}

// checkDataPins checks the data pins of an ApplyResource against its
// dependencies (sorted): one for each data source among them and none
// other, each well formed. It returns them sorted by address.
func checkDataPins(addr string, deps []string, pins []*ccv1.DataPin) ([]*ccv1.DataPin, error) {
	byAddr := map[string]*ccv1.DataPin{}
	for _, p := range pins {
		k, _, ok := schema.ParseDataAddress(p.GetAddress())
		if !ok {
			return nil, status.Errorf(codes.InvalidArgument, "%s: data pin %q is not data.KIND.NAME", addr, logValue(p.GetAddress()))
		}
		tk, tname, _ := strings.Cut(p.GetTarget(), ".")
		switch {
		case schema.Kind(tk) != k || !schema.ValidName(tname):
			return nil, status.Errorf(codes.InvalidArgument, "%s: data pin %s: target %q is not a %s", addr, p.GetAddress(), logValue(p.GetTarget()), k)
		case p.GetVersion() < 0, p.GetPinned() && (p.GetVersion() == 0 || !k.Versioned()):
			return nil, status.Errorf(codes.InvalidArgument, "%s: data pin %s: version %d", addr, p.GetAddress(), p.GetVersion())
		case p.GetHash() != "" && !digestRE.MatchString(p.GetHash()):
			return nil, status.Errorf(codes.InvalidArgument, "%s: data pin %s: hash %q is not sha256:HEX", addr, p.GetAddress(), logValue(p.GetHash()))
		case byAddr[p.GetAddress()] != nil:
			return nil, status.Errorf(codes.InvalidArgument, "%s: two data pins of %s", addr, p.GetAddress())
		}
		byAddr[p.GetAddress()] = p
	}
	var out []*ccv1.DataPin
	for _, d := range deps {
		if _, _, ok := schema.ParseDataAddress(d); !ok {
			continue
		}
		p := byAddr[d]
		if p == nil {
			return nil, status.Errorf(codes.InvalidArgument, "%s depends on data source %s, and the request does not say what it resolved to (data_pins)", addr, d)
		}
		delete(byAddr, d)
		out = append(out, p)
	}
	for a := range byAddr {
		return nil, status.Errorf(codes.InvalidArgument, "%s: data pin %s names a data source depends_on does not list", addr, a)
	}
	return out, nil
}

// checkDataResolved refuses the apply of the resource at addr when a data
// source it pins no longer resolves to what the plan showed: the apply
// uses exactly what was planned.
func (t *mutation) checkDataResolved(addr string, pins []*ccv1.DataPin) error {
	for _, p := range pins {
		k, name, _ := strings.Cut(p.GetTarget(), ".")
		var version int64
		if p.GetPinned() {
			version = p.GetVersion()
		}
		now, err := resolveDataSource(t.ctx, t.tx.Tx, schema.Kind(k), name, version)
		if err != nil {
			return err
		}
		if now.GetFound() && now.GetHash() == p.GetHash() && now.GetVersion() == p.GetVersion() {
			continue
		}
		was := describeResolved(p.GetTarget(), p.GetVersion(), p.GetHash())
		is := "is gone"
		if now.GetFound() {
			is = "is now " + describeResolved(p.GetTarget(), now.GetVersion(), now.GetHash())
		}
		return status.Errorf(codes.FailedPrecondition, "%s: data source %s resolved to %s when planned, and %s: plan again", addr, p.GetAddress(), was, is)
	}
	return nil
}

func describeResolved(target string, version int64, hash string) string {
	s := target
	if version != 0 {
		s += " version " + strconv.FormatInt(version, 10)
	}
	if len(hash) > 19 {
		s += " (" + hash[7:19] + ")"
	}
	return s
}

// encodeDataPins stores pins one per line: "ADDRESS TARGET VERSION HASH
// PINNED" (HASH "-" when empty, PINNED 0 or 1).
func encodeDataPins(pins []*ccv1.DataPin) string {
	lines := make([]string, len(pins))
	for i, p := range pins {
		h, pinned := p.GetHash(), "0"
		if h == "" {
			h = "-"
		}
		if p.GetPinned() {
			pinned = "1"
		}
		lines[i] = fmt.Sprintf("%s %s %d %s %s", p.GetAddress(), p.GetTarget(), p.GetVersion(), h, pinned)
	}
	sort.Strings(lines)
	return joinLines(lines)
}

func decodeDataPins(s string) []*ccv1.DataPin {
	var out []*ccv1.DataPin
	for _, line := range splitLines(s) {
		f := strings.Fields(line)
		if len(f) != 5 {
			continue
		}
		h := f[3]
		if h == "-" {
			h = ""
		}
		out = append(out, &ccv1.DataPin{Address: f[0], Target: f[1], Version: atoi(f[2]), Hash: h, Pinned: f[4] == "1"})
	}
	return out
}
