package buildkit

import (
	"encoding/json"
	"strings"

	"cc.dev/cc/schema"
)

// The scripts below are what the shell runs for each step kind. LLB and the
// printed Dockerfile use the same text, so the two build the same thing.

// AptScript installs Debian packages and removes the package lists, so the
// layer holds no index that is stale tomorrow.
func AptScript(packages []string) string {
	return "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends " +
		quoteAll(packages) + " && rm -rf /var/lib/apt/lists/*"
}

// PipScript installs Python packages without keeping pip's cache.
func PipScript(p *schema.PipStep) string {
	var b strings.Builder
	b.WriteString("pip install --no-cache-dir")
	if p.IndexURL != "" {
		b.WriteString(" --index-url " + Quote(p.IndexURL))
	}
	for _, u := range p.ExtraIndexURLs {
		b.WriteString(" --extra-index-url " + Quote(u))
	}
	b.WriteString(" " + quoteAll(p.Packages))
	return b.String()
}

// PipRequirementsScript installs the requirements file that the step
// mounts (read-only, for the step only) at /tmp/cc-requirements.txt.
func PipRequirementsScript() string {
	return "pip install --no-cache-dir -r " + requirementsPath
}

// Quote quotes s for a POSIX shell when it needs quoting.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+@%,^", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = Quote(s)
	}
	return strings.Join(q, " ")
}

// jsonArgs renders an exec-form argument list as a Dockerfile does.
func jsonArgs(args []string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if args == nil {
		args = []string{}
	}
	_ = enc.Encode(args)
	return strings.TrimSuffix(b.String(), "\n")
}

// envLine renders env vars as one Dockerfile ENV instruction's arguments,
// sorted by name, each value double-quoted with $ and \ escaped so the
// Dockerfile's variable expansion leaves it literal.
func envLine(vars map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(vars) {
		parts = append(parts, k+"="+dockerfileQuote(vars[k]))
	}
	return strings.Join(parts, " ")
}

func dockerfileQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
