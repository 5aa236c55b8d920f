package planner

import (
	"fmt"
	pathpkg "path"
	"sort"
	"strings"

	"cc.dev/cc/schema"
)

// Bounds of an explanation.
const (
	maxReasons       = 12  // reasons per change
	maxPlanFileDiffs = 200 // files with a line diff in a whole plan
	maxCauses        = 3   // causes of a referenced change quoted in a reason
	maxValueLen      = 60  // bytes of a value quoted in a reason
)

// explain fills in a change's specs, fields, files, version and reasons.
func (pl *planning) explain(c *Change, dr *schema.Resource, sr *Resource) {
	var reasons []Reason
	add := func(code, format string, args ...any) {
		reasons = append(reasons, Reason{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if dr != nil {
		c.After, c.AfterHash, c.DependsOn, c.Range = redact(dr.Spec, dr.Sensitive), dr.Hash, dr.DependsOn, dr.Range
	}
	if sr != nil {
		c.Before, c.BeforeHash = redact(sr.Spec, sr.Sensitive), sr.Hash
		if dr == nil {
			c.DependsOn = sr.DependsOn
		}
	}
	if dr != nil && dr.Kind.Versioned() {
		c.Version = pl.predictVersion(dr, sr)
	}

	switch c.Action {
	case Create:
		add(ReasonNew, "new in the configuration")
		d := &fieldDiffer{sens: newSensitivity(dr.Sensitive)}
		d.added(nil, decode(dr.Spec))
		c.Fields = d.out
	case Delete:
		if pl.o.Destroy {
			add(ReasonDestroy, "destroy: every resource of the project is deleted")
		} else {
			add(ReasonRemoved, "no longer in the configuration")
		}
	default:
		before, after := decode(sr.Spec), decode(dr.Spec)
		if !pl.o.SensitiveChanged[c.Addr] {
			after = maskUnchanged(before, after, dr.Sensitive)
		}
		sens := newSensitivity(sr.Sensitive, dr.Sensitive)
		d := &fieldDiffer{sens: sens}
		d.diff(nil, before, after, true, true)
		c.Fields = d.out
		replaceBy := map[string]bool{}
		for i, p := range d.paths {
			if pl.forcesReplacement(c.Kind, p, valueAt(before, p), valueAt(after, p)) {
				c.Fields[i].ForcesReplacement = true
				top := p[:1].String()
				if c.Kind == schema.KindEvaluation {
					top = p.String()
				}
				if !replaceBy[top] {
					replaceBy[top] = true
					c.ReplaceBecause = append(c.ReplaceBecause, top)
				}
			}
		}
		if len(replaceBy) > 0 {
			c.Action = Replace
		}
		if pl.replace[c.Addr] {
			add(ReasonReplaceReq, "replacement requested with --replace")
		}
		if m := pl.sensitiveMoved(c.Addr); m != "" && sr.Hash == dr.Hash {
			add(ReasonSensitive, "%s (the service compared it; its hash is made without it)", m)
		}
		reasons = append(reasons, pl.causes(c, before, after, d, sens, sr)...)
		if c.Version != nil {
			reasons = append(reasons, pl.versionReasons(c, dr, sr)...)
		}
		reasons = append(reasons, pl.repinReasons(sr)...)
		if c.Version != nil && c.Version.Action == "reuse" && sr.Hash != dr.Hash {
			add(ReasonReuse, "same content as version %d, which is made current again: nothing is rebuilt or uploaded", c.Version.Number)
		}
		if _, ok := pl.st.Images[dr.Hash]; ok && c.Kind == schema.KindImage && pl.sensitiveMoved(c.Addr) == "" {
			add(ReasonReuse, "the service has this image already (%s): nothing is rebuilt", short(dr.Hash))
		}
	}
	if dr != nil && dr.Kind == schema.KindSecret {
		pl.explainSecretValue(c, dr, &reasons)
	}
	if len(reasons) == 0 {
		// Same fields, another hash: the spec's encoding changed.
		add(ReasonField, "the spec changed (hash %s → %s)", short(c.BeforeHash), short(c.AfterHash))
	}
	c.Reasons = dedupe(reasons)
}

func (pl *planning) explainSecretValue(c *Change, dr *schema.Resource, reasons *[]Reason) {
	ls, ok := pl.o.Secrets[c.Addr]
	if !ok {
		return
	}
	rev := pl.st.Secrets[c.Addr]
	if ls.Fingerprint == "" {
		return
	}
	switch v := pl.secretValue(c.Addr, dr); v {
	case "set":
		c.SecretValue = v
		c.Fields = append(c.Fields, FieldChange{Path: "value", Op: "added", Sensitive: true})
		if c.Action != Create {
			*reasons = append(*reasons, Reason{Code: ReasonSecret, Message: fmt.Sprintf("value set from %s (the service has none)", ls.Source)})
		}
	case "changed":
		c.SecretValue = v
		c.Fields = append(c.Fields, FieldChange{Path: "value", Op: "changed", Sensitive: true})
		*reasons = append(*reasons, Reason{Code: ReasonSecret,
			Message: fmt.Sprintf("secret value changed: %s differs from revision %d, a new revision is made", ls.Source, rev.Revision)})
	}
}

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
		case top == "image" && (c.Kind == schema.KindSandbox || c.Kind == schema.KindFunction) && len(p) == 1:
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
		case c.Kind == schema.KindSandbox && top == "mounted_files" && len(p) == 3 && p[2].key == "digest":
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

// oldImage is the decoded spec of an image the service has.
func (pl *planning) oldImage(hash string) (any, sensitivity) {
	if im, ok := pl.st.Images[hash]; ok {
		return decode(im.Spec), newSensitivity(im.Sensitive)
	}
	if r := pl.byHash[hash]; r != nil {
		return decode(r.Spec), newSensitivity(r.Sensitive)
	}
	return nil, nil
}

// newImage is the decoded spec of an image of the configuration.
func (pl *planning) newImage(hash string) (any, sensitivity) {
	if r := pl.byHash[hash]; r != nil {
		return decode(r.Spec), newSensitivity(r.Sensitive)
	}
	return pl.oldImage(hash)
}

// imageCauses explains how two image specs differ: base, steps in order,
// and the final settings.
func (pl *planning) imageCauses(old, cur any, oldSens, newSens sensitivity, depth int) ([]string, []FileChange) {
	if old == nil || cur == nil {
		return nil, nil
	}
	var causes []string
	var files []FileChange
	if a, b := str(get(old, "from")), str(get(cur, "from")); a != b {
		switch {
		case a == "":
			causes = append(causes, fmt.Sprintf("base is now %s", b))
		case b == "":
			causes = append(causes, fmt.Sprintf("base is no longer %s", a))
		default:
			causes = append(causes, fmt.Sprintf("base %s → %s", a, b))
		}
	}
	if a, b := str(get(old, "from_image")), str(get(cur, "from_image")); a != b {
		msg := "base image changed"
		if depth < 3 {
			oi, os := pl.oldImage(a)
			ni, ns := pl.newImage(b)
			if sub, _ := pl.imageCauses(oi, ni, os, ns, depth+1); len(sub) > 0 {
				msg += ": " + joinCauses(sub)
			}
		}
		causes = append(causes, msg)
	}
	if a, b := get(old, "from_dockerfile"), get(cur, "from_dockerfile"); !jsonEqual(a, b) {
		p := str(get(b, "path"))
		if p == "" {
			p = str(get(a, "path"))
		}
		causes = append(causes, fmt.Sprintf("Dockerfile %s changed", p))
		if da, db := str(get(a, "digest")), str(get(b, "digest")); da != "" && db != "" && da != db {
			files = append(files, pl.fileChange(p, "from_dockerfile", da, db))
		}
	}
	sc, sf := pl.stepCauses(list(get(old, "steps")), list(get(cur, "steps")), oldSens, newSens)
	causes = append(causes, sc...)
	files = append(files, sf...)
	for _, k := range []string{"entrypoint", "cmd", "user", "platform"} {
		a, b := get(old, k), get(cur, k)
		if jsonEqual(a, b) {
			continue
		}
		switch {
		case a == nil:
			causes = append(causes, fmt.Sprintf("%s set to %s", k, quote(b)))
		case b == nil:
			causes = append(causes, fmt.Sprintf("%s removed", k))
		default:
			causes = append(causes, fmt.Sprintf("%s %s → %s", k, quote(a), quote(b)))
		}
	}
	return causes, files
}

// stepCauses aligns two step lists (longest common subsequence of equal
// steps) and explains each step added, removed or changed.
func (pl *planning) stepCauses(old, cur []any, oldSens, newSens sensitivity) ([]string, []FileChange) {
	n, m := len(old), len(cur)
	if n*m > 1_000_000 {
		return []string{"steps changed"}, nil
	}
	eq := func(i, j int) bool { return jsonEqual(old[i], cur[j]) }
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if eq(i, j) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var causes []string
	var files []FileChange
	var gapOld, gapNew []int
	flush := func() {
		k := 0
		for ; k < len(gapOld) && k < len(gapNew); k++ {
			i, j := gapOld[k], gapNew[k]
			if stepKind(old[i]) == stepKind(cur[j]) {
				c, f := pl.stepChange(i, j, old[i], cur[j], oldSens, newSens)
				causes = append(causes, c...)
				files = append(files, f...)
				continue
			}
			causes = append(causes, fmt.Sprintf("step %d (%s) removed", i+1, stepKind(old[i])),
				fmt.Sprintf("step %d (%s) added%s", j+1, stepKind(cur[j]), stepSummary(cur[j], newSens, j)))
		}
		for _, i := range gapOld[k:] {
			causes = append(causes, fmt.Sprintf("step %d (%s) removed", i+1, stepKind(old[i])))
		}
		for _, j := range gapNew[k:] {
			causes = append(causes, fmt.Sprintf("step %d (%s) added%s", j+1, stepKind(cur[j]), stepSummary(cur[j], newSens, j)))
		}
		gapOld, gapNew = gapOld[:0], gapNew[:0]
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && eq(i, j):
			flush()
			i++
			j++
		case j == m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			gapOld = append(gapOld, i)
			i++
		default:
			gapNew = append(gapNew, j)
			j++
		}
	}
	flush()
	return causes, files
}

func stepKind(v any) string {
	m, _ := v.(map[string]any)
	for k := range m {
		return k
	}
	return "step"
}

// stepSummary is a short description of an added step.
func stepSummary(v any, sens sensitivity, j int) string {
	k := stepKind(v)
	if sens.at(fmt.Sprintf("/steps/%d", j)) {
		return ""
	}
	body := get(v, k)
	switch k {
	case "apt", "pip":
		return ": " + clipValue(joinStrings(list(get(body, "packages"))))
	case "copy":
		return fmt.Sprintf(": %s → %s", str(get(body, "src")), str(get(body, "dst")))
	case "workdir":
		return ": " + str(get(body, "path"))
	case "pip_requirements":
		return ": " + str(get(body, "file"))
	}
	return ""
}

// stepChange explains one changed step: step i of the old list became step
// j of the new one.
func (pl *planning) stepChange(i, j int, old, cur any, oldSens, newSens sensitivity) ([]string, []FileChange) {
	k := stepKind(cur)
	name := fmt.Sprintf("step %d (%s)", j+1, k)
	if oldSens.at(fmt.Sprintf("/steps/%d", i)) || newSens.at(fmt.Sprintf("/steps/%d", j)) {
		return []string{name + " changed (sensitive value changed)"}, nil
	}
	a, b := get(old, k), get(cur, k)
	if k == "copy" {
		name = fmt.Sprintf("step %d (copy %s)", j+1, str(get(b, "src")))
	}
	var out []string
	var files []FileChange
	switch k {
	case "apt", "pip":
		if d := listChange(list(get(a, "packages")), list(get(b, "packages"))); d != "" {
			out = append(out, name+" "+d)
		}
		for _, f := range []string{"index_url", "extra_index_urls"} {
			if !jsonEqual(get(a, f), get(b, f)) {
				out = append(out, fmt.Sprintf("%s %s %s → %s", name, f, quote(get(a, f)), quote(get(b, f))))
			}
		}
	case "copy":
		src := str(get(b, "src"))
		for _, f := range []string{"src", "dst", "mode"} {
			if !jsonEqual(get(a, f), get(b, f)) {
				out = append(out, fmt.Sprintf("%s %s %s → %s", name, f, quote(get(a, f)), quote(get(b, f))))
			}
		}
		if da, db := str(get(a, "digest")), str(get(b, "digest")); da != db {
			via := fmt.Sprintf("step %d (copy %s)", j+1, src)
			changed, ok := pl.treeDiff(da, db, via, src)
			files = append(files, changed...)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s: files of %s changed", name, src))
			case len(changed) > 0:
				var names []string
				for _, f := range changed {
					names = append(names, f.Path+" "+f.Op)
				}
				out = append(out, fmt.Sprintf("%s: %s", name, joinNames(names)))
			}
		}
	case "pip_requirements":
		file := str(get(b, "file"))
		if fa := str(get(a, "file")); fa != file {
			out = append(out, fmt.Sprintf("%s file %s → %s", name, fa, file))
		}
		if da, db := str(get(a, "digest")), str(get(b, "digest")); da != db {
			out = append(out, fmt.Sprintf("%s: %s changed", name, file))
			files = append(files, pl.fileChange(file, fmt.Sprintf("step %d (pip_requirements)", j+1), da, db))
		}
	case "run", "dockerfile":
		ca, cb := list(get(a, "commands")), list(get(b, "commands"))
		if len(ca) == len(cb) {
			for x := range ca {
				if !jsonEqual(ca[x], cb[x]) {
					out = append(out, fmt.Sprintf("%s %s → %s", name, quote(ca[x]), quote(cb[x])))
				}
			}
		} else {
			out = append(out, fmt.Sprintf("%s %s", name, listChange(ca, cb)))
		}
	case "env":
		va, _ := get(a, "vars").(map[string]any)
		vb, _ := get(b, "vars").(map[string]any)
		keys := map[string]bool{}
		for key := range va {
			keys[key] = true
		}
		for key := range vb {
			keys[key] = true
		}
		var names []string
		for key := range keys {
			names = append(names, key)
		}
		sort.Strings(names)
		for _, key := range names {
			x, inA := va[key]
			y, inB := vb[key]
			switch {
			case !inA:
				out = append(out, fmt.Sprintf("%s %s=%s added", name, key, quote(y)))
			case !inB:
				out = append(out, fmt.Sprintf("%s %s removed", name, key))
			case !jsonEqual(x, y):
				out = append(out, fmt.Sprintf("%s %s %s → %s", name, key, quote(x), quote(y)))
			}
		}
	case "workdir":
		out = append(out, fmt.Sprintf("%s %s → %s", name, str(get(a, "path")), str(get(b, "path"))))
	}
	if len(out) == 0 {
		out = append(out, name+" changed")
	}
	return out, files
}

// listChange describes how a list of strings changed: "numpy → numpy==2.1",
// "+rich", "-numpy, +polars", or the order.
func listChange(a, b []any) string {
	count := map[string]int{}
	for _, x := range a {
		count[fmt.Sprint(x)]++
	}
	var added, removed []string
	for _, x := range b {
		s := fmt.Sprint(x)
		if count[s] > 0 {
			count[s]--
		} else {
			added = append(added, s)
		}
	}
	for _, x := range a {
		s := fmt.Sprint(x)
		if count[s] > 0 {
			count[s]--
			removed = append(removed, s)
		}
	}
	switch {
	case len(added) == 0 && len(removed) == 0:
		if jsonEqual(a, b) {
			return ""
		}
		return "order changed"
	case len(added) == 1 && len(removed) == 1:
		return clipValue(removed[0]) + " → " + clipValue(added[0])
	}
	var parts []string
	for _, r := range removed {
		parts = append(parts, "-"+r)
	}
	for _, a := range added {
		parts = append(parts, "+"+a)
	}
	return clipValue(strings.Join(parts, ", "))
}

// treeDiff compares two file trees by path. base is the copied path the
// entries are relative to ("" when relative to the project root). ok is
// false when either listing is not available.
func (pl *planning) treeDiff(oldDigest, newDigest, via, base string) ([]FileChange, bool) {
	oldTree, ok1 := pl.tree(oldDigest)
	newTree, ok2 := pl.tree(newDigest)
	if !ok1 || !ok2 {
		return nil, false
	}
	display := func(p string) string { return p }
	if base != "" {
		single := len(newTree) == 1 && newTree[0].Path == pathpkg.Base(base) || len(oldTree) == 1 && oldTree[0].Path == pathpkg.Base(base)
		display = func(p string) string {
			if single && p == pathpkg.Base(base) {
				return base
			}
			return pathpkg.Join(base, p)
		}
	}
	var out []FileChange
	i, j := 0, 0
	for i < len(oldTree) || j < len(newTree) {
		switch {
		case j == len(newTree) || i < len(oldTree) && oldTree[i].Path < newTree[j].Path:
			out = append(out, FileChange{Path: display(oldTree[i].Path), Via: via, Op: "removed", BeforeDigest: oldTree[i].Digest})
			i++
		case i == len(oldTree) || newTree[j].Path < oldTree[i].Path:
			f := FileChange{Path: display(newTree[j].Path), Via: via, Op: "added", AfterDigest: newTree[j].Digest}
			out = append(out, f)
			j++
		default:
			a, b := oldTree[i], newTree[j]
			i++
			j++
			if a.Digest == b.Digest && a.Mode == b.Mode {
				continue
			}
			if a.Digest == b.Digest {
				out = append(out, FileChange{Path: display(b.Path), Via: via, Op: "changed", BeforeDigest: a.Digest, AfterDigest: b.Digest,
					Note: fmt.Sprintf("mode %s → %s", a.Mode, b.Mode)})
				continue
			}
			out = append(out, pl.fileChange(display(b.Path), via, a.Digest, b.Digest))
		}
	}
	return out, true
}

func (pl *planning) tree(digest string) ([]schema.TreeEntry, bool) {
	if t, ok := pl.d.Trees[digest]; ok {
		return t, true
	}
	if pl.o.Content == nil || digest == "" {
		return nil, false
	}
	t, ok := pl.o.Content.Tree(digest)
	if !ok {
		return nil, false
	}
	sorted := append([]schema.TreeEntry(nil), t...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	return sorted, true
}

// fileListDiff compares two lists of {path, digest}.
func (pl *planning) fileListDiff(old, cur []any, via string) []FileChange {
	type file struct{ path, digest string }
	index := func(l []any) map[string]string {
		m := map[string]string{}
		for _, f := range l {
			m[str(get(f, "path"))] = str(get(f, "digest"))
		}
		return m
	}
	a, b := index(old), index(cur)
	var paths []string
	for p := range a {
		paths = append(paths, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []FileChange
	for _, p := range paths {
		da, inA := a[p]
		db, inB := b[p]
		switch {
		case !inA:
			out = append(out, FileChange{Path: p, Via: via, Op: "added", AfterDigest: db})
		case !inB:
			out = append(out, FileChange{Path: p, Via: via, Op: "removed", BeforeDigest: da})
		case da != db:
			out = append(out, pl.fileChange(p, via, da, db))
		}
	}
	return out
}

// fileChange is a changed file with its line diff, when both contents are
// available and text.
func (pl *planning) fileChange(p, via, oldDigest, newDigest string) FileChange {
	f := FileChange{Path: p, Via: via, Op: "changed", BeforeDigest: oldDigest, AfterDigest: newDigest}
	if pl.o.Content == nil {
		return f
	}
	if pl.diffsShown >= maxPlanFileDiffs {
		f.Note = "diff not shown: too many changed files"
		return f
	}
	a, okA := pl.o.Content.File(oldDigest)
	b, okB := pl.o.Content.File(newDigest)
	switch {
	case !okA:
		f.Note = "the old content is not available"
	case !okB:
		f.Note = "the new content is not available"
	case !isText(a) || !isText(b):
		f.Note = "binary file"
	default:
		pl.diffsShown++
		f.Diff = lineDiff(string(a), string(b))
	}
	return f
}

func opSuffix(op string) string {
	if op == "changed" {
		return ""
	}
	return " (" + op + ")"
}

func joinNames(names []string) string {
	if len(names) > maxCauses {
		return strings.Join(names[:maxCauses], ", ") + fmt.Sprintf(" and %d more", len(names)-maxCauses)
	}
	return strings.Join(names, ", ")
}

// describeField says how a field changed, with short values.
func describeField(f FieldChange) string {
	switch {
	case f.Sensitive:
		return f.Path + " (sensitive value changed)"
	case f.Op == "added":
		return fmt.Sprintf("%s added: %s", f.Path, clipValue(string(f.After)))
	case f.Op == "removed":
		return fmt.Sprintf("%s removed (was %s)", f.Path, clipValue(string(f.Before)))
	case f.Diff != "":
		return f.Path + " changed (see the diff)"
	}
	return fmt.Sprintf("%s %s → %s", f.Path, clipValue(string(f.Before)), clipValue(string(f.After)))
}

func quote(v any) string {
	if v == nil {
		return "(none)"
	}
	return clipValue(string(encode(v)))
}

func clipValue(s string) string { return clipTo(s, maxValueLen) }

// clipTo cuts s to at most n bytes, on a rune boundary, marking the cut.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func joinStrings(l []any) string {
	var s []string
	for _, x := range l {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, " ")
}

// valueAt follows a path into a decoded value.
func valueAt(v any, p path) any {
	for _, s := range p {
		switch t := v.(type) {
		case map[string]any:
			if s.index >= 0 {
				return nil
			}
			v = t[s.key]
		case []any:
			if s.index < 0 || s.index >= len(t) {
				return nil
			}
			v = t[s.index]
		default:
			return nil
		}
	}
	return v
}

func short(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

func dedupe(rs []Reason) []Reason {
	seen := map[string]bool{}
	out := make([]Reason, 0, len(rs))
	for _, r := range rs {
		if seen[r.Message] {
			continue
		}
		seen[r.Message] = true
		out = append(out, r)
	}
	if len(out) > maxReasons {
		n := len(out) - maxReasons + 1
		out = append(out[:maxReasons-1], Reason{Code: ReasonField, Message: fmt.Sprintf("and %d more changes", n)})
	}
	return out
}

// maskUnchanged replaces in after the sensitive values the state has only
// as the placeholder (the service sends no sensitive value) with the
// placeholder too, so that they compare equal: the service compared them
// (Options.SensitiveChanged) and found them unchanged.
func maskUnchanged(before, after any, ptrs []string) any {
	for _, p := range ptrs {
		if b, ok := schema.ValueAt(before, p); ok && b == schema.Redacted {
			if a, ok := schema.ValueAt(after, p); ok && a != nil {
				after = redactAt(after, schema.SplitPointer(p))
			}
		}
	}
	return after
}
