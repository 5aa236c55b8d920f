package schema

import (
	"bufio"
	"bytes"
	"errors"
	"sort"
	"strings"
)

// ParseEnvFile reads an env file, the source of a from_env_file secret:
// KEY=VALUE lines, "export " allowed, blank lines and # comments skipped, a
// value in matching quotes unquoted; a later line wins. The compiler uses
// its keys and the applier its values, so both agree on what the file
// holds. Errors never quote a value.
func ParseEnvFile(b []byte) (map[string]string, error) {
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		vals[k] = v
	}
	if sc.Err() != nil {
		return nil, errors.New("has a line longer than 1 MiB")
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
