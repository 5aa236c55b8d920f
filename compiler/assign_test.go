package compiler

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

// TestIssue16AssignKeepsUnknownFields: a field the Go type lacks is kept
// in the resource's Extra, not dropped; where there is no Extra to keep it
// in, it is an error (issue 16 item 2). Fields of embedded settings are
// the outer type's.
func TestIssue16AssignKeepsUnknownFields(t *testing.T) {
	var s schema.Sandbox
	err := assign(reflect.ValueOf(&s).Elem(), map[string]any{
		"lifetime": "1h", "debug_port": int64(9000), "debug": map[string]any{"on": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lifetime != "1h" {
		t.Errorf("lifetime (of SandboxSettings) = %q, want 1h", s.Lifetime)
	}
	if want := (schema.Extra{"debug_port": int64(9000), "debug": map[string]any{"on": true}}); !cmp.Equal(s.Extra, want) {
		t.Errorf("Extra = %v, want %v", s.Extra, want)
	}
	var n schema.Network
	err = assign(reflect.ValueOf(&n).Elem(), map[string]any{"egress_mode": "none", "ipv6": true})
	if err == nil || !strings.Contains(err.Error(), "ipv6") {
		t.Errorf("assign(Network with ipv6) = %v, want an error naming ipv6", err)
	}
	var cfg schema.Config
	if err := decodeConfig([]byte(`{"project":"p","volumes":{"v":{"size":"1Gi","tier":"fast"}}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	if v := cfg.Volumes["v"]; v == nil || v.Size != "1Gi" || v.Extra["tier"] != "fast" {
		t.Errorf("decodeConfig: volume v = %+v, want size 1Gi and tier fast in Extra", v)
	}
}
