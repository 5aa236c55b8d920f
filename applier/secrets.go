package applier

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// SecretSource reads the local values of secrets, at plan time (to
// compare them with the service's, in the GetState the plan reads the
// state with) and at apply time (to put them). Values never leave the
// applier except to PutSecretValue and GetState.
type SecretSource interface {
	// Value reads the value of the secret at addr. source names where it
	// comes from, for messages ("OPENAI_API_KEY", "dev.env"). A secret
	// whose value is not local (from_service, from_integration,
	// from_store) gives ErrNotLocal.
	Value(addr string, spec schema.SecretSpec) (value []byte, source string, err error)
}

// ErrNotLocal: the secret's value is not read locally.
var ErrNotLocal = errors.New("the secret's value is not local")

// MissingValueError: a local value could not be read. It names the
// secret, the variable or file and the key, never a value.
type MissingValueError struct {
	Addr   string
	Source string // the variable or file
	Reason string
}

func (e *MissingValueError) Error() string {
	return fmt.Sprintf("%s takes its value from %s, which %s", e.Addr, e.Source, e.Reason)
}

// EmptyValueError: a from_env secret's variable is set to the empty
// string. An empty secret is never what was meant (an unset or forgotten
// variable, a failed $(...)), so it is refused at plan time rather than
// taken as a new value. It names the secret and the variable only.
type EmptyValueError struct {
	Addr     string
	Variable string
}

func (e *EmptyValueError) Error() string {
	return fmt.Sprintf("%s takes its value from the environment variable %s, which is set to the empty string: give %s the secret's value", e.Addr, e.Variable, e.Variable)
}

// LocalSecrets reads values from the environment and from env files under
// the project root.
type LocalSecrets struct {
	Root string
	// LookupEnv is os.LookupEnv unless set.
	LookupEnv func(string) (string, bool)
}

var _ SecretSource = LocalSecrets{}

// Value implements SecretSource. A from_env secret's value is the
// variable's bytes, and a variable set to "" is an *EmptyValueError; a
// from_env_file secret's value is the canonical JSON object of its
// selected keys, where an empty value (KEY=) is one the user wrote and is
// kept.
func (l LocalSecrets) Value(addr string, spec schema.SecretSpec) ([]byte, string, error) {
	lookup := l.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	switch {
	case spec.FromEnv != "":
		v, ok := lookup(spec.FromEnv)
		if !ok {
			return nil, spec.FromEnv, &MissingValueError{Addr: addr, Source: "the environment variable " + spec.FromEnv, Reason: "is not set"}
		}
		if v == "" {
			return nil, spec.FromEnv, &EmptyValueError{Addr: addr, Variable: spec.FromEnv}
		}
		return []byte(v), spec.FromEnv, nil
	case spec.FromEnvFile != nil:
		p := spec.FromEnvFile.Path
		vals, err := readEnvFile(l.Root, p)
		if err != nil {
			return nil, p, &MissingValueError{Addr: addr, Source: "the env file " + p, Reason: err.Error()}
		}
		keys := spec.FromEnvFile.Keys
		if len(keys) == 0 {
			for k := range vals {
				keys = append(keys, k)
			}
			sort.Strings(keys)
		}
		out := map[string]string{}
		for _, k := range keys {
			v, ok := vals[k]
			if !ok {
				return nil, p, &MissingValueError{Addr: addr, Source: "the env file " + p, Reason: "has no key " + k}
			}
			out[k] = v
		}
		b, err := schema.Canonical(out)
		if err != nil {
			return nil, p, err
		}
		return b, p, nil
	}
	return nil, "", ErrNotLocal
}

// maxEnvFile is the most of an env file that is read.
const maxEnvFile = 16 << 20

// readEnvFile reads an env file of the project (schema.ParseEnvFile, the
// same reading the compiler takes its keys from). Errors never quote a
// value.
func readEnvFile(root, rel string) (map[string]string, error) {
	// The one local-files policy (localfs): contained in the root with
	// symbolic links resolved, so a link out of the root is refused as the
	// compiler refuses it, never followed.
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, errors.New("cannot be read: the project root cannot be resolved")
	}
	abs, err := localfs.Resolve(real, filepath.FromSlash(rel))
	switch {
	case errors.Is(err, localfs.ErrOutsideRoot):
		return nil, errors.New("is outside the project root")
	case errors.Is(err, localfs.ErrStateDir):
		return nil, errors.New("is in .cc, cc's own state directory")
	case errors.Is(err, os.ErrNotExist):
		return nil, errors.New("does not exist")
	case err != nil:
		return nil, errors.New("cannot be read")
	}
	// Only a regular file is read (a FIFO would block the plan), and no
	// more of it than an env file could be.
	b, err := schema.ReadRegular(abs, maxEnvFile)
	var tl *schema.TooLargeError
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, errors.New("does not exist")
	case errors.Is(err, schema.ErrNotRegular), errors.As(err, &tl):
		return nil, err
	case err != nil:
		return nil, errors.New("cannot be read")
	}
	vals, err := schema.ParseEnvFile(b)
	var ef *schema.EnvFileError
	if errors.As(err, &ef) {
		ef.File = rel
		return nil, fmt.Errorf("has a malformed line: %w", ef)
	}
	return vals, err
}
