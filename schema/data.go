package schema

import (
	"strings"

	"cc.dev/cc/diag"
)

// DataSource is a data block (issue 10): a reference to a resource the
// service has that no project owns (the reserved project "-"), looked up
// by kind and name when a plan is made and pinned in it. A spec refers to
// it by its Address ("data.volume.cache"), which depends_on lists; the
// data source itself is no resource of the project and has no spec.
type DataSource struct {
	// Address is "data." + kind + "." + the block's name.
	Address string `json:"address"`
	Kind    Kind   `json:"kind"`
	// Name is the unowned resource's name, which is its id: data source
	// "data.volume.cache" with name "build-cache" is resource
	// "volume.build-cache" of project "-".
	Name string `json:"name"`
	// Version pins a dataset's revision or a function's version; 0 takes
	// the one current when the plan is made.
	Version int64 `json:"version,omitempty"`
	// Range is where the data block is declared.
	Range *diag.Range `json:"-"`
}

// DataKinds are the kinds a data source may refer to, in Kinds' order.
// Scaling groups are not a kind of cc yet: data "scaling_group" comes with
// them.
var DataKinds = []Kind{KindSecret, KindVolume, KindDataset, KindFunction}

// DataKind reports whether a data source may be of kind k.
func DataKind(k Kind) bool {
	for _, d := range DataKinds {
		if d == k {
			return true
		}
	}
	return false
}

// DataAddress makes "data.kind.name".
func DataAddress(k Kind, name string) string { return "data." + string(k) + "." + name }

// ParseDataAddress splits "data.kind.name"; ok is false for anything else,
// including a kind no data source has or a name that is no DNS label.
func ParseDataAddress(a string) (k Kind, name string, ok bool) {
	rest, found := strings.CutPrefix(a, "data.")
	if !found {
		return "", "", false
	}
	ks, name, found := strings.Cut(rest, ".")
	k = Kind(ks)
	if !found || !DataKind(k) || !ValidName(name) {
		return "", "", false
	}
	return k, name, true
}

// Target is the address of the unowned resource the data source names
// ("volume.build-cache", in project "-").
func (s *DataSource) Target() string { return Address(s.Kind, s.Name) }

// DataSource returns the data source at addr, or nil.
func (d *Desired) DataSource(addr string) *DataSource {
	for i := range d.Data {
		if d.Data[i].Address == addr {
			return &d.Data[i]
		}
	}
	return nil
}
