package planner

import (
	"fmt"
	"strings"

	"cc.dev/cc/schema"
)

// causes turns field changes into reasons, down to their causes: the step
// of an image, the file of a source tree, the change of a referenced
// resource.
func (pl *planning) causes(c *Change, before, after any, d *fieldDiffer, sens sensitivity, sr *Resource) []Reason {
	var out []Reason
	add := func(code, format string, args ...any) {
		out = append(out, Reason{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if c.Kind == schema.KindImage {
		oldSens := newSensitivity(sr.Sensitive)
		newSens := newSensitivity(pl.want[c.Addr].Sensitive)
		causes, files := pl.imageCauses(before, after, oldSens, newSens, 0)
		for _, m := range causes {
			add(ReasonImage, "%s", m)
		}
		c.Files = append(c.Files, files...)
		return out
	}
	done := map[string]bool{}
	for i, p := range d.paths {
		f := d.out[i]
		top := ""
		if len(p) > 0 {
			top = p[0].key
		}
		switch {
		case isRefHash(after, p) || isRefHash(before, p):
			ref := str(valueAt(after, p[:len(p)-1].with(seg{key: "ref", index: -1})))
			if ref == "" {
				ref = str(valueAt(before, p[:len(p)-1].with(seg{key: "ref", index: -1})))
			}
			if done["ref "+ref] {
				continue
			}
			done["ref "+ref] = true
			add(ReasonDependency, "%s", pl.refCause(ref))
		case top == "image" && runsImage[c.Kind] && len(p) == 1:
			oldImg, oldSens := pl.oldImage(str(valueAt(before, p)))
			newImg, newSens := pl.newImage(str(valueAt(after, p)))
			causes, _ := pl.imageCauses(oldImg, newImg, oldSens, newSens, 0)
			add(ReasonImage, "image changed: %s", joinCauses(causes))
		case c.Kind == schema.KindFunction && p.String() == "source.digest":
			files, ok := pl.treeDiff(str(valueAt(before, p)), str(valueAt(after, p)), "source", "")
			c.Files = append(c.Files, files...)
			if !ok {
				add(ReasonSource, "source changed (the service does not have the old file list to compare with)")
				continue
			}
			for _, f := range files {
				add(ReasonSource, "source changed: %s%s", f.Path, opSuffix(f.Op))
			}
		case c.Kind == schema.KindDataset && top == "files":
			if done["files"] {
				continue
			}
			done["files"] = true
			for _, f := range pl.fileListDiff(list(get(before, "files")), list(get(after, "files")), "dataset") {
				c.Files = append(c.Files, f)
				add(ReasonFile, "dataset file %s %s", f.Path, f.Op)
			}
		case (c.Kind == schema.KindSandbox || c.Kind == schema.KindContainer) && top == "mounted_files" && len(p) == 3 && p[2].key == "digest":
			src := str(valueAt(after, p[:2].with(seg{key: "src", index: -1})))
			f := pl.fileChange(src, "mounted file", str(valueAt(before, p)), str(valueAt(after, p)))
			c.Files = append(c.Files, f)
			add(ReasonFile, "mounted file %s changed", src)
		default:
			add(ReasonField, "%s", describeField(f))
		}
	}
	return out
}

// isRefHash reports whether p is the hash of a reference {"ref", "hash"}.
func isRefHash(v any, p path) bool {
	if len(p) == 0 || p[len(p)-1].key != "hash" || p[len(p)-1].index >= 0 {
		return false
	}
	parent, ok := valueAt(v, p[:len(p)-1]).(map[string]any)
	if !ok {
		return false
	}
	_, ok = parent["ref"].(string)
	return ok
}

// refCause explains why a referenced resource's hash changed, from its own
// change in this plan.
func (pl *planning) refCause(ref string) string {
	rc := pl.changes[ref]
	if rc == nil {
		return fmt.Sprintf("%s changed", ref)
	}
	pl.explainOnce(rc)
	var msgs []string
	for _, r := range rc.Reasons {
		// A secret's own reason describes its value locally; the reason
		// of a function's new version for a secret value names it.
		if r.Code == ReasonNew || r.Code == ReasonReuse || r.Code == ReasonSecret && rc.Kind == schema.KindSecret {
			continue
		}
		msgs = append(msgs, r.Message)
	}
	what := "changed"
	if rc.Version != nil {
		if rc.Version.Action == "reuse" {
			what = fmt.Sprintf("changed to its version %d", rc.Version.Number)
		} else {
			what = "has a new version"
		}
	}
	if len(msgs) == 0 {
		return fmt.Sprintf("%s %s", ref, what)
	}
	return fmt.Sprintf("%s %s: %s", ref, what, joinCauses(msgs))
}

func joinCauses(msgs []string) string {
	if len(msgs) == 0 {
		return "its content changed"
	}
	if len(msgs) > maxCauses {
		return strings.Join(msgs[:maxCauses], "; ") + fmt.Sprintf("; and %d more", len(msgs)-maxCauses)
	}
	return strings.Join(msgs, "; ")
}

// runsImage are the kinds whose image field names the image they run
// (an image hash): a change of it is explained by the image's steps.
var runsImage = map[schema.Kind]bool{
	schema.KindSandbox: true, schema.KindFunction: true, schema.KindContainer: true, schema.KindTraining: true,
	schema.KindScalingGroup: true,
}
