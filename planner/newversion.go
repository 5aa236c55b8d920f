package planner

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"cc.dev/cc/schema"
)

// Forced versions (issue 10). A function's version is reused whenever one
// with its key exists, and the key covers what cc can compare: the spec
// and the values of the secrets the service holds. Secrets whose values
// live elsewhere (from_service, from_integration, from_store) can change
// without cc knowing, so a user forces a new version: --new-version ADDR
// for one plan, a change of the function's version_trigger field in the
// configuration, or --replace ADDR, since replacing a function makes a new
// version too (a replacement that kept the old version would replace
// nothing). A forced version reuses the image and the source the service
// has: nothing is built or uploaded.

// forced reports whether the change at addr makes a new version even when
// one with its content exists.
func (pl *planning) forced(addr string) bool {
	return schema.KindOf(addr) == schema.KindFunction && (pl.newVersion[addr] || pl.replace[addr])
}

// checkNewVersion refuses --new-version addresses that are not functions
// of the configuration; all are the addresses there are, for
// did-you-mean.
func (pl *planning) checkNewVersion(all []string) error {
	var errs []error
	for _, a := range pl.o.NewVersion {
		k, _, ok := cutAddress(a)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("--new-version %s: not an address KIND.NAME (%s.NAME)", a, schema.KindFunction))
		case pl.want[a] == nil && pl.st.Lookup(a) == nil:
			errs = append(errs, pl.unknownAddress("--new-version", a, "function", all))
		case k == schema.KindDataset:
			errs = append(errs, fmt.Errorf("--new-version %s: a dataset's revision is its content; it gets a new one when its files change", a))
		case k == schema.KindScalingGroup:
			// issue 11: scaling groups.
			errs = append(errs, fmt.Errorf("--new-version %s: a scaling group appends a revision for every change of its spec and none for an unchanged one; --replace %s makes it anew", a, a))
		case k != schema.KindFunction:
			errs = append(errs, fmt.Errorf("--new-version %s: only functions have versions to force; --replace %s makes a %s anew", a, a, k))
		case pl.want[a] == nil:
			errs = append(errs, fmt.Errorf("--new-version %s: it is no longer in the configuration, so this plan deletes it", a))
		}
	}
	return errors.Join(errs...)
}

// forcedReason explains a forced version; none when the change makes no
// version at all.
func (pl *planning) forcedReason(c *Change) []Reason {
	if c.Version == nil || !c.Version.Forced {
		return nil
	}
	if pl.newVersion[c.Addr] {
		return []Reason{{Code: ReasonNewVersion, Message: "new version requested with --new-version: its image and source are reused, nothing is built or uploaded"}}
	}
	return []Reason{{Code: ReasonNewVersion, Message: "a replaced function gets a new version: no version is reused"}}
}

// externalSecretWarning says, once, which secrets of the configuration
// keep their values outside cc, which cannot compare them, and how to
// make the functions, sandboxes and scaling groups that use them pick up
// a new value (a scaling group, like a sandbox, by --replace: issue 11).
func (pl *planning) externalSecretWarning() {
	external := map[string]string{}
	provider := map[string]string{} // by secret address, decoded once
	var users []string
	for _, r := range pl.d.Resources {
		if pl.o.Destroy || !runsImage[r.Kind] {
			continue
		}
		uses := false
		for _, d := range r.DependsOn {
			p, ok := provider[d]
			if !ok {
				p = pl.secretProvider(d)
				provider[d] = p
			}
			if p != "" {
				external[d], uses = p, true
			}
		}
		if uses {
			users = append(users, r.Address)
		}
	}
	if len(users) == 0 {
		return
	}
	secrets := make([]string, 0, len(external))
	for a, p := range external {
		secrets = append(secrets, fmt.Sprintf("%s (%s)", a, p))
	}
	sort.Strings(secrets)
	sort.Strings(users)
	pl.warnings = append(pl.warnings, fmt.Sprintf(
		"the values of %s live outside cc, which cannot compare them: a new value there changes no plan. %s %s them; to pick up a new value, force a function's new version with --new-version ADDR or a change of its version_trigger, and replace %s with --replace ADDR",
		listSome(secrets), listSome(users), plural(len(users), "uses", "use"), replacedKinds(users)))
}

// replacedKinds names the kinds a --replace gives a new value to: "a
// sandbox", and the containers, scaling groups and trainings among users
// (issue 11).
func replacedKinds(users []string) string {
	kinds := []string{schema.KindSandbox.Noun()}
	for _, k := range []schema.Kind{schema.KindContainer, schema.KindScalingGroup, schema.KindTraining} {
		for _, u := range users {
			if schema.KindOf(u) == k {
				kinds = append(kinds, k.Noun())
				break
			}
		}
	}
	if len(kinds) == 1 {
		return "a " + kinds[0]
	}
	return "a " + strings.Join(kinds[:len(kinds)-1], ", a ") + " or a " + kinds[len(kinds)-1]
}

// maxListed is how many names a warning lists before "and N more".
const maxListed = 5

// listSome joins names, at most maxListed of them.
func listSome(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

// secretProvider names where the value of the desired secret at addr
// lives when it is not on the service: "from_service", "from_integration"
// or "from_store"; "" for any other address.
func (pl *planning) secretProvider(addr string) string {
	r := pl.want[addr]
	if r == nil || r.Kind != schema.KindSecret {
		return ""
	}
	s, err := schema.DecodeSecretSpec(r.Spec)
	switch {
	case err != nil || s.Managed():
		return ""
	case s.FromService != "":
		return "from_service"
	case s.FromIntegration != nil:
		return "from_integration"
	case s.FromStore != nil:
		return "from_store"
	}
	return ""
}

// checkNewVersions checks a plan file's forced versions against what it
// was planned with: config.new_version names functions of the desired
// state, not with a destroy, and a change of one of them makes a forced
// new version (unless it creates the function); a change of a function in
// config.replace may (a file of a cc before forced versions has it reuse
// the version, and apply does as its plan says); no other change does. So
// a file cannot make apply bypass the reuse of a version for a reason it
// does not show.
func (f *File) checkNewVersions() error {
	cfg := f.Config
	asked := map[string]bool{}
	named := map[string]bool{}
	for _, a := range cfg.NewVersion {
		if !schema.ValidAddress(a) || schema.KindOf(a) != schema.KindFunction || f.Desired.Lookup(a) == nil {
			return fmt.Errorf("config new_version %q: not a function of the desired state", a)
		}
		if cfg.Destroy {
			return fmt.Errorf("config new_version %s with destroy", a)
		}
		asked[a], named[a] = true, true
	}
	for _, a := range cfg.Replace {
		if schema.KindOf(a) == schema.KindFunction {
			named[a] = true
		}
	}
	for i := range f.Plan.Changes {
		c := &f.Plan.Changes[i]
		forced := c.Version != nil && c.Version.Forced
		switch {
		case forced && (!named[c.Addr] || c.Action == Create || c.Action == Delete):
			return fmt.Errorf("%s: a forced new version that config new_version and replace do not ask for", c.Addr)
		case !forced && asked[c.Addr] && c.Action != Create && c.Action != Delete:
			return fmt.Errorf("%s: config asks for a new version, but the change does not force one", c.Addr)
		case forced && c.Version.Action != "new":
			return fmt.Errorf("%s: a forced version is a new one, not %q", c.Addr, c.Version.Action)
		}
	}
	return nil
}
