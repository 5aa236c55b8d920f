package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseEnvFile: the common forms. Issue 9 item 12 changed what it
// asserted: "not a pair" and "=nokey" were skipped silently and are now
// errors (TestIssue9EnvFileDotenv), and a " #" after a value is a comment.
func TestParseEnvFile(t *testing.T) {
	got, err := ParseEnvFile([]byte("# comment\n\nexport A=1\nB = \"two words\"\nC='x'\nD=y # note\nA=3\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "3", "B": "two words", "C": "x", "D": "y"}
	if !cmp.Equal(got, want) {
		t.Errorf("ParseEnvFile() = %v, want %v", got, want)
	}
	keys, _ := EnvFileKeys([]byte("Z=1\nA=2\n"))
	if !cmp.Equal(keys, []string{"A", "Z"}) {
		t.Errorf("EnvFileKeys() = %v", keys)
	}
}

// TestIssue9EnvFileDotenv: issue 9 item 12. Env files are read by a
// dotenv parser: a multi-line PEM value is kept whole, an inline comment
// is not part of the value, and a malformed line is an error naming its
// line, quoting no value. Before, the PEM was cut at its first line, the
// comment kept and malformed lines skipped.
func TestIssue9EnvFileDotenv(t *testing.T) {
	pem := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"
	got, err := ParseEnvFile([]byte("# key\nKEY=\"" + pem + "\"\nexport TOKEN=abc # a comment\nQ='single quoted'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got["KEY"] != pem || got["TOKEN"] != "abc" || len(got) != 3 {
		t.Errorf("ParseEnvFile() = %q", got)
	}
	for src, want := range map[string]string{
		"A=1\ns3cr3t without equals\n":    "line 2: a line has no = (want NAME=VALUE)",
		"A=1\n\n=s3cr3t\n":                "line 3: a line has a value but no name (=VALUE)",
		"A=1\nB=\"s3cr3t\nC=2\n":          "line 2: a quoted value is not closed",
		"A=1\nMY-KEY=s3cr3t\n":            "line 2: column 3: a variable name holds a character other than letters, digits, _ and .",
		"A=1\n  A B=s3cr3t\n":             "line 2: a variable name holds a space (want NAME=VALUE)",
		"A=\"x\" s3cr3t\nB=1\n":           "line 1: a line has no = (want NAME=VALUE)",
		"A=1\r\nB=2\r\ns3cr3t\r\nC=3\r\n": "line 3: a line has no = (want NAME=VALUE)",
	} {
		_, err := ParseEnvFile([]byte(src))
		var ee *EnvFileError
		if !errors.As(err, &ee) || err.Error() != want {
			t.Errorf("ParseEnvFile(%q) error = %v, want %s", src, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("ParseEnvFile(%q) error quotes a value: %v", src, err)
		}
	}
	if _, err := ParseEnvFile([]byte("K=" + strings.Repeat("x", 2<<20))); err != nil {
		t.Errorf("long value: %v", err)
	}
}
