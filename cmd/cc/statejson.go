package main

import (
	"encoding/json"
	"fmt"
	"time"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// stateFormatVersion is the format_version of the JSON of cc state list,
// cc state show, cc versions and cc build (README, "Machine-readable
// output"): a minor version adds fields, a major version changes or
// removes them.
const stateFormatVersion = "1.0"

// stateListJSON is cc state list --json.
type stateListJSON struct {
	FormatVersion string              `json:"format_version"`
	Project       string              `json:"project"`
	Lineage       string              `json:"lineage,omitempty"`
	Serial        int64               `json:"serial"`
	LockedBy      string              `json:"locked_by,omitempty"`
	Resources     []stateResourceJSON `json:"resources"`
}

// stateResourceJSON is one resource of cc state list --json.
type stateResourceJSON struct {
	Address string `json:"address"`
	Kind    string `json:"kind"`
	Hash    string `json:"hash"`
	// Version is the current version (or revision) of a versioned kind,
	// Versions how many it has.
	Version  int64 `json:"version,omitempty"`
	Versions int   `json:"versions,omitempty"`
	// SecretRevision is the revision of a secret's value cc stores.
	SecretRevision int64 `json:"secret_revision,omitempty"`
}

// stateShowJSON is cc state show --json: one resource, its spec with
// every sensitive value redacted as in the text form.
type stateShowJSON struct {
	FormatVersion    string          `json:"format_version"`
	Project          string          `json:"project"`
	Address          string          `json:"address"`
	Kind             string          `json:"kind"`
	ID               string          `json:"id,omitempty"`
	Hash             string          `json:"hash"`
	Version          int64           `json:"version,omitempty"`
	Versions         []int64         `json:"versions,omitempty"`
	SecretRevision   int64           `json:"secret_revision,omitempty"`
	Status           string          `json:"status"`
	Serial           int64           `json:"serial"`
	CreatedAt        *time.Time      `json:"created_at,omitempty"`
	UpdatedAt        *time.Time      `json:"updated_at,omitempty"`
	ExpiresAt        *time.Time      `json:"expires_at,omitempty"`
	PreventDestroyAt string          `json:"prevent_destroy_at,omitempty"`
	DependsOn        []string        `json:"depends_on,omitempty"`
	Spec             json.RawMessage `json:"spec"`
}

// versionsJSON is cc versions --json.
type versionsJSON struct {
	FormatVersion string `json:"format_version"`
	Project       string `json:"project"`
	Address       string `json:"address"`
	// Noun is what they are: "version", or "revision" (a scaling group's
	// revisions, a secret's value revisions).
	Noun     string        `json:"noun"`
	Versions []versionJSON `json:"versions"`
}

// versionJSON is one version; a secret's revision has no hash (it is
// derived from the value).
type versionJSON struct {
	Number    int64     `json:"number"`
	Hash      string    `json:"hash,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Current   bool      `json:"current"`
}

// buildJSON is cc build --json: what became of each image.
type buildJSON struct {
	FormatVersion string           `json:"format_version"`
	Images        []builtImageJSON `json:"images"`
}

// builtImageJSON is one image built (or reused): its digest when it was
// exported, and the pushed reference or the OCI tarball's path.
type builtImageJSON struct {
	Address string `json:"address"`
	Hash    string `json:"hash,omitempty"`
	Digest  string `json:"digest,omitempty"`
	Ref     string `json:"ref,omitempty"`
	Reused  bool   `json:"reused"`
}

// writeJSON writes v indented, with a final newline.
func (e *env) writeJSON(v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return exitError
	}
	e.stdout.Write(append(b, '\n'))
	return exitOK
}

// stateListAsJSON is cc state list --json.
func (e *env) stateListAsJSON(st *service.State) int {
	out := stateListJSON{FormatVersion: stateFormatVersion, Project: st.Project, Lineage: st.Lineage, Serial: st.Serial,
		Resources: []stateResourceJSON{}}
	if st.Lock != nil {
		out.LockedBy = st.Lock.Holder.String()
	}
	for _, r := range st.Resources {
		j := stateResourceJSON{Address: r.Address, Kind: string(r.Kind), Hash: r.Hash}
		if r.Kind.Versioned() {
			j.Version, j.Versions = r.Version, len(r.Versions)
		}
		if sv := st.SecretValue(r.Address); sv != nil {
			j.SecretRevision = sv.Revision
		}
		out.Resources = append(out.Resources, j)
	}
	return e.writeJSON(out)
}

// stateShowAsJSON is cc state show --json of resource r.
func (e *env) stateShowAsJSON(st *service.State, r *service.Resource) int {
	out := stateShowJSON{FormatVersion: stateFormatVersion, Project: st.Project, Address: r.Address, Kind: string(r.Kind),
		ID: r.ID, Hash: r.Hash, Status: r.Status.String(), Serial: r.Serial, DependsOn: r.DependsOn,
		CreatedAt: timeOrNil(r.CreatedAt), UpdatedAt: timeOrNil(r.UpdatedAt), ExpiresAt: timeOrNil(r.ExpiredAt),
		Spec: planner.Redact(r.Spec, r.Sensitive)}
	if r.PreventDestroy {
		out.PreventDestroyAt = r.PreventDestroyAt
	}
	if r.Kind.Versioned() {
		out.Version = r.Version
		for _, v := range r.Versions {
			out.Versions = append(out.Versions, v.Version)
		}
	}
	if sv := st.SecretValue(r.Address); sv != nil {
		out.SecretRevision = sv.Revision
	}
	if !json.Valid(out.Spec) {
		out.Spec = json.RawMessage("null")
	}
	return e.writeJSON(out)
}

// timeOrNil is t in UTC, nil when zero.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// versionsAsJSON is cc versions --json.
func (e *env) versionsAsJSON(project, addr string, kind schema.Kind, vs []service.Version) int {
	noun := "version"
	if kind == schema.KindSecret || kind == schema.KindScalingGroup {
		noun = "revision"
	}
	out := versionsJSON{FormatVersion: stateFormatVersion, Project: project, Address: addr, Noun: noun, Versions: []versionJSON{}}
	for _, v := range vs {
		j := versionJSON{Number: v.Version, CreatedAt: v.CreatedAt.UTC(), Current: v.Current}
		if kind != schema.KindSecret {
			j.Hash = v.Hash
		}
		out.Versions = append(out.Versions, j)
	}
	return e.writeJSON(out)
}

// buildAsJSON is cc build --json of the build's results.
func (e *env) buildAsJSON(res []buildkit.Result) int {
	out := buildJSON{FormatVersion: stateFormatVersion, Images: []builtImageJSON{}}
	for _, r := range res {
		j := builtImageJSON{Digest: r.Digest, Ref: r.Ref, Reused: r.Reused}
		if r.Image != nil {
			j.Address, j.Hash = r.Image.Address, r.Image.Hash
		}
		out.Images = append(out.Images, j)
	}
	return e.writeJSON(out)
}

// noRevisionsJSON is cc versions --json of a secret with no value
// revisions: an empty list when the project has the secret, else the
// error of noRevisions.
func (e *env) noRevisionsJSON(c *command, cn *conn, project, addr string, notFound error) int {
	st, err := cn.client.GetState(e.ctx, project)
	if err != nil {
		return e.fail(c, notFound)
	}
	if st.Lookup(addr) == nil {
		fmt.Fprintf(e.stderr, "cc %s: project %s has no %s in %s\n", c.name, project, addr, cn.where)
		return exitError
	}
	return e.versionsAsJSON(project, addr, schema.KindSecret, nil)
}
