package compiler

import (
	"sort"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"cc.dev/cc/diag"
)

type cycleMember struct {
	name string
	rng  *diag.Range
}

type cycleMembers []cycleMember

func (m cycleMembers) names() []string {
	out := make([]string, 0, len(m)+1)
	for _, c := range m {
		out = append(out, c.name)
	}
	if len(m) > 0 {
		out = append(out, m[0].name)
	}
	return out
}

func (m cycleMembers) ranges() []diag.Range {
	var out []diag.Range
	for _, c := range m[1:] {
		if c.rng != nil {
			out = append(out, *c.rng)
		}
	}
	return out
}

// findCycle returns a cycle through start in the graph, or nil. Nodes are
// visited in sorted order so the same graph gives the same cycle.
func findCycle(graph map[string][]string, start string) []string {
	var path []string
	onPath := map[string]int{}
	done := map[string]bool{}
	var visit func(n string) []string
	visit = func(n string) []string {
		if i, ok := onPath[n]; ok {
			return append([]string(nil), path[i:]...)
		}
		if done[n] {
			return nil
		}
		onPath[n] = len(path)
		path = append(path, n)
		deps := append([]string(nil), graph[n]...)
		sort.Strings(deps)
		for _, d := range deps {
			if c := visit(d); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		delete(onPath, n)
		done[n] = true
		return nil
	}
	return visit(start)
}

// cueCycle explains a CUE structural cycle at path in terms of resources:
// it reads the user's files for references between resources
// (images.a inside images.b) and finds the cycle through the resource the
// error is about.
func cueCycle(p *project, path []string) cycleMembers {
	if len(path) < 2 {
		return nil
	}
	graph := map[string][]string{}
	where := map[string]*diag.Range{}
	for name, src := range p.sources {
		f, err := parser.ParseFile(name, src)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			collectResources(p, d, nil, graph, where)
		}
	}
	start := path[0] + "." + path[1]
	cyc := findCycle(graph, start)
	var out cycleMembers
	for _, n := range cyc {
		out = append(out, cycleMember{name: n, rng: where[n]})
	}
	return out
}

// collectResources walks top-level fields down to collection.name and
// records, per resource, the collection.name selectors inside it.
func collectResources(p *project, d ast.Decl, prefix []string, graph map[string][]string, where map[string]*diag.Range) {
	fd, ok := d.(*ast.Field)
	if !ok {
		return
	}
	label, _, err := ast.LabelName(fd.Label)
	if err != nil {
		return
	}
	path := append(append([]string(nil), prefix...), label)
	if len(path) == 2 {
		if kindOfCollection(path[0]) == "" {
			return
		}
		node := path[0] + "." + path[1]
		if where[node] == nil {
			where[node] = p.rangeOfPos(fd.Label.Pos())
		}
		ast.Walk(fd.Value, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && kindOfCollection(id.Name) != "" {
					if name, _, err := ast.LabelName(sel.Sel); err == nil {
						graph[node] = append(graph[node], id.Name+"."+name)
					}
				}
			}
			return true
		}, nil)
		return
	}
	if v, ok := fd.Value.(*ast.StructLit); ok {
		for _, e := range v.Elts {
			collectResources(p, e, path, graph, where)
		}
	}
}
