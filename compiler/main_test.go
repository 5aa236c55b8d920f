package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestMain runs every test with the fast check cross-checked against CUE:
// a configuration both accept must come out the same, and one the fast
// check accepts CUE must accept too.
func TestMain(m *testing.M) {
	crossCheck = os.Getenv("CC_NO_CROSSCHECK") == ""
	os.Exit(m.Run())
}

// TestFastCheckCoversSchema: the schema compiles to the fast check in
// full, and the fast check accepts every example, so valid projects never
// need a full CUE unification.
func TestFastCheckCoversSchema(t *testing.T) {
	fs := compiledSchema()
	if fs.err != nil {
		t.Fatalf("the fast check cannot compile the schema: %v", fs.err)
	}
	for _, ex := range []string{"quickstart", "multi-service"} {
		for _, lang := range []string{"cue", "hcl"} {
			p, err := locate("../examples/"+ex+"/main."+lang, DefaultMaxConfigSize)
			if err != nil {
				t.Fatal(err)
			}
			var ld *loaded
			if lang == "cue" {
				ld, _ = loadCUE(context.Background(), p)
			} else {
				ld, _ = loadHCL(context.Background(), p, nil, nil)
			}
			if ld == nil {
				t.Fatalf("%s/%s does not load", ex, lang)
			}
			var data any
			dec := json.NewDecoder(bytes.NewReader(ld.json))
			dec.UseNumber()
			if err := dec.Decode(&data); err != nil {
				t.Fatal(err)
			}
			if _, err := fs.validate(data); err != nil {
				t.Errorf("%s/%s: the fast check rejects a valid project: %v", ex, lang, err)
			}
		}
	}
}
