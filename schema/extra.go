package schema

import "encoding/json"

// The resources' config types write their Extra fields into their JSON
// (MarshalJSON below), so what compares configurations by their JSON (the
// compiler's content index and cross-check) sees every field the schema
// has, Go field or not.

func (v Image) MarshalJSON() ([]byte, error) {
	type plain Image
	return marshalWithExtra(plain(v), v.Extra)
}

func (v Secret) MarshalJSON() ([]byte, error) {
	type plain Secret
	return marshalWithExtra(plain(v), v.Extra)
}

func (v Volume) MarshalJSON() ([]byte, error) {
	type plain Volume
	return marshalWithExtra(plain(v), v.Extra)
}

func (v Dataset) MarshalJSON() ([]byte, error) {
	type plain Dataset
	return marshalWithExtra(plain(v), v.Extra)
}

func (v Sandbox) MarshalJSON() ([]byte, error) {
	type plain Sandbox
	return marshalWithExtra(plain(v), v.Extra)
}

func (v Function) MarshalJSON() ([]byte, error) {
	type plain Function
	return marshalWithExtra(plain(v), v.Extra)
}

func (v Evaluation) MarshalJSON() ([]byte, error) {
	type plain Evaluation
	return marshalWithExtra(plain(v), v.Extra)
}

// marshalWithExtra is the JSON of v (a config type without its methods)
// with the fields of extra added; a field of v wins.
func marshalWithExtra(v any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, x := range extra {
		if _, taken := m[k]; taken {
			continue
		}
		raw, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		m[k] = raw
	}
	return json.Marshal(m)
}
