package compiler

import (
	"errors"

	"cc.dev/cc/schema"
)

// canonicalSpec encodes the spec of the resource of kind at path as
// canonical JSON with its quantities and durations in their one spelling
// (schema.Forms), so that equal values hash equal. false when a value has
// none, reported at its position.
func (b *builder) canonicalSpec(kind schema.Kind, path []string, spec any) ([]byte, bool) {
	canon, err := b.p.schema().CanonicalSpec(kind, spec)
	var fe *schema.FormError
	switch {
	case errors.As(err, &fe):
		ptr := schema.SplitPointer(fe.Pointer)
		b.errorf(appendPath(path, ptr...), "%s: %v", ptr[len(ptr)-1], fe.Err)
		return nil, false
	case err != nil:
		b.errorf(path, "internal error: %v", err)
		return nil, false
	}
	return canon, true
}

// checkResources enforces that requests do not exceed limits, cpu and
// memory each, as Kubernetes refuses such a pod (issue 9 item 2). path is
// where r is declared.
func (b *builder) checkResources(r *schema.Resources, path []string) {
	if r == nil || r.Requests == nil || r.Limits == nil {
		return
	}
	b.requestWithin("cpu", r.Requests.CPU, r.Limits.CPU, path)
	b.requestWithin("memory", r.Requests.Memory, r.Limits.Memory, path)
}

func (b *builder) requestWithin(name, req, lim string, path []string) {
	if req == "" || lim == "" {
		return
	}
	rq, err1 := schema.ParseQuantity(req)
	lq, err2 := schema.ParseQuantity(lim)
	if err1 != nil || err2 != nil || rq.Cmp(lq) <= 0 {
		return // the schema reports a malformed quantity
	}
	reqPath := appendPath(path, "requests", name)
	limPath := appendPath(path, "limits", name)
	d := b.errorf(reqPath, "requests.%s %q is more than limits.%s %q", name, req, name, lim)
	d.Detail = "a container cannot request more than its limit; lower the request or raise the limit"
	if at := b.ld.loc.at(limPath); at != nil {
		d.Summary += " (set at " + at.String() + ")"
		d.Related = append(d.Related, *at)
	}
}
