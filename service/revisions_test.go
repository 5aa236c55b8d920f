package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/service"
)

// scalingGroup is a scaling group's spec with max replicas.
func scalingGroup(max int) map[string]any {
	return map[string]any{"image": testImage, "replicas": map[string]any{"min": 1, "max": max}, "ports": []int{8080}}
}

// issue 11: scaling groups. Every change of a scaling group appends a
// revision; an unchanged spec keeps the current one; after a rollback, a
// change back to a later revision's content appends a new one instead of
// reusing it (unlike a function's versions).
func TestScalingGroupRevisions(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	r := mustApply(t, c, applyReq(t, "p", "scaling_group.api", service.ActionCreate, scalingGroup(2), 0))
	var got []int64
	step := func(max int) {
		t.Helper()
		r = mustApply(t, c, applyReq(t, "p", "scaling_group.api", service.ActionUpdate, scalingGroup(max), r.Serial))
		got = append(got, r.Version)
	}
	step(2) // unchanged: revision 1 stays
	step(4) // revision 2
	rb, err := c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "scaling_group.api", Version: 1, ExpectedSerial: r.Serial})
	if err != nil || !rb.Changed || rb.Resource.Version != 1 {
		t.Fatalf("Rollback(1) = %+v, %v", rb, err)
	}
	r.Serial = rb.Serial
	step(4) // back to revision 2's content: revision 3
	step(2) // revision 1's content: revision 4
	step(2) // unchanged: 4 stays
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 4}, got); diff != "" {
		t.Fatalf("revisions (-want +got):\n%s", diff)
	}
	vs, err := c.Versions(ctx, "p", "scaling_group.api")
	if err != nil || len(vs) != 4 || !vs[3].Current {
		t.Fatalf("Versions() = %+v, %v; want 4 revisions, the 4th current", vs, err)
	}
	_, err = c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "scaling_group.api", Version: 9, ExpectedSerial: r.Serial})
	if !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("Rollback(9) = %v, want not found", err)
	}
}

// issue 11: scaling groups. The service validates a scaling group's spec:
// a field the kind lacks, a port listed twice, replicas out of order and an
// image that is not a hash are refused.
func TestScalingGroupSpecValidated(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	for name, spec := range map[string]map[string]any{
		"unknown field": {"image": testImage, "handler": "m:f"},
		"port twice":    {"image": testImage, "ports": []int{8080, 8080}},
		"replicas":      {"image": testImage, "replicas": map[string]any{"min": 3, "max": 2}},
		"image":         {"image": "python:3.12"},
		// A mount path that is not absolute, as for every kind that
		// mounts volumes.
		"mount path": {"image": testImage, "volume_mounts": []any{map[string]any{"volume": map[string]any{"ref": "volume.v"}, "path": "data"}}},
	} {
		_, err := c.Apply(ctx, applyReq(t, "p", "scaling_group.api", service.ActionCreate, spec, 0))
		if !errors.Is(err, service.ErrInvalid) {
			t.Errorf("%s: Apply() = %v, want invalid argument", name, err)
		}
		if name == "mount path" && (err == nil || !strings.Contains(err.Error(), "is not absolute")) {
			t.Errorf("%s: Apply() = %v, want the path refused", name, err)
		}
	}
}
