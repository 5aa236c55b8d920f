package state

import "testing"

// TestIssue16StateModel: the one client-side model of a project's state
// (issue 16 item 5) answers what the planner used to keep in maps of its
// own: a resource and a secret's current revision by address (nil for
// none, and on a nil state), and a revision's value by its label, made
// from same_value_as alone.
func TestIssue16StateModel(t *testing.T) {
	st := &Project{
		Resources:    []Resource{{Address: "function.f", Versions: []Version{{Version: 1, Hash: "h1"}, {Version: 2, Hash: "h2", Key: "k"}}}, {Address: "volume.v"}},
		SecretValues: []SecretValue{{Address: "secret.a", Revision: 3, SameValueAs: 1}, {Address: "secret.b", Revision: 2}},
	}
	if r := st.Lookup("volume.v"); r == nil || r.Address != "volume.v" {
		t.Errorf("Lookup(volume.v) = %v", r)
	}
	if r := st.Lookup("volume.w"); r != nil {
		t.Errorf("Lookup(volume.w) = %v, want nil", r)
	}
	if sv := st.SecretValue("secret.a"); sv == nil || sv.Revision != 3 {
		t.Errorf("SecretValue(secret.a) = %v", sv)
	}
	var none *Project
	if none.Lookup("volume.v") != nil || none.SecretValue("secret.a") != nil {
		t.Error("a nil state has resources or secret values")
	}
	f := st.Lookup("function.f")
	if f.VersionWithHash("h2") != 2 || f.VersionWithHash("h3") != 0 {
		t.Errorf("VersionWithHash = %d, %d; want 2, 0", f.VersionWithHash("h2"), f.VersionWithHash("h3"))
	}
	if f.Versions[0].Keyed() || !f.Versions[1].Keyed() {
		t.Error("Keyed() is not Key != \"\"")
	}
	for _, tc := range []struct {
		v    SecretValue
		want string
	}{
		{SecretValue{Revision: 3, SameValueAs: 1}, "value of revision 1"},
		{SecretValue{Revision: 1, SameValueAs: 1}, "value of revision 1"},
		{SecretValue{Revision: 2}, "unknown value of revision 2"},
	} {
		if got := tc.v.Label(); got != tc.want {
			t.Errorf("%+v.Label() = %q, want %q", tc.v, got, tc.want)
		}
	}
}
