package schema

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/joho/godotenv"
)

// ParseEnvFile reads an env file, the source of a from_env_file secret,
// with a maintained dotenv parser (github.com/joho/godotenv, the syntax
// Docker Compose and most tools read): KEY=VALUE (or KEY: VALUE) lines,
// "export " allowed, blank lines and # comments skipped, a " #" after an
// unquoted value starts a comment, a value in quotes may span lines (a PEM
// key) and a double-quoted one has \n escapes and ${VAR} expanded from the
// keys above it; a later line wins. A malformed line is an *EnvFileError
// naming its line (issue 9 item 12). The compiler uses the keys and the
// applier the values, so both agree on what the file holds. Errors never
// quote a value.
func ParseEnvFile(b []byte) (map[string]string, error) {
	vals, err := godotenv.UnmarshalBytes(b)
	if err != nil {
		return nil, envFileError(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), err)
	}
	for k := range vals {
		if k == "" {
			return nil, &EnvFileError{Line: lineStarting(b, "="), Msg: "a line has a value but no name (=VALUE)"}
		}
		if strings.ContainsFunc(k, unicode.IsSpace) {
			// godotenv reads "A B=1" as the name "A B".
			return nil, &EnvFileError{Line: lineStarting(b, k), Msg: "a variable name holds a space (want NAME=VALUE)"}
		}
	}
	return vals, nil
}

// EnvFileKeys returns the keys of an env file, sorted.
func EnvFileKeys(b []byte) ([]string, error) {
	vals, err := ParseEnvFile(b)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}

// EnvFileError is a malformed line of an env file. File is empty but
// where the caller sets it (the file's path, for the message).
type EnvFileError struct {
	File string
	Line int
	Msg  string
}

func (e *EnvFileError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// envFileError words godotenv's error, whose text quotes the file (values
// too), as the line it is about. The parser says where it stopped only in
// that text: the rest of the file from the statement it refused, or the
// first line of a quoted value that never closes.
func envFileError(src []byte, err error) *EnvFileError {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "unexpected character "); ok {
		char, near, _ := strings.Cut(rest, " in variable name near ")
		c, err1 := strconv.Unquote(char)
		n, err2 := strconv.Unquote(near)
		line, col := 0, 0
		if err1 == nil && err2 == nil && len(n) <= len(src) && strings.Contains(n, c) {
			at := len(src) - len(n) + strings.Index(n, c)
			line = 1 + bytes.Count(src[:at], []byte("\n"))
			col = at - bytes.LastIndexByte(src[:at], '\n')
		}
		if c == "\n" {
			return &EnvFileError{Line: line, Msg: "a line has no = (want NAME=VALUE)"}
		}
		// The character is not quoted: the line may be a value's.
		return &EnvFileError{Line: line, Msg: fmt.Sprintf("column %d: a variable name holds a character other than letters, digits, _ and .", col)}
	}
	if first, ok := strings.CutPrefix(msg, "unterminated quoted value "); ok {
		line := 0
		if at := bytes.LastIndex(src, []byte(first)); at >= 0 {
			line = 1 + bytes.Count(src[:at], []byte("\n"))
		}
		return &EnvFileError{Line: line, Msg: "a quoted value is not closed"}
	}
	return &EnvFileError{Msg: "is not a valid env file"}
}

// lineStarting returns the first line that starts with prefix, after
// blanks and "export ".
func lineStarting(b []byte, prefix string) int {
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "export "))
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	return 0
}
