package compiler

import (
	"sync"

	"cuelang.org/go/cue/cuecontext"

	"cc.dev/cc/diag"
)

// directLocator positions config paths of a configuration the direct way
// loaded (issue 13: CUE compile). A path to a value declared once, and
// reached through no reference, is where CUE positions it too: the
// field's label, or the list element's value. Any other path (a value
// declared several times, or inside a copy) is left to CUE: its value is
// built, once, on the first such question.
type directLocator struct {
	p    *project
	t    *directTree
	once sync.Once
	cue  locator
}

func (l *directLocator) at(path []string) *diag.Range {
	if r, ok := l.own(path); ok {
		return r
	}
	return l.slow().at(path)
}

func (l *directLocator) key(path []string) *diag.Range { return l.at(path) }

// own answers as cueLocator would, when the syntax alone says; ok is
// false when it does not.
func (l *directLocator) own(path []string) (*diag.Range, bool) {
	for n := len(path); n > 0; n-- {
		node, ok := l.t.plainAt(path[:n])
		if !ok {
			return nil, false
		}
		if node == nil {
			continue // not declared: nor is it in CUE's value
		}
		if node.ndecl != 1 {
			return nil, false
		}
		if r := l.p.rangeOfPos(node.pos); r != nil {
			return r, true
		}
	}
	return nil, false
}

// slow is the locator of CUE's own value of the configuration, loaded
// again (the syntax read the first time is not kept), into a copy of the
// project so that its sources are only read meanwhile.
func (l *directLocator) slow() locator {
	l.once.Do(func() {
		q := *l.p
		q.sources, q.track = map[string][]byte{}, nil
		inst, _, ds := loadCUEInstance(&q)
		if ds != nil {
			l.cue = nowhere{}
			return
		}
		l.cue = &cueLocator{p: l.p, v: cuecontext.New().BuildInstance(inst)}
	})
	return l.cue
}

// plainAt is the node at a config path (a number is a list index), nil
// when there is none; ok is false when the path goes through a reference.
func (t *directTree) plainAt(path []string) (*dnode, bool) {
	n := t.root
	for _, name := range path {
		if n.refOnly() != nil {
			return nil, false
		}
		switch {
		case isIndex(name):
			i := atoi(name)
			if n.kinds&dList == 0 || len(name) > 9 || i >= len(n.elems) {
				return nil, true
			}
			n = n.elems[i]
		case n.kinds&dList != 0:
			return nil, true
		default:
			if n = n.field(name); n == nil {
				return nil, true
			}
		}
	}
	return n, true
}
