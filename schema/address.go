package schema

import (
	"cmp"
	"regexp"
	"strings"
)

// A resource's address names it within its project's state:
//
//	sandbox.web                  a resource
//	sandbox.worker["a"]          an instance of a for_each resource
//	sandbox.worker[0]            an instance of a count resource
//	module.api.sandbox.web       a resource of module "api"
//	module.api.sandbox.worker[1] both
//
// Everything but the kind is the resource's member name (Resource.Name):
// "web", `worker["a"]`, "module.api.web". Code that works with a kind and a
// name keeps doing so: Address puts the kind in its place and ParseAddress
// takes it out again (issue 12: instances and modules).
//
// An instance key is a whole number below a million or a quoted string of
// 1 to 63 letters, digits, "_", "-" and ".", starting with a letter, a digit
// or "_": keys appear in plans, logs and shell command lines, so they are
// kept to characters that need no escaping anywhere.

var (
	labelPart = `[a-z]([-a-z0-9]{0,61}[a-z0-9])?`
	keyPart   = `(\[(0|[1-9][0-9]{0,5})\]|\["[A-Za-z0-9_][-A-Za-z0-9_.]{0,62}"\])`
	labelRE   = regexp.MustCompile(`^` + labelPart + `$`)
	keyRE     = regexp.MustCompile(`^` + keyPart + `$`)
	imageIDRE = regexp.MustCompile(`^[0-9a-f]{12}$`)
)

// Address makes a full address from a kind and a member name: "sandbox.web",
// `sandbox.worker["a"]`, "module.api.sandbox.web".
func Address(k Kind, member string) string {
	mods, rest := cutModules(member)
	return mods + string(k) + "." + rest
}

// cutModules splits a member name or an address into its module path
// ("module.api.module.db.", or "") and the rest.
func cutModules(s string) (mods, rest string) {
	rest = s
	for strings.HasPrefix(rest, "module.") {
		label, after, ok := strings.Cut(rest[len("module."):], ".")
		if !ok || !labelRE.MatchString(label) {
			break
		}
		rest = after
	}
	return s[:len(s)-len(rest)], rest
}

// ParseAddress splits a resource's full address into its kind and member
// name, checking every part: a known kind, DNS labels for the resource and
// its modules (or, for an image never named, the 12 hex digits of its
// hash), and an instance key of the documented form.
func ParseAddress(addr string) (k Kind, member string, ok bool) {
	mods, rest := cutModules(addr)
	ks, tail, found := strings.Cut(rest, ".")
	k = Kind(ks)
	if !found || !k.Valid() || !validLocal(k, tail) {
		return "", "", false
	}
	return k, mods + tail, true
}

// ValidAddress reports whether addr is a resource's full address
// (ParseAddress).
func ValidAddress(addr string) bool {
	_, _, ok := ParseAddress(addr)
	return ok
}

// ValidMember reports whether a member name of kind k is well formed:
// "web", `worker["a"]`, "module.api.web".
func ValidMember(k Kind, member string) bool {
	_, rest := cutModules(member)
	return validLocal(k, rest)
}

// validLocal checks a resource's name and instance key, without modules.
func validLocal(k Kind, s string) bool {
	name, key := s, ""
	if i := strings.IndexByte(s, '['); i >= 0 {
		name, key = s[:i], s[i:]
		if !keyRE.MatchString(key) {
			return false
		}
	}
	return labelRE.MatchString(name) || (k == KindImage && key == "" && imageIDRE.MatchString(name))
}

// ValidUnownedID reports whether id names an unowned resource an import
// adopts: the member name its project had (Resource.Name), which is a
// #Name for most, and `worker["a"]` or "module.api.web" for an instance
// or a module's resource that was forgotten (issue 12).
func ValidUnownedID(id string) bool { return ValidMember(KindVolume, id) }

// BaseAddress is the address without its instance key: the address of the
// resource block an instance comes from (`sandbox.worker["a"]` gives
// "sandbox.worker").
func BaseAddress(addr string) string {
	if i := strings.IndexByte(addr, '['); i >= 0 && strings.HasSuffix(addr, "]") {
		return addr[:i]
	}
	return addr
}

// InstanceKey is the instance key of an address, with its brackets
// (`["a"]`, "[0]"), or "".
func InstanceKey(addr string) string {
	return addr[len(BaseAddress(addr)):]
}

// CompareAddresses orders addresses as people read them, for the lists
// cc shows (a plan's changes, the state's resources): by the address
// without its instance key, then the resource without a key, then count
// instances by number (w[2] before w[10]), then for_each instances by
// key. It returns -1, 0 or +1, as strings.Compare does. The order of
// files, hashes and the API stays strings' own (byte order): this one is
// only for display.
func CompareAddresses(a, b string) int {
	ba, bb := BaseAddress(a), BaseAddress(b)
	if c := strings.Compare(ba, bb); c != 0 {
		return c
	}
	ka, kb := a[len(ba):], b[len(bb):]
	ra, rb := keyRank(ka), keyRank(kb)
	switch {
	case ra != rb:
		return cmp.Compare(ra, rb)
	case ra == 1 && len(ka) != len(kb):
		// Numbers without leading zeros: the longer one is the larger.
		return cmp.Compare(len(ka), len(kb))
	}
	return strings.Compare(ka, kb)
}

// keyRank is 0 for no instance key, 1 for a count index ("[12]"), 2 for
// anything else.
func keyRank(k string) int {
	if k == "" {
		return 0
	}
	if len(k) < 3 || k[0] != '[' || k[len(k)-1] != ']' || (k[1] == '0' && len(k) > 3) {
		return 2
	}
	for _, c := range k[1 : len(k)-1] {
		if c < '0' || c > '9' {
			return 2
		}
	}
	return 1
}
