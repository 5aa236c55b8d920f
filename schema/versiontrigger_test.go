package schema

import (
	"strings"
	"testing"
)

// issue 10: forced versions. A function spec's version_trigger is checked
// where specs come from others (the service): one line of at most 256
// characters.
func TestValidateSpecVersionTrigger(t *testing.T) {
	img := "sha256:" + strings.Repeat("a", 64)
	fn := func(trigger string) string {
		return `{"image":"` + img + `","source":{"paths":["src"],"digest":"` + img + `"},"handler":"m.run","timeout":"300s","retries":0,"version_trigger":` + trigger + `}`
	}
	for trigger, want := range map[string]string{
		`"rotated 2026-12-01"`:                               "",
		`"` + strings.Repeat("é", MaxVersionTrigger) + `"`:   "",
		`"` + strings.Repeat("a", MaxVersionTrigger+1) + `"`: "257 characters, want at most 256",
		`"two\nlines"`: "want one line",
		`7`:            "version_trigger",
	} {
		err := ValidateSpec(KindFunction, []byte(fn(trigger)))
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ValidateSpec(version_trigger %.20s) = %v, want %q", trigger, err, want)
		}
	}
}
