package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxVersionTrigger is the most characters a function's version_trigger
// has (#VersionTrigger).
const MaxVersionTrigger = 256

// checkVersionTrigger checks a function's version_trigger as the schema's
// #VersionTrigger does: "" (none), or one line of at most
// MaxVersionTrigger characters.
func checkVersionTrigger(s string) error {
	switch n := utf8.RuneCountInString(s); {
	case s == "":
		return nil
	case !utf8.ValidString(s) || strings.ContainsAny(s, "\r\n"):
		return fmt.Errorf("version_trigger: want one line of text")
	case n > MaxVersionTrigger:
		return fmt.Errorf("version_trigger: %d characters, want at most %d", n, MaxVersionTrigger)
	}
	return nil
}
