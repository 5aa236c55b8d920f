package planner

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the plan as its versioned JSON document (FORMAT.md):
// fields in a fixed order, changes sorted by address, indented.
func WriteJSON(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}
