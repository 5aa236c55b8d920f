package service_test

import (
	"context"
	"strings"
	"testing"

	"cc.dev/cc/service"
)

// TestInvalidSpecErrorNeverQuotesSensitive: issue 8 items 5 and 7. The
// service's refusal of a spec the schema's rules reject names the field
// and what is wrong, never a value at one of the spec's sensitive
// pointers.
func TestInvalidSpecErrorNeverQuotesSensitive(t *testing.T) {
	c := open(t, "")
	const canary = "Zq7canary-timeout"
	req := sensitiveApply(t, "function.f", service.ActionCreate, function("m:f", map[string]any{"timeout": canary}), []string{"/timeout"}, 0)
	_, err := c.Apply(context.Background(), req)
	if err == nil {
		t.Fatal("Apply of an invalid timeout succeeded")
	}
	if strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("Apply = %v; want an error about the timeout without its value", err)
	}
	// The same spec with the value not sensitive says what it was.
	req = sensitiveApply(t, "function.f", service.ActionCreate, function("m:f", map[string]any{"timeout": canary}), nil, 0)
	if _, err := c.Apply(context.Background(), req); err == nil || !strings.Contains(err.Error(), canary) {
		t.Fatalf("Apply = %v; want the value quoted", err)
	}
}
