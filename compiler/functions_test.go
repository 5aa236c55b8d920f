package compiler

import "testing"

// TestFunctionsDocumented: issue 15. Every function of the table has a
// summary for cc help functions, and every function the issue names is in
// the table (strlen, cc's own, stays as a documented alias of length).
func TestFunctionsDocumented(t *testing.T) {
	have := map[string]FunctionDoc{}
	for _, d := range Functions() {
		have[d.Name] = d
		if d.Summary == "" {
			t.Errorf("%s has no summary", d.Name)
		}
	}
	named := []string{
		"replace", "regex", "regexall", "startswith", "endswith", "strcontains", "strrev", "title",
		"trim", "trimprefix", "trimsuffix", "trimspace", "indent", "chomp", "substr", "formatlist",
		"length", "lookup", "index", "one", "sum", "alltrue", "anytrue", "setsubtract", "setintersection",
		"setproduct", "chunklist", "transpose", "matchkeys", "flatten", "coalesce",
		"base64encode", "base64decode", "base64gzip", "urlencode", "yamlencode", "yamldecode", "csvdecode",
		"sha1", "sha256", "sha512", "md5", "base64sha256", "base64sha512",
		"filesha1", "filesha256", "filesha512", "filemd5", "filebase64sha256", "filebase64sha512",
		"pow", "log", "signum", "parseint", "try", "can", "tostring", "tonumber", "tobool", "tolist", "toset", "tomap",
		"cidrhost", "cidrnetmask", "cidrsubnet", "cidrsubnets", "formatdate", "timeadd", "timecmp",
		"templatefile", "fileset", "basename", "dirname", "filebase64", "file", "fileexists", "strlen",
	}
	for _, n := range named {
		if d, ok := have[n]; !ok || d.Refused {
			t.Errorf("%s: in the table %v, refused %v; want it offered", n, ok, d.Refused)
		}
	}
	for _, n := range []string{"timestamp", "uuid", "bcrypt", "plantimestamp"} {
		if !have[n].Refused {
			t.Errorf("%s is not refused", n)
		}
	}
}
