package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/diag"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// uiVersion is the version of the event stream of cc apply --json
// (README, "Machine-readable apply"): a minor version adds fields or event
// types, a major version changes or removes them.
const uiVersion = "1.0"

// jsonUI writes the events of cc apply --json to w, one JSON object a
// line, in the shape of Terraform's machine-readable UI: every event has
// @level, @message, @module ("cc.ui"), @timestamp and type. No event holds
// a spec or a value, sensitive or not: only addresses, actions, reasons,
// counts and error messages.
type jsonUI struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	// planned: the plan's events were written.
	planned bool
}

// uiNow is the clock of event timestamps; tests replace it.
var uiNow = time.Now

func newJSONUI(w io.Writer) *jsonUI {
	return &jsonUI{w: w, now: uiNow}
}

// emit writes one event: the common fields, then fields.
func (u *jsonUI) emit(level, typ, msg string, fields map[string]any) {
	ev := map[string]any{"@level": level, "@message": msg, "@module": "cc.ui",
		"@timestamp": u.now().Format(time.RFC3339Nano), "type": typ}
	for k, v := range fields {
		ev[k] = v
	}
	b, err := json.Marshal(ev) // map keys are sorted: a stable order
	if err != nil {
		b, _ = json.Marshal(map[string]any{"@level": "error", "@message": err.Error(), "@module": "cc.ui", "type": "diagnostic"})
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.w.Write(append(b, '\n'))
}

// version is the first event: cc's version and the stream's.
func (u *jsonUI) version() {
	v := moduleVersion()
	u.emit("info", "version", "cc "+v, map[string]any{"cc": v, "ui": uiVersion})
}

// moduleVersion is cc's module version, "(devel)" when unknown.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// resource is the object naming a change's resource.
func resource(addr string, kind schema.Kind) map[string]any {
	return map[string]any{"addr": addr, "kind": string(kind)}
}

// plan writes a planned_change event for each change of p, then its
// change_summary.
func (u *jsonUI) plan(p *planner.Plan) {
	for i := range p.Changes {
		c := &p.Changes[i]
		ch := map[string]any{"resource": resource(c.Addr, c.Kind), "action": c.Action.String(), "reason": reasonCode(c)}
		if c.MovedFrom != "" {
			ch["previous_resource"] = resource(c.MovedFrom, c.Kind)
		}
		u.emit("info", "planned_change", fmt.Sprintf("%s: plan to %s", c.Addr, c.Action), map[string]any{"change": ch})
	}
	s := p.Summary
	u.summary(planner.SummaryLine(p), "plan", s.Create, s.Update, s.Replace, s.Delete, s.Moved, s.Import, s.Forget, planScope(p))
}

// planScope are the plan's change_summary fields naming what it plans
// (issue 12: environments meet --json): project, the project's name, and
// environment, present for an environment other than the default.
func planScope(p *planner.Plan) map[string]any {
	project, env := schema.SplitScope(p.Project)
	f := map[string]any{"project": project}
	if env != "" {
		f["environment"] = env
	}
	return f
}

// reasonCode is the code of a change's first reason ("new", "field",
// "image"...), "" when it has none.
func reasonCode(c *planner.Change) string {
	if len(c.Reasons) == 0 {
		return ""
	}
	return c.Reasons[0].Code
}

// summary writes a change_summary event of operation "plan" or "apply".
// add, change and remove count as Terraform's do (a replacement adds one
// and removes one); the other fields are cc's own counts.
// extra holds more fields of the event (the plan's project and environment).
func (u *jsonUI) summary(msg, op string, create, update, replace, del, moved, imported, forgotten int, extra map[string]any) {
	f := map[string]any{"changes": map[string]any{
		"add": create + replace, "change": update, "remove": del + replace,
		"create": create, "update": update, "replace": replace, "delete": del,
		"move": moved, "import": imported, "forget": forgotten, "operation": op}}
	for k, v := range extra {
		f[k] = v
	}
	u.emit("info", "change_summary", msg, f)
}

// hook is the applier's event function: each change's apply_start,
// apply_progress, apply_complete and apply_errored.
func (u *jsonUI) hook(ev applier.Event) {
	h := map[string]any{"resource": resource(ev.Change.Addr, ev.Change.Kind), "action": ev.Change.Action.String(),
		"index": ev.Seq, "total": ev.Total}
	level := "info"
	switch ev.Type {
	case applier.EventProgress, applier.EventComplete:
		h["elapsed_seconds"] = int64(ev.Elapsed.Round(time.Second) / time.Second)
	case applier.EventErrored:
		h["elapsed_seconds"] = int64(ev.Elapsed.Round(time.Second) / time.Second)
		level = "error"
	}
	if ev.Type == applier.EventComplete && ev.Outcome.Version != 0 {
		h["version"] = ev.Outcome.Version
		h["reused"] = ev.Outcome.Reused
	}
	u.emit(level, string(ev.Type), ev.Message, map[string]any{"hook": h})
}

// diagnostic writes an error as a diagnostic event: its summary, and
// the address and configuration position of a change that failed.
func (u *jsonUI) diagnostic(err error) {
	d := map[string]any{"severity": "error", "summary": err.Error()}
	var ae *applier.Error
	if errors.As(err, &ae) {
		d["summary"], d["address"] = ae.Err.Error(), ae.Addr
		if ae.Range != nil && !ae.Range.IsZero() {
			d["range"] = ae.Range
		}
	}
	u.emit("error", "diagnostic", "Error: "+err.Error(), map[string]any{"diagnostic": d})
}

// configDiagnostics writes the diagnostics of a configuration that does
// not compile (or compiles with warnings) as diagnostic events, in
// diag's JSON form (severity, summary, detail, range).
func (u *jsonUI) configDiagnostics(ds diag.Diagnostics) {
	for _, d := range ds {
		level := "error"
		if d.Severity == diag.Warning {
			level = "warn"
		}
		u.emit(level, "diagnostic", d.Error(), map[string]any{"diagnostic": d})
	}
}

// outputs emits the project's outputs after a successful apply, as
// Terraform's outputs event: by name, sensitive, type and value, with no
// value for a sensitive output (issue 12: outputs).
func (u *jsonUI) outputs(outs []schema.Output) {
	if len(outs) == 0 {
		return
	}
	m := make(map[string]any, len(outs))
	for _, o := range outs {
		v := map[string]any{"sensitive": o.Sensitive, "type": schema.OutputType(o.Value)}
		if !o.Sensitive {
			v["value"] = json.RawMessage(o.Value)
		}
		m[o.Name] = v
	}
	u.emit("info", "outputs", fmt.Sprintf("Outputs: %d", len(outs)), map[string]any{"outputs": m})
}
