package schema

import "encoding/json"

// SetCompareDirect makes jsonTree call f with each tree directTree built
// (nil stops it); tests compare it with RoundTripTree's.
func SetCompareDirect(f func(v, tree any)) { compareDirect = f }

// RoundTripTree is v's tree the way before directTree: marshalled and
// decoded.
func RoundTripTree(v any) (any, error) {
	raw, err := marshalNoEscape(v)
	if err != nil {
		return nil, err
	}
	return jsonTree(json.RawMessage(raw))
}

// EncodeTree is encodeTree.
func EncodeTree(tree any) ([]byte, error) { return encodeTree(tree) }
