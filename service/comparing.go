package service

import (
	"bytes"
	"database/sql"
	"errors"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// comparing is what one call's comparisons (CompareValues, or those a
// GetState carries) have read, by address, so that each row is read and
// decoded once however many values name it, and, read beforehand in a
// few queries (prepareComparisons), not one query a value: a no-op plan
// of 10,000 resources with a sensitive value each compares 10,000 values.
type comparing struct {
	// rows are the resources' rows read beforehand (nil: none there).
	rows map[string]*specRow
	// specs are the current specs decoded and opened (nil: absent), of
	// the addresses more than one value names (uses).
	specs map[string]*currentSpec
	uses  map[string]int
	// versions are the versions of the versioned resources, read
	// beforehand (an empty list when there are none).
	versions map[string][]versionRow
}

// specRow is what a resource's row says of its current spec: an image's
// is in the images table, by hash.
type specRow struct {
	kind, hash, sensitive string
	spec                  []byte
}

// currentSpec is a resource's current spec as compared: decoded, its
// sealed values opened, and its sensitive pointers.
type currentSpec struct {
	v         any
	sensitive map[string]bool
}

// sensitiveValue is the canonical JSON of the sensitive value at ptr;
// false when cs is nil (no resource or spec), ptr is not one of its
// sensitive pointers, or it names nothing.
func (cs *currentSpec) sensitiveValue(ptr string) ([]byte, bool) {
	if cs == nil || !cs.sensitive[ptr] {
		return nil, false
	}
	x, ok := schema.ValueAt(cs.v, ptr)
	if !ok {
		return nil, false
	}
	b, err := schema.Canonical(x)
	return b, err == nil
}

// prepareComparisons reads beforehand the rows the values will be
// compared with: the resources' named with a pointer and no revision,
// and, with versions, the versions of the versioned ones (matches), a
// chunk of addresses a query.
func (t *mutation) prepareComparisons(vals []*ccv1.CompareValue, versions bool) error {
	t.cmp = &comparing{rows: map[string]*specRow{}, specs: map[string]*currentSpec{}, uses: map[string]int{}, versions: map[string][]versionRow{}}
	var addrs, versioned []string
	for _, v := range vals {
		addr := v.GetAddress()
		if v.GetPointer() == "" || v.GetRevision() != 0 {
			continue
		}
		if t.cmp.uses[addr]++; t.cmp.uses[addr] > 1 {
			continue
		}
		addrs = append(addrs, addr)
		if versions && schema.KindOf(addr).Versioned() {
			versioned = append(versioned, addr)
		}
	}
	for _, a := range addrs {
		t.cmp.rows[a] = nil
	}
	err := queryIn(t.ctx, t.tx, "SELECT address, kind, hash, sensitive, spec FROM resources WHERE project = ? AND address", t.project, addrs, func(rows *sql.Rows) error {
		var addr string
		r := &specRow{}
		if err := rows.Scan(&addr, &r.kind, &r.hash, &r.sensitive, &r.spec); err != nil {
			return err
		}
		t.cmp.rows[addr] = r
		return nil
	})
	if err != nil {
		return err
	}
	for _, a := range versioned {
		t.cmp.versions[a] = []versionRow{}
	}
	return queryIn(t.ctx, t.tx, "SELECT address, version, secrets FROM versions WHERE project = ? AND address", t.project, versioned, func(rows *sql.Rows) error {
		var addr, col string
		var vr versionRow
		if err := rows.Scan(&addr, &vr.version, &col); err != nil {
			return err
		}
		vr.entries = versionEntries(col)
		t.cmp.versions[addr] = append(t.cmp.versions[addr], vr)
		return nil
	}, " ORDER BY address, version")
}

// current is the current spec of the resource at addr, or nil when there
// is none (no resource, or an image whose row is gone).
func (t *mutation) current(addr string) (*currentSpec, error) {
	if t.cmp != nil {
		if cs, ok := t.cmp.specs[addr]; ok {
			return cs, nil
		}
	}
	r, err := t.specRow(addr)
	if err != nil || r == nil {
		return nil, err
	}
	place := addr
	if schema.Kind(r.kind) == schema.KindImage {
		place = imagePlace(r.hash)
		err := t.tx.QueryRowContext(t.ctx, "SELECT spec, sensitive FROM images WHERE project = ? AND hash = ?", t.project, r.hash).Scan(&r.spec, &r.sensitive)
		if errors.Is(err, sql.ErrNoRows) {
			return t.remember(addr, nil), nil
		}
		if err != nil {
			return nil, dbError(err)
		}
	}
	sens := splitLines(r.sensitive)
	cs := &currentSpec{sensitive: make(map[string]bool, len(sens))}
	for _, p := range sens {
		cs.sensitive[p] = true
	}
	v, err := decodeJSON(r.spec)
	switch {
	case err == nil:
		if cs.v, err = t.unsealTree(place, v, sens); err != nil {
			return nil, err
		}
	case len(sens) > 0 && containsSealed(r.spec):
		return nil, dbError(err)
	default:
		cs = nil // not JSON: nothing in it compares
	}
	return t.remember(addr, cs), nil
}

// remember keeps cs as addr's current spec for the call's later values,
// when there are any: a row read beforehand is let go once decoded.
func (t *mutation) remember(addr string, cs *currentSpec) *currentSpec {
	if t.cmp != nil {
		if t.cmp.uses[addr] > 1 {
			t.cmp.specs[addr] = cs
		}
		delete(t.cmp.rows, addr)
	}
	return cs
}

// specRow is the row of the resource at addr (read beforehand, or now),
// or nil when there is none.
func (t *mutation) specRow(addr string) (*specRow, error) {
	if t.cmp != nil {
		if r, ok := t.cmp.rows[addr]; ok {
			return r, nil
		}
	}
	cur, err := t.resource(addr)
	if err != nil {
		return nil, dbError(err)
	}
	if cur == nil {
		return nil, nil
	}
	return &specRow{kind: cur.kind, hash: cur.hash, sensitive: cur.sensitive, spec: cur.spec}, nil
}

func containsSealed(spec []byte) bool { return bytes.Contains(spec, []byte(sealedPrefix)) }
