package compiler

import (
	"slices"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// suggestField is the field to suggest for the unknown name at path, ""
// for none (issue 9 item 18): the field the platform SDKs call name
// (@cc(sdk=...): chalk_identity is identity); else the closest field's
// name, here or one level down when that is closer (resources { cpu } is
// requests.cpu, not gpu; requests first as the schema declares it).
func suggestField(path []string, name string) string {
	fs := compiledSchema()
	fields := fs.fieldsAt(path)
	if len(path) == 2 && isDefaultColl(path[0]) {
		// issue 11: use_defaults is every such resource's, outside the schema.
		fields = append(slices.Clone(fields), useDefaultsField)
	}
	for _, f := range schema.Default().SDKNames()[name] {
		if slices.Contains(fields, f) {
			return f
		}
	}
	top := diag.Suggest(name, fields)
	nested, far := "", -1
	for _, f := range nestedOrder(fields) {
		if s := diag.Suggest(name, fs.fieldsAt(appendPath(path, f))); s != "" || slices.Contains(fs.fieldsAt(appendPath(path, f)), name) {
			if s == "" {
				s = name
			}
			if d := diag.Distance(name, s); far < 0 || d < far {
				nested, far = f+"."+s, d
			}
		}
	}
	// A field one level down wins when it is closer (cpuu: requests.cpu,
	// not gpu).
	if nested != "" && (top == "" || far < diag.Distance(name, top)) {
		return nested
	}
	return top
}

// nestedOrder puts requests before limits: the schema's order, where the
// compiled schema's is by name.
func nestedOrder(fields []string) []string {
	out := slices.Clone(fields)
	if i, j := slices.Index(out, "limits"), slices.Index(out, "requests"); i >= 0 && j > i {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// suggestName is the closest of names to the name given when it is close
// (at most one edit, or one in three characters), "" otherwise: for names
// of the user's own (image.nope), where a far guess misleads.
func suggestName(given string, names []string) string {
	s := diag.Suggest(given, names)
	if s == "" {
		return ""
	}
	if d := diag.Distance(given, s); d > 1 && d*3 > len([]rune(given)) {
		return ""
	}
	return s
}

// suggestBlock is the HCL block type to suggest for the unknown block typ
// at path: the block the SDKs call typ (file_system_snapshot is
// snapshot), else the closest block type.
func suggestBlock(typ string, blocks []string, path []string) string {
	for _, f := range schema.Default().SDKNames()[typ] {
		if slices.Contains(blocks, f) && slices.Contains(compiledSchema().fieldsAt(path), f) {
			return f
		}
	}
	return diag.Suggest(typ, blocks)
}
