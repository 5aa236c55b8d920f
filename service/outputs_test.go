package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// TestSetOutputsRoundTrip: issue 12: outputs. SetOutputs replaces the
// project's outputs as a whole, bumping its serial; GetState returns them
// sorted by name, a sensitive one with its value.
func TestSetOutputsRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	outs := []schema.Output{
		{Name: "url", Value: json.RawMessage(`"https://x"`), Description: "where"},
		{Name: "token", Value: json.RawMessage(`"s3cr3t"`), Sensitive: true},
	}
	serial, err := c.SetOutputs(ctx, service.SetOutputsRequest{Project: "p", Outputs: outs})
	if err != nil {
		t.Fatalf("SetOutputs() = %v", err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	want := []schema.Output{outs[1], outs[0]}
	if st.Serial != serial || !cmp.Equal(st.Outputs, want) {
		t.Fatalf("GetState() = serial %d outputs %+v, want serial %d outputs %+v", st.Serial, st.Outputs, serial, want)
	}
	if _, err := c.SetOutputs(ctx, service.SetOutputsRequest{Project: "p", Outputs: outs[:1]}); err != nil {
		t.Fatal(err)
	}
	if st, err = c.GetState(ctx, "p"); err != nil || !cmp.Equal(st.Outputs, outs[:1]) {
		t.Fatalf("GetState() after replacing = %+v, %v; want only url", st.Outputs, err)
	}
}

// TestSetOutputsRefusals: issue 12: outputs. The service validates every
// field of a SetOutputs request: names, duplicates, JSON, sizes, counts;
// and a caller without the project's live lease is refused.
func TestSetOutputsRefusals(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	v := json.RawMessage(`1`)
	many := make([]schema.Output, schema.MaxOutputs+1)
	for i := range many {
		many[i] = schema.Output{Name: "o" + strings.Repeat("x", i%50) + string(rune('a'+i%26)), Value: v}
	}
	for name, outs := range map[string][]schema.Output{
		"bad name":    {{Name: "1x", Value: v}},
		"empty name":  {{Name: "", Value: v}},
		"long name":   {{Name: strings.Repeat("a", 65), Value: v}},
		"duplicate":   {{Name: "a", Value: v}, {Name: "a", Value: v}},
		"not JSON":    {{Name: "a", Value: json.RawMessage(`{`)}},
		"no value":    {{Name: "a"}},
		"large value": {{Name: "a", Value: json.RawMessage(`"` + strings.Repeat("x", schema.MaxOutputValue) + `"`)}},
		"long desc":   {{Name: "a", Value: v, Description: strings.Repeat("d", schema.MaxOutputDescription+1)}},
		"too many":    many,
	} {
		if _, err := c.SetOutputs(ctx, service.SetOutputsRequest{Project: "p", Outputs: outs}); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("SetOutputs(%s) = %v, want invalid argument", name, err)
		}
	}
	if _, err := c.SetOutputs(ctx, service.SetOutputsRequest{Project: "-", Outputs: []schema.Output{{Name: "a", Value: v}}}); err == nil {
		t.Errorf("SetOutputs(project -) = nil, want refused")
	}
	if _, err := c.SetOutputs(ctx, service.SetOutputsRequest{Project: "p", Outputs: []schema.Output{{Name: "a", Value: v}}, LeaseID: "not-the-lease"}); err == nil {
		t.Errorf("SetOutputs() without the lease = nil, want refused")
	}
	if st, err := c.GetState(ctx, "p"); err != nil || len(st.Outputs) != 0 {
		t.Errorf("GetState() = %+v, %v; want no outputs after the refusals", st.Outputs, err)
	}
}
