package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// crossCheck makes every validation run both the fast check and CUE and
// compare them; tests and fuzz targets set it. The comparison runs both
// ways (issue 16 item 3): what the fast check accepts CUE must accept,
// with the same configuration and, field by field, the same defaults
// filled in; and what CUE accepts the fast check must not have refused,
// when it saw the value at all (a CUE value not concrete on its own is
// never exported to it).
var crossCheck = false

// crossCheckFast compares the fast way's verdict (fast, or the reason
// ferr it gave up) with CUE's, which accepted the configuration as
// cueJSON. mark stamps references on CUE's configuration as the fast way
// stamps them on its own.
func crossCheckFast(fast *fastResult, ferr error, cueJSON []byte, mark func(*schema.Config)) error {
	if ferr != nil {
		var fe fastError
		if errors.As(ferr, &fe) {
			return fmt.Errorf("the fast check refuses what CUE accepts: %v", ferr)
		}
		return nil
	}
	if err := sameConfig(fast.cfg, cueJSON, mark); err != nil {
		return fmt.Errorf("the fast check and CUE disagree: %v", err)
	}
	if err := sameTrees(fast.trees, cueJSON); err != nil {
		return fmt.Errorf("the fast check and CUE fill in different values: %v", err)
	}
	return nil
}

// sameTrees compares each resource as the fast check filled it in with
// the same resource in CUE's JSON, before either is decoded into Go types
// (where a missing field and its zero value look alike).
func sameTrees(trees map[string]any, cueJSON []byte) error {
	var slow map[string]any
	dec := json.NewDecoder(bytes.NewReader(cueJSON))
	dec.UseNumber()
	if err := dec.Decode(&slow); err != nil {
		return err
	}
	want := map[string]any{}
	for coll, rs := range slow {
		m, ok := rs.(map[string]any)
		if ok && coll == "data" {
			// Data sources: "data.volumes.cache" (issue 10).
			for sub, ds := range m {
				dm, _ := ds.(map[string]any)
				for name, r := range dm {
					want["data."+sub+"."+name] = r
				}
			}
			continue
		}
		if !ok || kindOfCollection(coll) == "" {
			continue
		}
		for name, r := range m {
			want[coll+"."+name] = r
		}
	}
	var addrs []string
	for a := range want {
		addrs = append(addrs, a)
	}
	for a := range trees {
		if _, ok := want[a]; !ok {
			addrs = append(addrs, a)
		}
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		fb, err := json.Marshal(trees[a])
		if err != nil {
			return err
		}
		sb, err := json.Marshal(want[a])
		if err != nil {
			return err
		}
		if err := sameJSON(fb, sb); err != nil {
			return fmt.Errorf("%s: %v", a, err)
		}
	}
	return nil
}

// crossCheckDirect compares what the direct way (cuedirect.go) made of a
// configuration with CUE's way, ld and ds (issue 13: CUE compile): CUE
// must accept it, with the same configuration, the same values filled
// in, the same references stamped, and the same positions wherever the
// direct way positions a value itself.
func crossCheckDirect(direct, ld *loaded, ds diag.Diagnostics) error {
	if ds.HasErrors() {
		return fmt.Errorf("the direct way accepts what CUE rejects: %v", ds[0].Summary)
	}
	if len(ld.outputs) > 0 {
		return errors.New("the direct way drops the outputs")
	}
	b := ld.json
	if ld.cfg != nil {
		var err error
		if b, err = json.Marshal(ld.cfg); err != nil {
			return err
		}
	}
	mark := func(c *schema.Config) {
		if ld.cfg == nil {
			markAllCUERefs(c, ld.user)
			markAllDefaultCUERefs(c, ld.defaults)
		}
	}
	if err := sameConfig(direct.cfg, b, mark); err != nil {
		return fmt.Errorf("the direct way and CUE disagree: %v", err)
	}
	if ld.cfg == nil {
		if err := sameTrees(direct.direct.trees, b); err != nil {
			return fmt.Errorf("the direct way and CUE fill in different values: %v", err)
		}
	}
	return samePositions(direct.loc.(*directLocator), ld.loc)
}

// samePositions compares the positions the direct locator gives itself
// with CUE's locator's, at every path of the configuration and one below
// each that is not declared.
func samePositions(dl *directLocator, loc locator) error {
	var paths [][]string
	var walk func(n *dnode, path []string)
	walk = func(n *dnode, path []string) {
		if n != dl.t.root {
			paths = append(paths, path, appendPath(path, "not_declared"))
		}
		for _, c := range n.kids {
			if !c.sel.hidden {
				walk(c, appendPath(path, c.sel.name))
			}
		}
		for i, c := range n.elems {
			walk(c, appendPath(path, strconv.Itoa(i)))
		}
	}
	walk(dl.t.root, nil)
	for _, p := range paths {
		r, ok := dl.own(p)
		if !ok {
			continue
		}
		if want := loc.at(p); want == nil || *r != *want {
			return fmt.Errorf("the direct way positions %s at %v, CUE at %v", pathString(p), r, want)
		}
	}
	return nil
}
