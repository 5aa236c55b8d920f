package planner

import (
	"fmt"
	"strings"
)

// oldImage is the decoded spec of an image the service has.
func (pl *planning) oldImage(hash string) (any, sensitivity) {
	if im, ok := pl.images[hash]; ok {
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
	var out []string
	var files []FileChange
	switch k {
	case "apt", "pip":
		out = packagesStepChange(name, a, b)
	case "copy":
		out, files = pl.copyStepChange(j, a, b)
	case "pip_requirements":
		out, files = pl.pipRequirementsStepChange(j, name, a, b)
	case "run", "dockerfile":
		out = commandsStepChange(name, a, b)
	case "env":
		out = envStepChange(name, a, b)
	case "workdir":
		out = append(out, fmt.Sprintf("%s %s → %s", name, str(get(a, "path")), str(get(b, "path"))))
	}
	if len(out) == 0 {
		out = append(out, name+" changed")
	}
	return out, files
}

// fieldChanges describes each of fields whose value differs between the
// steps a and b.
func fieldChanges(name string, a, b any, fields ...string) []string {
	var out []string
	for _, f := range fields {
		if !jsonEqual(get(a, f), get(b, f)) {
			out = append(out, fmt.Sprintf("%s %s %s → %s", name, f, quote(get(a, f)), quote(get(b, f))))
		}
	}
	return out
}

// packagesStepChange describes the change of an apt or pip step.
func packagesStepChange(name string, a, b any) []string {
	var out []string
	if d := listChange(list(get(a, "packages")), list(get(b, "packages"))); d != "" {
		out = append(out, name+" "+d)
	}
	return append(out, fieldChanges(name, a, b, "index_url", "extra_index_urls")...)
}

// copyStepChange describes the change of step j, a copy, down to its
// files.
func (pl *planning) copyStepChange(j int, a, b any) ([]string, []FileChange) {
	src := str(get(b, "src"))
	name := fmt.Sprintf("step %d (copy %s)", j+1, src)
	out := fieldChanges(name, a, b, "src", "dst", "mode")
	da, db := str(get(a, "digest")), str(get(b, "digest"))
	if da == db {
		return out, nil
	}
	changed, ok := pl.treeDiff(da, db, name, src)
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
	return out, changed
}

// pipRequirementsStepChange describes the change of step j, a
// pip_requirements, down to its file.
func (pl *planning) pipRequirementsStepChange(j int, name string, a, b any) ([]string, []FileChange) {
	var out []string
	var files []FileChange
	file := str(get(b, "file"))
	if fa := str(get(a, "file")); fa != file {
		out = append(out, fmt.Sprintf("%s file %s → %s", name, fa, file))
	}
	if da, db := str(get(a, "digest")), str(get(b, "digest")); da != db {
		out = append(out, fmt.Sprintf("%s: %s changed", name, file))
		files = append(files, pl.fileChange(file, fmt.Sprintf("step %d (pip_requirements)", j+1), da, db))
	}
	return out, files
}

// commandsStepChange describes the change of a run or dockerfile step:
// command by command when there are as many.
func commandsStepChange(name string, a, b any) []string {
	ca, cb := list(get(a, "commands")), list(get(b, "commands"))
	if len(ca) != len(cb) {
		return []string{fmt.Sprintf("%s %s", name, listChange(ca, cb))}
	}
	var out []string
	for x := range ca {
		if !jsonEqual(ca[x], cb[x]) {
			out = append(out, fmt.Sprintf("%s %s → %s", name, quote(ca[x]), quote(cb[x])))
		}
	}
	return out
}

// envStepChange describes the change of an env step, variable by
// variable, sorted.
func envStepChange(name string, a, b any) []string {
	va, _ := get(a, "vars").(map[string]any)
	vb, _ := get(b, "vars").(map[string]any)
	var out []string
	for _, key := range keysOfBoth(va, vb) {
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
	return out
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
