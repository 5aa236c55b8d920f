package compiler

import (
	"fmt"
	"sort"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Data sources (issue 10): data blocks name resources the service has
// that no project owns. The compiler lists them in Desired.Data and
// compiles a reference to one as a Ref to its address without a hash (what
// it resolves to is known only when a plan is made), which depends_on
// lists; the planner resolves and pins them.

// dataSources lists the configuration's data sources, sorted by address.
func (b *builder) dataSources(cfg *schema.Config) []schema.DataSource {
	if cfg.Data == nil {
		return nil
	}
	var out []schema.DataSource
	add := func(k schema.Kind, name, target string, version int64) {
		out = append(out, schema.DataSource{Address: schema.DataAddress(k, name), Kind: k, Name: target, Version: version,
			Range: b.ld.loc.key([]string{"data", k.Plural(), name})})
	}
	for n, v := range cfg.Data.Volumes {
		add(schema.KindVolume, n, v.Name, 0)
	}
	for n, v := range cfg.Data.Datasets {
		add(schema.KindDataset, n, v.Name, v.Revision)
	}
	for n, v := range cfg.Data.Functions {
		add(schema.KindFunction, n, v.Name, v.Version)
	}
	for n, v := range cfg.Data.Secrets {
		add(schema.KindSecret, n, v.Name, 0)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// dataNames are the names of the data sources of kind k.
func dataNames(cfg *schema.Config, k schema.Kind) []string {
	if cfg.Data == nil {
		return nil
	}
	switch k {
	case schema.KindVolume:
		return sortedKeys(cfg.Data.Volumes)
	case schema.KindDataset:
		return sortedKeys(cfg.Data.Datasets)
	case schema.KindFunction:
		return sortedKeys(cfg.Data.Functions)
	case schema.KindSecret:
		return sortedKeys(cfg.Data.Secrets)
	}
	return nil
}

// dataRef resolves a reference to a data source, whose id is its address
// ("data.volume.cache"). isData is false when id names none; ref.Ref is
// "" when the reference is in error (reported at path): a data source of
// another kind, or one not declared.
func (b *builder) dataRef(k schema.Kind, id string, path []string) (ref schema.Ref, isData bool) {
	rest, ok := strings.CutPrefix(id, "data.")
	if !ok {
		return schema.Ref{}, false
	}
	dk, name, _ := strings.Cut(rest, ".")
	if schema.Kind(dk) != k {
		b.errorf(path, "%s is a data source of kind %s; a %s is wanted here", id, dk, k)
		return schema.Ref{}, true
	}
	names := dataNames(b.cfg, k)
	if i := sort.SearchStrings(names, name); i == len(names) || names[i] != name {
		d := b.errorf(path, "reference to undeclared data source %s", id)
		if s := diag.Suggest(name, names); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %s?", schema.DataAddress(k, s))
		}
		return schema.Ref{}, true
	}
	return schema.Ref{Ref: id}, true
}
