package schema

import "encoding/json"

// DecodeSecretSpec decodes a compiled secret's spec (the canonical JSON of
// a SecretSpec). It is the one decoder of a secret's spec: the compiler,
// the planner, the applier and the service all read a secret through it.
func DecodeSecretSpec(spec []byte) (SecretSpec, error) {
	var s SecretSpec
	err := json.Unmarshal(spec, &s)
	return s, err
}

// Managed reports whether the service manages the secret's value: a value
// read locally (from_env, from_env_file) and put with PutSecretValue,
// rather than one kept elsewhere (from_service, from_integration,
// from_store). Only a managed secret's value is part of the identity of
// the versions made with it.
func (s SecretSpec) Managed() bool {
	return s.FromEnv != "" || s.FromEnvFile != nil
}

// ManagedSecret reports whether spec, a secret's compiled spec, says the
// service manages its value (SecretSpec.Managed); a spec that does not
// decode is not managed.
func ManagedSecret(spec []byte) bool {
	s, err := DecodeSecretSpec(spec)
	return err == nil && s.Managed()
}
