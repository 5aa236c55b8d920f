package compiler

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	ctyyaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// hclFunctions are the functions HCL configurations may call, as
// Terraform v1.11 has them (issue 15): cty's standard library and HCL's
// try/can under Terraform's names (stdFunctions), the functions only
// Terraform has, written here (terraformFunctions), file functions confined
// to the project root, templatefile (whose templates are counted by b, as
// the configuration is), and the functions cc refuses, which say why
// (refusedFunctions). b may be nil where nothing is evaluated (the list of
// functions for help).
func hclFunctions(root string, b *budget) map[string]function.Function {
	fns := make(map[string]function.Function, len(stdFunctions)+len(terraformFunctions)+len(refusedFunctions)+16)
	for _, table := range []map[string]function.Function{stdFunctions, terraformFunctions} {
		for name, f := range table {
			fns[name] = f
		}
	}
	for name, why := range refusedFunctions {
		fns[name] = refusedFunc(name, why)
	}
	for name, f := range fileFunctions(root) {
		fns[name] = f
	}
	fns["templatefile"] = templateFileFunc(root, b, func() map[string]function.Function { return fns })
	fns["templatestring"] = templateStringFunc(b, func() map[string]function.Function { return fns })
	return fns
}

// functionTable is what an HCL evaluation calls: hclFunctions, each
// limited by b, and b's internal counting functions.
func functionTable(root string, b *budget) map[string]function.Function {
	fns := hclFunctions(root, b)
	b.limitFunctions(fns)
	for name, f := range b.functions() {
		fns[name] = f
	}
	return fns
}

// stdFunctions are the functions cty's standard library and HCL's tryfunc
// have with Terraform's semantics, under Terraform's names; read only.
var stdFunctions = map[string]function.Function{
	"abs":             stdlib.AbsoluteFunc,
	"can":             tryfunc.CanFunc,
	"ceil":            stdlib.CeilFunc,
	"chomp":           stdlib.ChompFunc,
	"chunklist":       stdlib.ChunklistFunc,
	"coalescelist":    stdlib.CoalesceListFunc,
	"compact":         stdlib.CompactFunc,
	"concat":          stdlib.ConcatFunc,
	"contains":        stdlib.ContainsFunc,
	"csvdecode":       stdlib.CSVDecodeFunc,
	"distinct":        stdlib.DistinctFunc,
	"element":         stdlib.ElementFunc,
	"flatten":         stdlib.FlattenFunc,
	"floor":           stdlib.FloorFunc,
	"format":          stdlib.FormatFunc,
	"formatdate":      stdlib.FormatDateFunc,
	"formatlist":      stdlib.FormatListFunc,
	"indent":          stdlib.IndentFunc,
	"join":            stdlib.JoinFunc,
	"jsondecode":      stdlib.JSONDecodeFunc,
	"jsonencode":      stdlib.JSONEncodeFunc,
	"keys":            stdlib.KeysFunc,
	"log":             stdlib.LogFunc,
	"lower":           stdlib.LowerFunc,
	"max":             stdlib.MaxFunc,
	"merge":           stdlib.MergeFunc,
	"min":             stdlib.MinFunc,
	"parseint":        stdlib.ParseIntFunc,
	"pow":             stdlib.PowFunc,
	"range":           stdlib.RangeFunc,
	"regex":           stdlib.RegexFunc,
	"regexall":        stdlib.RegexAllFunc,
	"reverse":         stdlib.ReverseListFunc,
	"setintersection": stdlib.SetIntersectionFunc,
	"setproduct":      stdlib.SetProductFunc,
	"setsubtract":     stdlib.SetSubtractFunc,
	"setunion":        stdlib.SetUnionFunc,
	"signum":          stdlib.SignumFunc,
	"slice":           stdlib.SliceFunc,
	"sort":            stdlib.SortFunc,
	"split":           stdlib.SplitFunc,
	"strrev":          stdlib.ReverseFunc,
	"substr":          stdlib.SubstrFunc,
	"timeadd":         stdlib.TimeAddFunc,
	"title":           stdlib.TitleFunc,
	"tobool":          stdlib.MakeToFunc(cty.Bool),
	"tolist":          stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
	"tomap":           stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
	"tonumber":        stdlib.MakeToFunc(cty.Number),
	"toset":           stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
	"tostring":        stdlib.MakeToFunc(cty.String),
	"trim":            stdlib.TrimFunc,
	"trimprefix":      stdlib.TrimPrefixFunc,
	"trimspace":       stdlib.TrimSpaceFunc,
	"trimsuffix":      stdlib.TrimSuffixFunc,
	"try":             tryfunc.TryFunc,
	"upper":           stdlib.UpperFunc,
	"values":          stdlib.ValuesFunc,
	"yamldecode":      ctyyaml.YAMLDecodeFunc,
	"yamlencode":      ctyyaml.YAMLEncodeFunc,
	"zipmap":          stdlib.ZipmapFunc,
}

// terraformFunctions are the functions only Terraform has (or whose cty
// namesake differs), written here; read only.
var terraformFunctions = map[string]function.Function{
	"alltrue":          allTrueFunc,
	"anytrue":          anyTrueFunc,
	"base64decode":     base64DecodeFunc,
	"base64encode":     base64EncodeFunc,
	"base64gzip":       base64GzipFunc,
	"base64sha256":     hashFunctions["base64sha256"],
	"base64sha512":     hashFunctions["base64sha512"],
	"basename":         basenameFunc,
	"cidrhost":         cidrHostFunc,
	"cidrnetmask":      cidrNetmaskFunc,
	"cidrsubnet":       cidrSubnetFunc,
	"cidrsubnets":      cidrSubnetsFunc,
	"coalesce":         coalesceFunc,
	"dirname":          dirnameFunc,
	"endswith":         endsWithFunc,
	"ephemeralasnull":  ephemeralAsNullFunc,
	"index":            indexFunc,
	"issensitive":      isSensitiveFunc,
	"length":           lengthFunc,
	"lookup":           lookupFunc,
	"matchkeys":        matchkeysFunc,
	"md5":              hashFunctions["md5"],
	"one":              oneFunc,
	"replace":          replaceFunc,
	"sensitive":        sensitiveFunc,
	"sha1":             hashFunctions["sha1"],
	"sha256":           hashFunctions["sha256"],
	"sha512":           hashFunctions["sha512"],
	"startswith":       startsWithFunc,
	"strcontains":      strContainsFunc,
	"strlen":           strlenFunc,
	"sum":              sumFunc,
	"textdecodebase64": textDecodeBase64Func,
	"textencodebase64": textEncodeBase64Func,
	"timecmp":          timeCmpFunc,
	"transpose":        transposeFunc,
	"urlencode":        urlEncodeFunc,
	"uuidv5":           uuidV5Func,
}

// strlenFunc is cc's strlen, kept as an alias of length for a string (it
// is not a Terraform function; cc had it before length took strings).
var strlenFunc = function.New(&function.Spec{
	Description: "cc's alias of length for a string (not a Terraform function): the number of characters in a string.",
	Params:      stdlib.StrlenFunc.Params(),
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return stdlib.Strlen(args[0])
	},
})

// fileFunctions are the functions of a file inside root: Terraform's file,
// fileexists, fileset, filebase64 and file hashes.
func fileFunctions(root string) map[string]function.Function {
	return map[string]function.Function{
		"file":             fileFunc(root, readTextFile),
		"filebase64":       fileFunc(root, readBase64File),
		"fileexists":       fileExistsFunc(root),
		"fileset":          fileSetFunc(root),
		"filemd5":          fileFunc(root, hashFile(md5.New, hex.EncodeToString)),
		"filesha1":         fileFunc(root, hashFile(sha1.New, hex.EncodeToString)),
		"filesha256":       fileFunc(root, hashFile(sha256.New, hex.EncodeToString)),
		"filesha512":       fileFunc(root, hashFile(sha512.New, hex.EncodeToString)),
		"filebase64sha256": fileFunc(root, hashFile(sha256.New, base64.StdEncoding.EncodeToString)),
		"filebase64sha512": fileFunc(root, hashFile(sha512.New, base64.StdEncoding.EncodeToString)),
	}
}

// readTextFile is file(): the file's UTF-8 text, at most maxFileFunc bytes.
func readTextFile(r io.Reader, path string) (cty.Value, error) {
	b, err := readLimited(r, path, "file()")
	if err != nil {
		return cty.NilVal, err
	}
	if !utf8.Valid(b) {
		return cty.NilVal, fmt.Errorf("contents of %q are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead", path)
	}
	return cty.StringVal(string(b)), nil
}

// readBase64File is filebase64(): the file's bytes in standard Base64, of
// a file of at most maxFileFunc bytes.
func readBase64File(r io.Reader, path string) (cty.Value, error) {
	b, err := readLimited(r, path, "filebase64()")
	if err != nil {
		return cty.NilVal, err
	}
	return cty.StringVal(base64.StdEncoding.EncodeToString(b)), nil
}

// readLimited reads a file of at most maxFileFunc bytes for the function
// fn.
func readLimited(r io.Reader, path, fn string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileFunc+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxFileFunc {
		return nil, fmt.Errorf("%s is larger than %s, the limit on %s", path, schema.FormatSize(maxFileFunc), fn)
	}
	return b, nil
}

// hashFile is a file hash function: the file's digest by h, encoded by enc.
func hashFile(h func() hash.Hash, enc func([]byte) string) func(io.Reader, string) (cty.Value, error) {
	return func(r io.Reader, path string) (cty.Value, error) {
		sum := h()
		if _, err := io.Copy(sum, r); err != nil {
			return cty.NilVal, fmt.Errorf("reading %s: %w", path, err)
		}
		return cty.StringVal(enc(sum.Sum(nil))), nil
	}
}

// fileExistsFunc is fileexists(): whether a path inside root is a regular
// file.
func fileExistsFunc(root string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
			return b.NotNull()
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			abs, err := insideRoot(root, args[0].AsString())
			if errors.Is(err, fs.ErrNotExist) {
				return cty.False, nil
			}
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			localfs.Touch(abs)
			fi, err := os.Stat(abs)
			if err != nil {
				return cty.False, nil
			}
			return cty.BoolVal(fi.Mode().IsRegular()), nil
		},
	})
}

// maxFileFunc is the most file() reads: its result is a string held in
// memory, and used as a value.
const maxFileFunc = 16 << 20

// fileFunc is a function of one path inside the root, which conv reads as
// a stream: only a regular file is opened (a FIFO or a device would block
// or never end).
func fileFunc(root string, conv func(io.Reader, string) (cty.Value, error)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := args[0].AsString()
			abs, err := insideRoot(root, path)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, openError(path, err))
			}
			localfs.Touch(abs)
			f, _, err := schema.OpenRegular(abs)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, openError(path, err))
			}
			defer f.Close()
			v, err := conv(f, path)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			return v, nil
		},
	})
}

// openError words a file function's failure to open path: as Terraform
// does for a file that does not exist, as insideRoot does for a path that
// leaves the root, and as a failure to read it otherwise.
func openError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no file exists at %q; this function works only with files that are distributed as part of the configuration source code", path)
	}
	if errors.Is(err, errOutsideRoot) || errors.Is(err, localfs.ErrStateDir) {
		return err
	}
	return fmt.Errorf("reading %s: %w", path, unwrapPathError(err))
}

// errOutsideRoot is returned for a path that leaves the project root.
var errOutsideRoot = localfs.ErrOutsideRoot

// insideRoot resolves a path relative to root (symlinks included) and
// refuses one that ends up outside it (localfs.Resolve). A path that does
// not exist is fs.ErrNotExist.
func insideRoot(root, rel string) (string, error) { return localfs.Resolve(root, rel) }
