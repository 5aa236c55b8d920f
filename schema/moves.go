package schema

import "cc.dev/cc/diag"

// Move is a `moved` declaration in the configuration (#Moved): the
// resource the state has at From is the one declared at To.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Import is an `import` declaration in the configuration (#Import): the
// unowned resource KIND.ID (KIND that of To) becomes the project's at To.
type Import struct {
	To string `json:"to"`
	ID string `json:"id"`
}

// Moved is a compiled move (issue 10: moves): From is where the state may
// have the resource, To the address the configuration declares it at,
// the end of a chain of moves (a -> b, b -> c gives a -> c and b -> c).
// Range is the declaration of its first step.
type Moved struct {
	From  string      `json:"from"`
	To    string      `json:"to"`
	Range *diag.Range `json:"-"`
}

// Removed is a compiled `removed` declaration (issue 10: forgetting): the
// project stops owning the resource at Address, which the service keeps.
type Removed struct {
	Address string      `json:"address"`
	Range   *diag.Range `json:"-"`
}

// Imported is a compiled `import` declaration (issue 10: adoption): the
// unowned resource KIND.ID becomes the project's at To.
type Imported struct {
	To    string      `json:"to"`
	ID    string      `json:"id"`
	Range *diag.Range `json:"-"`
}

// Unowned is the address of the unowned resource an import adopts:
// KIND.ID, KIND that of To.
func (i Imported) Unowned() string { return Address(KindOf(i.To), i.ID) }
