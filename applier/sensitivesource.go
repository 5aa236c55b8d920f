package applier

import (
	"errors"
	"strings"

	"cc.dev/cc/schema"
)

// A local secret's source can be a sensitive value: from_env = var.name,
// an env file path from a sensitive variable. The spec then holds it in
// clear (the service needs it) and marks it (Resource.Sensitive), and
// nothing that tells of reading it may name it: the source a plan shows
// ("the local value from ...") and the errors of an unset variable, an
// empty one, or an env file without a key.

// sensitiveSourceText is what is shown in place of a sensitive source.
const sensitiveSourceText = "(sensitive)"

// sensitiveSource reports whether pointers (a resource's Sensitive) mark
// where the secret's local value is read from.
func sensitiveSource(pointers []string) bool {
	return schema.SensitiveAt(pointers, "/from_env") || schema.SensitiveAt(pointers, "/from_env_file")
}

// localValue is src.Value for the secret r, with a sensitive source's
// name kept out of the source it gives and of its errors.
func localValue(src SecretSource, r *schema.Resource, spec schema.SecretSpec) ([]byte, string, error) {
	v, source, err := src.Value(r.Address, spec)
	if !sensitiveSource(r.Sensitive) {
		return v, source, err
	}
	if source != "" {
		source = sensitiveSourceText
	}
	var mv *MissingValueError
	var ev *EmptyValueError
	switch {
	case errors.As(err, &mv):
		what := "the environment variable "
		if spec.FromEnv == "" {
			what = "the env file "
		}
		reason := mv.Reason
		if strings.HasPrefix(reason, "has no key ") {
			reason = "has no key " + sensitiveSourceText
		}
		err = &MissingValueError{Addr: mv.Addr, Source: what + sensitiveSourceText, Reason: reason}
	case errors.As(err, &ev):
		err = &EmptyValueError{Addr: ev.Addr, Variable: sensitiveSourceText}
	}
	return v, source, err
}
