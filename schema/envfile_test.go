package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseEnvFile(t *testing.T) {
	got, err := ParseEnvFile([]byte("# comment\n\nexport A=1\nB = \"two words\"\nC='x'\nnot a pair\n=nokey\nA=3\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "3", "B": "two words", "C": "x"}
	if !cmp.Equal(got, want) {
		t.Errorf("ParseEnvFile() = %v, want %v", got, want)
	}
	keys, _ := EnvFileKeys([]byte("Z=1\nA=2\n"))
	if !cmp.Equal(keys, []string{"A", "Z"}) {
		t.Errorf("EnvFileKeys() = %v", keys)
	}
	if _, err := ParseEnvFile([]byte("K=" + strings.Repeat("x", 2<<20))); err == nil || strings.Contains(err.Error(), "xxx") {
		t.Errorf("long line: error = %v, want one that quotes no value", err)
	}
}
