package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

func init() {
	register(&command{
		name:    "graph",
		args:    "[--format dot|json] [flags] [PATH]",
		summary: "print a project's dependency graph",
		help: `Graph compiles the project at PATH (a directory, or one .cue or .hcl file;
default .) and prints its dependency graph, without contacting any service:
one node per resource address and data source, one edge from each resource
to each address it depends on (what it references, which is created
first).

--format dot (the default) prints a Graphviz digraph, for
"cc graph | dot -Tsvg > graph.svg"; --format json prints
{"nodes": [...], "edges": [{"from": ..., "to": ...}]}. Both are sorted, so
the same configuration always gives the same bytes.`,
		run: runGraph,
	})
}

// graphEdge is one dependency: from depends on to.
type graphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// depGraph is a project's dependency graph, sorted (issue 12: cc graph).
type depGraph struct {
	Nodes []string    `json:"nodes"`
	Edges []graphEdge `json:"edges"`
}

func runGraph(e *env, args []string) int {
	c := commands["graph"]
	fs := e.flags(c)
	var cf compileFlags
	var envName string
	cf.register(fs)
	registerEnv(fs, &envName)
	format := fs.String("format", "dot", "print the graph as `dot` (Graphviz) or json")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if *format != "dot" && *format != "json" {
		return e.usageError(c, "--format %q: want dot or json", *format)
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	res, rc := e.compile(c, path, e.withEnvironment(compiler.Input{Vars: cf.vars, VarFiles: cf.varFiles, Tags: cf.tags}, envName), false)
	if rc >= 0 {
		return rc
	}
	g := graphOf(res.Desired)
	if *format == "json" {
		b, err := json.MarshalIndent(g, "", "  ")
		if err != nil {
			fmt.Fprintf(e.stderr, "cc graph: %v\n", err)
			return exitError
		}
		e.stdout.Write(append(b, '\n'))
		return exitOK
	}
	writeDot(e.stdout, g)
	return exitOK
}

// graphOf is d's dependency graph: every resource and data source is a
// node (and so is any address depended on), every DependsOn an edge.
func graphOf(d *schema.Desired) depGraph {
	nodes := map[string]bool{}
	g := depGraph{Nodes: []string{}, Edges: []graphEdge{}}
	for _, ds := range d.Data {
		nodes[ds.Address] = true
	}
	for _, r := range d.Resources {
		nodes[r.Address] = true
		for _, dep := range r.DependsOn {
			nodes[dep] = true
			g.Edges = append(g.Edges, graphEdge{From: r.Address, To: dep})
		}
	}
	for n := range nodes {
		g.Nodes = append(g.Nodes, n)
	}
	sort.Strings(g.Nodes)
	sort.Slice(g.Edges, func(i, j int) bool {
		a, b := g.Edges[i], g.Edges[j]
		return a.From < b.From || a.From == b.From && a.To < b.To
	})
	return g
}

// writeDot prints g as a Graphviz digraph, dependencies to the right.
func writeDot(w io.Writer, g depGraph) {
	var b strings.Builder
	b.WriteString("digraph {\n\trankdir = \"LR\";\n\tnode [shape = box];\n")
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "\t%s;\n", dotID(n))
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "\t%s -> %s;\n", dotID(e.From), dotID(e.To))
	}
	b.WriteString("}\n")
	io.WriteString(w, b.String())
}

// dotID quotes an address as a DOT identifier: sandbox.worker["a"] has
// quotes to escape.
func dotID(s string) string {
	return strconv.Quote(s)
}
