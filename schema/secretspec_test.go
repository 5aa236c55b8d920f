package schema

import "testing"

// TestIssue16SecretSpec checks the one decoder of a secret's spec and the
// one "managed secret" rule (issue 16 item 5): from_env and from_env_file
// are managed, the other sources are not, and a spec that does not decode
// is an error (and not managed).
func TestIssue16SecretSpec(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		managed bool
		err     bool
	}{
		{`{"from_env":"TOKEN"}`, true, false},
		{`{"from_env_file":{"path":".env","keys":["A"]}}`, true, false},
		{`{"from_env_file":{"path":".env"}}`, true, false},
		{`{"from_service":"db"}`, false, false},
		{`{"from_integration":{"name":"x","keys":["A"]}}`, false, false},
		{`{"from_store":{"name":"x"}}`, false, false},
		{`{}`, false, false},
		{`not json`, false, true},
		{`{"from_env":7}`, false, true},
	} {
		s, err := DecodeSecretSpec([]byte(tc.spec))
		if (err != nil) != tc.err {
			t.Errorf("DecodeSecretSpec(%s) error = %v, want error %v", tc.spec, err, tc.err)
		}
		if got := err == nil && s.Managed(); got != tc.managed {
			t.Errorf("DecodeSecretSpec(%s).Managed() = %v, want %v", tc.spec, got, tc.managed)
		}
		if got := ManagedSecret([]byte(tc.spec)); got != tc.managed {
			t.Errorf("ManagedSecret(%s) = %v, want %v", tc.spec, got, tc.managed)
		}
	}
}
