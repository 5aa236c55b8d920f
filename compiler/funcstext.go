package compiler

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
)

// The string, encoding and hash functions only Terraform has, written
// here with its semantics and messages (issue 15).

// stringParams are parameters of type string, by name.
func stringParams(names ...string) []function.Parameter {
	ps := make([]function.Parameter, len(names))
	for i, n := range names {
		ps[i] = function.Parameter{Name: n, Type: cty.String}
	}
	return ps
}

// stringFunc is a function of strings to a value, never failing.
func stringFunc(desc string, ret cty.Type, f func(s []string) cty.Value, names ...string) function.Function {
	return function.New(&function.Spec{
		Description: desc,
		Params:      stringParams(names...),
		Type:        function.StaticReturnType(ret),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s := make([]string, len(args))
			for i, a := range args {
				s[i] = a.AsString()
			}
			return f(s), nil
		},
	})
}

var (
	startsWithFunc = stringFunc("Determines if the input string starts with the given prefix.", cty.Bool,
		func(s []string) cty.Value { return cty.BoolVal(strings.HasPrefix(s[0], s[1])) }, "str", "prefix")
	endsWithFunc = stringFunc("Determines if the input string ends with the given suffix.", cty.Bool,
		func(s []string) cty.Value { return cty.BoolVal(strings.HasSuffix(s[0], s[1])) }, "str", "suffix")
	strContainsFunc = stringFunc("Checks whether a substring is within another string.", cty.Bool,
		func(s []string) cty.Value { return cty.BoolVal(strings.Contains(s[0], s[1])) }, "str", "substr")
	base64EncodeFunc = stringFunc("Applies Base64 encoding to a string.", cty.String,
		func(s []string) cty.Value { return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(s[0]))) }, "str")
	urlEncodeFunc = stringFunc("Applies URL encoding to a given string.", cty.String,
		func(s []string) cty.Value { return cty.StringVal(url.QueryEscape(s[0])) }, "str")
)

// replaceFunc is Terraform's replace: a substring between slashes is a
// regular expression ($1 in the replacement is its first group), any
// other a literal (cty's replace is literal only: /a/ silently matched
// nothing).
var replaceFunc = function.New(&function.Spec{
	Description: "Searches a given string for another given substring, and replaces each occurrence with a given replacement string. A substring wrapped in forward slashes is a regular expression, and the replacement may then refer to its groups ($1, ${name}).",
	Params:      stringParams("str", "substr", "replace"),
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if sub := args[1].AsString(); len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
			return stdlib.RegexReplace(args[0], cty.StringVal(sub[1:len(sub)-1]), args[2])
		}
		return stdlib.Replace(args[0], args[1], args[2])
	},
})

// base64DecodeFunc is Terraform's base64decode: the UTF-8 text a standard
// Base64 string encodes. The input is never quoted in an error when it is
// sensitive.
var base64DecodeFunc = function.New(&function.Spec{
	Description: "Takes a string containing a Base64 character sequence and returns the original string.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String, AllowMarked: true}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		str, marks := args[0].Unmark()
		b, err := base64.StdEncoding.DecodeString(str.AsString())
		if err != nil {
			what := fmt.Sprintf("%q", str.AsString())
			if _, sensitive := marks[sensitiveMark]; sensitive {
				what = "(sensitive value)"
			}
			return cty.NilVal, fmt.Errorf("failed to decode base64 data %s", what)
		}
		if !utf8.Valid(b) {
			return cty.NilVal, errors.New("the result of decoding the provided string is not valid UTF-8")
		}
		return cty.StringVal(string(b)).WithMarks(marks), nil
	},
})

// base64GzipFunc is Terraform's base64gzip: the string gzipped, in
// standard Base64.
var base64GzipFunc = function.New(&function.Spec{
	Description: "Compresses a string with gzip and then encodes the result in Base64 encoding.",
	Params:      stringParams("str"),
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var b bytes.Buffer
		gz := gzip.NewWriter(&b)
		if _, err := gz.Write([]byte(args[0].AsString())); err != nil {
			return cty.NilVal, fmt.Errorf("failed to write gzip raw data: %w", err)
		}
		// Flushed before it is closed, as Terraform does: the same
		// bytes as Terraform's.
		if err := gz.Flush(); err != nil {
			return cty.NilVal, fmt.Errorf("failed to flush gzip writer: %w", err)
		}
		if err := gz.Close(); err != nil {
			return cty.NilVal, fmt.Errorf("failed to close gzip writer: %w", err)
		}
		return cty.StringVal(base64.StdEncoding.EncodeToString(b.Bytes())), nil
	},
})

// hashFunc is a hash of a string: its digest by h, encoded by enc.
func hashFunc(desc string, h func() hash.Hash, enc func([]byte) string) function.Function {
	return stringFunc(desc, cty.String, func(s []string) cty.Value {
		sum := h()
		sum.Write([]byte(s[0]))
		return cty.StringVal(enc(sum.Sum(nil)))
	}, "str")
}

// hashFunctions are Terraform's hashes of a string.
var hashFunctions = map[string]function.Function{
	"md5":          hashFunc("Computes the MD5 hash of a given string and encodes it with hexadecimal digits.", md5.New, hex.EncodeToString),
	"sha1":         hashFunc("Computes the SHA1 hash of a given string and encodes it with hexadecimal digits.", sha1.New, hex.EncodeToString),
	"sha256":       hashFunc("Computes the SHA256 hash of a given string and encodes it with hexadecimal digits.", sha256.New, hex.EncodeToString),
	"sha512":       hashFunc("Computes the SHA512 hash of a given string and encodes it with hexadecimal digits.", sha512.New, hex.EncodeToString),
	"base64sha256": hashFunc("Computes the SHA256 hash of a given string and encodes it with Base64.", sha256.New, base64.StdEncoding.EncodeToString),
	"base64sha512": hashFunc("Computes the SHA512 hash of a given string and encodes it with Base64.", sha512.New, base64.StdEncoding.EncodeToString),
}

// uuidNamespaces are uuidv5's named namespaces.
var uuidNamespaces = map[string]uuid.UUID{"dns": uuid.NameSpaceDNS, "url": uuid.NameSpaceURL, "oid": uuid.NameSpaceOID, "x500": uuid.NameSpaceX500}

// uuidV5Func is Terraform's uuidv5: the name-based (SHA-1) UUID of a name
// in a namespace, deterministic unlike uuid().
var uuidV5Func = function.New(&function.Spec{
	Description: "Generates a name-based UUID, as described in RFC 4122 section 4.3, also known as a \"version 5\" UUID.",
	Params:      stringParams("namespace", "name"),
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		ns, ok := uuidNamespaces[args[0].AsString()]
		if !ok {
			var err error
			if ns, err = uuid.Parse(args[0].AsString()); err != nil {
				return cty.NilVal, fmt.Errorf("uuidv5() doesn't support namespace %s (%v)", args[0].AsString(), err)
			}
		}
		return cty.StringVal(uuid.NewSHA1(ns, []byte(args[1].AsString())).String()), nil
	},
})

// ianaCodec is a character encoding and its canonical IANA name.
type ianaCodec struct {
	enc  encoding.Encoding
	name string
}

// ianaEncoding is the named character encoding of argument i, and its
// canonical name.
func ianaEncoding(name string, i int) (*ianaCodec, error) {
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		return nil, function.NewArgErrorf(i, "%q is not a supported IANA encoding name or alias in this Terraform version", name)
	}
	canonical, err := ianaindex.IANA.Name(enc)
	if err != nil {
		canonical = name
	}
	return &ianaCodec{enc: enc, name: canonical}, nil
}

// textEncodeBase64Func is Terraform's textencodebase64: the string in a
// character encoding, in standard Base64.
var textEncodeBase64Func = function.New(&function.Spec{
	Description: "Encodes the unicode characters in a given string using a specified character encoding, returning the result base64 encoded.",
	Params:      stringParams("string", "encoding"),
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		c, err := ianaEncoding(args[1].AsString(), 1)
		if err != nil {
			return cty.NilVal, err
		}
		b, err := c.enc.NewEncoder().Bytes([]byte(args[0].AsString()))
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "the given string contains characters that cannot be represented in %s", c.name)
		}
		return cty.StringVal(base64.StdEncoding.EncodeToString(b)), nil
	},
})

// textDecodeBase64Func is Terraform's textdecodebase64: the text of Base64
// bytes in a character encoding.
var textDecodeBase64Func = function.New(&function.Spec{
	Description: "Decodes a string that was previously Base64-encoded, and then interprets the result as characters in a specified character encoding.",
	Params:      stringParams("source", "encoding"),
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		c, err := ianaEncoding(args[1].AsString(), 1)
		if err != nil {
			return cty.NilVal, err
		}
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return cty.NilVal, function.NewArgErrorf(0, "the given value is has an invalid base64 symbol at offset %d", int(corrupt))
		} else if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "invalid source string: %w", err)
		}
		text, err := c.enc.NewDecoder().Bytes(b)
		if err != nil || bytes.ContainsRune(text, utf8.RuneError) {
			return cty.NilVal, function.NewArgErrorf(0, "the given string contains symbols that are not defined for %s", c.name)
		}
		return cty.StringVal(string(text)), nil
	},
})
