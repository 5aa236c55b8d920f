package compiler

import (
	"sort"
	"strings"
)

// FunctionDoc describes one function an HCL configuration may name: for
// cc help functions and the README's list.
type FunctionDoc struct {
	Name string
	// Summary is the first sentence of the function's description, or,
	// for a refused function, why it is refused.
	Summary string
	// Refused: a call is an error saying why (a compile must give the
	// same desired state from the same files on any machine).
	Refused bool
}

// Functions lists the functions of HCL configurations, sorted by name,
// from the table a compile uses (issue 15).
func Functions() []FunctionDoc {
	var docs []FunctionDoc
	for name, f := range hclFunctions("", nil) {
		why, refused := refusedFunctions[name]
		summary := firstSentence(f.Description())
		if s, ok := summaries[name]; ok {
			summary = s
		}
		if refused {
			summary = why
		}
		docs = append(docs, FunctionDoc{Name: name, Summary: summary, Refused: refused})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Name < docs[j].Name })
	return docs
}

// summaries are the summaries of the functions whose library gives no
// description.
var summaries = map[string]string{
	"can":              "Evaluates the given expression and returns a boolean value indicating whether the expression produced a result without any errors.",
	"try":              "Evaluates all of its argument expressions in turn and returns the result of the first one that does not produce any errors.",
	"file":             "Reads the contents of a file inside the project root and returns them as a string (UTF-8 text, at most 16 MiB).",
	"filebase64":       "Reads the contents of a file inside the project root and returns them as a base64-encoded string.",
	"fileexists":       "Determines whether a file exists at a given path inside the project root.",
	"filemd5":          "Computes the MD5 hash of the contents of a file inside the project root, in hexadecimal digits.",
	"filesha1":         "Computes the SHA1 hash of the contents of a file inside the project root, in hexadecimal digits.",
	"filesha256":       "Computes the SHA256 hash of the contents of a file inside the project root, in hexadecimal digits.",
	"filesha512":       "Computes the SHA512 hash of the contents of a file inside the project root, in hexadecimal digits.",
	"filebase64sha256": "Computes the SHA256 hash of the contents of a file inside the project root, encoded with Base64.",
	"filebase64sha512": "Computes the SHA512 hash of the contents of a file inside the project root, encoded with Base64.",
	"yamldecode":       "Parses a string as a subset of YAML, and produces a representation of its value.",
	"yamlencode":       "Encodes a given value to a string using YAML 1.2 block syntax.",
}

// firstSentence is a description up to its first ". " (or all of it),
// with its end's period.
func firstSentence(s string) string {
	s = strings.ReplaceAll(strings.Join(strings.Fields(s), " "), `\"`, `"`)
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}
