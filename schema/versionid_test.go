package schema

import "testing"

// TestIssue16VersionIdentity: the version identity both sides of the wire
// use (issue 16 item 5). Key's bytes are those stored in existing
// databases (the literal is the key the service made before the identity
// moved here), and Same agrees with equal keys.
func TestIssue16VersionIdentity(t *testing.T) {
	two := VersionIdentity{Hash: "sha256:abc", Values: []VersionValue{{"secret.a", "fp-a"}, {"secret.b", "fp-b"}}}
	if got, want := two.Key(), "sha256:5804b90ed90146332991fb5b8d9bf07419aca181035a4952b71e55eff50c9eff"; got != want {
		t.Errorf("Key() = %s, want %s", got, want)
	}
	if got := (VersionIdentity{Hash: "sha256:abc"}).Key(); got != "sha256:abc" {
		t.Errorf("Key() without values = %s, want the hash", got)
	}
	for _, tc := range []struct {
		name string
		o    VersionIdentity
		same bool
	}{
		{"equal", VersionIdentity{Hash: "sha256:abc", Values: []VersionValue{{"secret.a", "fp-a"}, {"secret.b", "fp-b"}}}, true},
		{"other hash", VersionIdentity{Hash: "sha256:abd", Values: two.Values}, false},
		{"other value", VersionIdentity{Hash: "sha256:abc", Values: []VersionValue{{"secret.a", "fp-a"}, {"secret.b", "fp-c"}}}, false},
		{"fewer values", VersionIdentity{Hash: "sha256:abc", Values: []VersionValue{{"secret.a", "fp-a"}}}, false},
		{"other address", VersionIdentity{Hash: "sha256:abc", Values: []VersionValue{{"secret.a", "fp-a"}, {"secret.c", "fp-b"}}}, false},
		{"no values", VersionIdentity{Hash: "sha256:abc"}, false},
	} {
		if got := two.Same(tc.o); got != tc.same {
			t.Errorf("%s: Same() = %v, want %v", tc.name, got, tc.same)
		}
		if got := two.Key() == tc.o.Key(); got != tc.same {
			t.Errorf("%s: equal keys = %v, want %v", tc.name, got, tc.same)
		}
	}
}
