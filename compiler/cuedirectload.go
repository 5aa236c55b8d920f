package compiler

import (
	"cuelang.org/go/cue/build"

	"cc.dev/cc/schema"
)

// noDirectCUE turns the direct way off, for tests that compare it with
// CUE's.
var noDirectCUE = false

// directTreeOf reads inst for the direct way (cuedirect.go), or is nil
// when the configuration is not the direct way's to load. gate is the
// gate's verdict on inst.
func directTreeOf(inst *build.Instance, gate gateVerdict) *directTree {
	if noDirectCUE || !gate.plain || gate.definitions {
		return nil
	}
	t, err := newDirectTree(inst)
	if err != nil || !t.topLevelDirect() {
		return nil
	}
	return t
}

// directLoad loads the configuration of tree t, or is nil when CUE must.
func directLoad(p *project, t *directTree) *loaded {
	p.track.set("checking the CUE configuration against the schema")
	res, err := t.collect(compiledSchemaOf(p.schema()))
	if err != nil {
		return nil
	}
	return &loaded{cfg: res.cfg, loc: &directLocator{p: p, t: t}, defaults: newSharedDefaults(), direct: res}
}

// topLevelDirect reports whether the configuration's top level is one the
// direct way reads as fastCUE reads it: fields the schema knows (unknown
// ones CUE words), and none of those that take more than the collector
// (defaults, outputs, lifecycle declarations).
func (t *directTree) topLevelDirect() bool {
	known := map[string]bool{}
	for _, k := range compiledSchema().fieldsAt(nil) {
		known[k] = true
	}
	for _, c := range t.root.kids {
		name := c.sel.name
		switch {
		case c.sel.hidden:
		case !known[name], lifecycleFields[name], name == "outputs", name == defaultsField, name == defaultSetsField:
			return false
		}
	}
	return true
}

// structNode reports whether every declaration of n is a struct literal.
func structNode(n *dnode) bool { return n.kinds == dStruct }

// collect evaluates the configuration into a collector, as fastCUE
// exports it; a hidden field outside the resources is evaluated too, for
// its errors.
func (t *directTree) collect(fs *fastSchema) (*fastResult, error) {
	c := newCollector(fs)
	c.defaults = newSharedDefaults()
	c.direct = t
	err := func() error {
		e := &directEval{t: t}
		for _, n := range t.root.kids {
			switch {
			case n.sel.hidden:
				if _, err := e.value(n); err != nil {
					return err
				}
			case n.sel.name == "project":
				v, err := e.value(n)
				if _, ok := v.(string); err != nil || !ok {
					return errNotDirect
				}
				c.setProject(v)
			case n.sel.name == "data":
				if !structNode(n) {
					return errNotDirect
				}
				for _, dn := range n.kids {
					if dn.sel.hidden {
						if _, err := e.value(dn); err != nil {
							return err
						}
						continue
					}
					if err := t.addCollection(c, e, "data."+dn.sel.name, dn); err != nil {
						return err
					}
				}
			default:
				if err := t.addCollection(c, e, n.sel.name, n); err != nil {
					return err
				}
			}
		}
		return nil
	}()
	res, werr := c.wait()
	if err != nil {
		return nil, err
	}
	if werr != nil {
		return nil, werr
	}
	if res.cfg.Project == "" {
		return nil, errNotDirect
	}
	return res, nil
}

// addCollection hands the resources of collection node n to c.
func (t *directTree) addCollection(c *collector, e *directEval, coll string, n *dnode) error {
	if !structNode(n) {
		return errNotDirect
	}
	for _, r := range n.kids {
		if r.sel.hidden {
			if _, err := e.value(r); err != nil {
				return err
			}
			continue
		}
		if c.failed() {
			return nil
		}
		c.add(item{coll: coll, name: r.sel.name, dn: r})
	}
	return nil
}

// directValue is one resource's value, for the collector's workers.
func (t *directTree) directValue(n *dnode) (any, error) {
	return (&directEval{t: t}).value(n)
}

// markDirectRefs stamps the references of one resource as markCUERefs
// does from CUE's value, from the syntax.
func markDirectRefs(coll, name string, r any, t *directTree, rn *dnode) error {
	for _, site := range resourceRefSites(nil, coll, name, r) {
		if *site.id != "" {
			continue
		}
		addr, err := t.refAt(rn, site.path[2:], site.kind)
		if err != nil {
			return err
		}
		if addr != "" {
			*site.id = addr
		}
	}
	return nil
}

// refAt is cueReference from the syntax: the reference at path (under
// n), followed through up to a few hops of hidden fields, to a resource
// collection entry of kind k. A reference whose path CUE may give
// otherwise (one relative to a struct inside a copy) is errNotDirect.
func (t *directTree) refAt(n *dnode, path []string, k schema.Kind) (string, error) {
	e := &directEval{t: t}
	node, copied, err := t.lookup(e, n, path)
	if err != nil || node == nil {
		return "", err
	}
	for hop := 0; hop < 8 && node != nil; hop++ {
		r := node.refOnly()
		if r == nil {
			return "", nil
		}
		p, err := t.refPath(r, copied)
		if err != nil {
			return "", err
		}
		if addr := refAddress(p, k); addr != "" {
			return addr, nil
		}
		var names []string
		for _, s := range p {
			if s.hidden {
				names = append(names, "\x00"+s.name)
			} else {
				names = append(names, s.name)
			}
		}
		if node, copied, err = t.lookup(e, t.root, names); err != nil {
			return "", err
		}
	}
	return "", nil
}

// refAddress is the address a reference's path names (images.x, or a
// data source data.volumes.x), or "".
func refAddress(p []dsel, k schema.Kind) string {
	plain := func(s dsel) bool { return !s.hidden && !s.index }
	if len(p) == 2 && plain(p[0]) && p[0].name == k.Plural() && plain(p[1]) {
		return schema.Address(k, p[1].name)
	}
	if len(p) == 3 && plain(p[0]) && p[0].name == "data" && plain(p[2]) && !p[1].hidden {
		for _, dk := range schema.DataKinds {
			if p[1].name == dk.Plural() {
				return schema.DataAddress(dk, p[2].name)
			}
		}
	}
	return ""
}

// refPath is the path a reference is written as, from the root. A
// reference relative to a struct is only known so when the walk to it
// crossed no copy.
func (t *directTree) refPath(r *dref, copied bool) ([]dsel, error) {
	if r.scope != t.root && copied {
		return nil, errNotDirect
	}
	return append(r.scope.path(), r.sels...), nil
}

// lookup walks path (config names; "\x00" marks a hidden one) from n as
// CUE's LookupPath does, through references; copied says whether it
// went through one. A path not there gives nil.
func (t *directTree) lookup(e *directEval, n *dnode, path []string) (*dnode, bool, error) {
	copied := false
	for _, name := range path {
		s := dsel{name: name}
		if h, ok := cutHidden(name); ok {
			s = dsel{name: h, hidden: true}
		} else if isIndex(name) {
			s.index = true
		}
		if n.refOnly() != nil {
			copied = true
		}
		var err error
		if n, err = e.step(n, s); err != nil || n == nil {
			return nil, copied, err
		}
	}
	return n, copied, nil
}

func cutHidden(name string) (string, bool) {
	if len(name) > 0 && name[0] == 0 {
		return name[1:], true
	}
	return "", false
}

// cueGateVerdict runs the gate (cuegate.go) over inst.
func cueGateVerdict(p *project, inst *build.Instance) gateVerdict {
	return cueGateOf(compiledSchemaOf(p.schema()), inst)
}
