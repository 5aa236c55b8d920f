package schema_test

import (
	"bytes"
	"encoding/json"
	"math"
	"sync"
	"testing"

	"cc.dev/cc/schema"
)

type embedded struct {
	Inner string `json:"inner"`
	Skip  int    `json:"-"`
}

type Outer struct {
	embedded
	*Ptr
	Name     string                       `json:"name,omitempty"`
	Count    int                          `json:"count"`
	Ratio    float64                      `json:"ratio,omitempty"`
	Small    float32                      `json:"small"`
	Flag     bool                         `json:"flag,omitempty"`
	List     []string                     `json:"list"`
	Map      map[string]any               `json:"map,omitempty"`
	Env      []schema.EnvSpec             `json:"env,omitempty"`
	Rows     []map[string]json.RawMessage `json:"rows,omitempty"`
	Num      json.Number                  `json:"num"`
	Any      any                          `json:"any"`
	Untagged string
	hidden   string
}

type Ptr struct {
	Deep *int `json:"deep"`
}

type Dominated struct {
	embedded
	Inner string `json:"inner"`
}

type Quoted struct {
	N int `json:"n,string"`
}

// treeCases are values whose canonical JSON the direct tree and the JSON
// round trip must agree on, errors included.
func treeCases() []any {
	seven := 7
	return []any{
		nil, "x", 1, math.Copysign(0, -1), 1e20, 1e21, 1e-7, 0.1, float32(0.1), float32(1e-7), math.MaxInt64, uint8(3),
		"<>&\u2028 \"quoted\" \\ \t\x01", "bad \xff\xfe utf8", []byte("bytes"), [2]int{1, 2},
		map[string]any{"b": 1, "a": []any{true, nil, json.Number("1.50"), "s"}},
		map[string]any{"bad\xffkey": 1, "bad\xfekey": 2}, map[int]string{1: "one"},
		Outer{}, &Outer{Name: "n", Count: 3, Ratio: 2.5e-9, Small: 1.1, Flag: true, List: []string{},
			Map: map[string]any{"x": map[string]any{"y": 1.0}}, Env: []schema.EnvSpec{{Value: "v"}, {Secret: &schema.Ref{}}},
			Rows: []map[string]json.RawMessage{{"a": json.RawMessage(`1.0`), "b": json.RawMessage(` "s" `)}},
			Num:  "12e3", Any: []any{Ptr{Deep: &seven}}, Untagged: "u", hidden: "h", Ptr: &Ptr{Deep: &seven},
			embedded: embedded{Inner: "i", Skip: 9}},
		Outer{Num: "not a number"}, Outer{Num: "-0.5E+3"}, Outer{Num: "01"}, Outer{Ratio: math.NaN()},
		Dominated{Inner: "outer", embedded: embedded{Inner: "inner"}}, Quoted{N: 4},
		json.RawMessage(`{"z":1,"a":[1e400]}`),
	}
}

// TestDirectTreeMatchesJSON: issue 13: canonical spec bytes built
// directly from typed values. Canonical gives what the JSON round trip
// (marshal, decode, encode) gives, for every value, and builds the tree
// directly (without marshalling) for the plain ones.
func TestDirectTreeMatchesJSON(t *testing.T) {
	var mu sync.Mutex
	direct := 0
	schema.SetCompareDirect(func(any, any) { mu.Lock(); direct++; mu.Unlock() })
	defer schema.SetCompareDirect(nil)
	for i, v := range treeCases() {
		sameAsRoundTrip(t, i, v)
	}
	if direct < 15 {
		t.Errorf("%d values took the direct way, want most", direct)
	}
}

func sameAsRoundTrip(t *testing.T, i int, v any) {
	t.Helper()
	got, err := schema.Canonical(v)
	tree, werr := schema.RoundTripTree(v)
	var want []byte
	if werr == nil {
		want, werr = schema.EncodeTree(tree)
	}
	if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
		t.Errorf("case %d (%T): direct %s (%v), round trip %s (%v)", i, v, got, err, want, werr)
	}
}

// FuzzDirectTree: issue 13: for any JSON document decoded into Go values
// (as a config's Extra holds them), the direct tree's canonical bytes are
// the round trip's.
func FuzzDirectTree(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"],"b":{"c":null}}`, `[1e21,1e-7,-0]`, `"\u00ff\ud800"`, `{"":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var plain, numbers any
		if json.Unmarshal(b, &plain) != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		dec.Decode(&numbers)
		sameAsRoundTrip(t, 0, plain)
		sameAsRoundTrip(t, 1, numbers)
		sameAsRoundTrip(t, 2, map[string]any{"x": plain, "y": []any{numbers}})
	})
}
