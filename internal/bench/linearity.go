package main

import (
	"context"
	"fmt"
	"strings"
)

// memoryRows are the commands the memory table shows, in its order.
var memoryRows = []string{"cue-export", "compile-cue", "hclfloor", "compile-hcl", "plan-hcl", "apply-embedded"}

// linearRows are the commands the linearity table shows.
var linearRows = []string{"compile-hcl", "compile-cue", "plan-hcl", "apply-embedded", "apply-full"}

// memoryPath measures, once each, what the memory table needs and the
// other paths did not measure at that size.
func (r *runner) memoryPath(ctx context.Context) error {
	for _, n := range r.cfg.sizes {
		dir, err := r.project(n)
		if err != nil {
			return err
		}
		cue, hcl := r.compileSpecs(n, dir)
		var missing []cmdSpec
		for _, s := range append(cue, hcl...) {
			if s.id != "compile-cue-json" && s.id != "compile-hcl-json" && r.results[resultKey(n, s.id)] == nil {
				missing = append(missing, s)
			}
		}
		if r.results[resultKey(n, "apply-embedded")] == nil {
			missing = append(missing, r.applySpecs(n, dir, &server{r: r, dir: r.work})[0])
		}
		if err := r.measureKeep(ctx, n, missing); err != nil {
			return err
		}
		if r.results[resultKey(n, "plan-hcl")] == nil {
			if err := r.applyOnce(ctx, n, dir); err != nil {
				return err
			}
			if err := r.measureKeep(ctx, n, r.noopSpecs(n, dir)[1:2]); err != nil {
				return err
			}
		}
	}
	r.tables = append(r.tables, &grid{title: "Peak memory (RSS) and per resource", rows: memoryRows, r: r, cell: memoryCell})
	return nil
}

// measureKeep measures specs once and keeps the results.
func (r *runner) measureKeep(ctx context.Context, n int, specs []cmdSpec) error {
	if len(specs) == 0 {
		return nil
	}
	res, err := r.measure(ctx, fmt.Sprintf("memory %s", commas(n)), specs, 1, false)
	if err == nil {
		r.keep(n, res)
	}
	return err
}

// grid is a table of commands by size.
type grid struct {
	title, note string
	rows        []string
	r           *runner
	cell        func(*result) string
	// ratioCol adds a column: the largest size's µs per resource over the
	// smallest's.
	ratioCol bool
}

func memoryCell(x *result) string {
	rss := median(x.rss())
	return fmt.Sprintf("%s (%s KiB)", fmtMiB(rss), sig3(rss/float64(x.spec.resources)))
}

func linearCell(x *result) string {
	return fmtPerResource(median(x.seconds()), median(x.rss()), x.spec.resources)
}

// markdown writes the grid; rows without any measurement are left out.
func (g *grid) markdown(b *strings.Builder) {
	sizes := g.r.cfg.sizes
	fmt.Fprintf(b, "### %s\n\n", g.title)
	if g.note != "" {
		b.WriteString(g.note + "\n\n")
	}
	head := []string{"command"}
	for _, n := range sizes {
		head = append(head, commas(n))
	}
	if g.ratioCol {
		head = append(head, fmt.Sprintf("µs per resource, %s / %s", commas(sizes[len(sizes)-1]), commas(sizes[0])))
	}
	writeRow(b, head)
	writeRow(b, strings.Split(strings.Repeat("---,", len(head)-1)+"---", ","))
	for _, id := range g.rows {
		if row, ok := g.row(id); ok {
			writeRow(b, row)
		}
	}
	b.WriteString("\n")
}

func (g *grid) row(id string) ([]string, bool) {
	sizes := g.r.cfg.sizes
	label := ""
	var cells []string
	for _, n := range sizes {
		x := g.r.results[resultKey(n, id)]
		if x == nil {
			cells = append(cells, "—")
			continue
		}
		if label == "" {
			label = x.spec.label
		}
		cells = append(cells, g.cell(x))
	}
	if label == "" {
		return nil, false
	}
	row := append([]string{label}, cells...)
	if g.ratioCol {
		row = append(row, perResourceRatio(g.r.results[resultKey(sizes[0], id)], g.r.results[resultKey(sizes[len(sizes)-1], id)]))
	}
	return row, true
}

// perResourceRatio is how the time per resource grew from the smallest
// size to the largest (1.00: linear).
func perResourceRatio(small, large *result) string {
	if small == nil || large == nil {
		return "—"
	}
	a := median(small.seconds()) / float64(small.spec.resources)
	z := median(large.seconds()) / float64(large.spec.resources)
	return fmt.Sprintf("%.2f", z/a)
}

// linearity adds the per-resource table, when more than one size ran.
func (r *runner) linearity() {
	if len(r.cfg.sizes) < 2 {
		return
	}
	r.tables = append(r.tables, &grid{title: "Linearity: time and peak memory per resource", rows: linearRows, r: r, cell: linearCell, ratioCol: true,
		note: "Medians of the tables above, divided by the number of resources (µs and KiB per resource)."})
}
