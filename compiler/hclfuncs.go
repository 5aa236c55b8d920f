package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// hclFunctions are the functions HCL configurations may call: cty's
// standard library under Terraform's names (stdFunctions), and file
// functions confined to the project root.
func hclFunctions(root string) map[string]function.Function {
	fns := make(map[string]function.Function, len(stdFunctions)+3)
	for name, f := range stdFunctions {
		fns[name] = f
	}
	fns["file"] = fileFunc(root, readTextFile)
	fns["filesha256"] = fileFunc(root, sha256File)
	fns["fileexists"] = fileExistsFunc(root)
	return fns
}

// stdFunctions are cty's standard library functions under Terraform's
// names; read only.
var stdFunctions = map[string]function.Function{
	"abs":          stdlib.AbsoluteFunc,
	"ceil":         stdlib.CeilFunc,
	"chomp":        stdlib.ChompFunc,
	"coalesce":     coalesceFunc,
	"coalescelist": stdlib.CoalesceListFunc,
	"compact":      stdlib.CompactFunc,
	"concat":       stdlib.ConcatFunc,
	"contains":     stdlib.ContainsFunc,
	"distinct":     stdlib.DistinctFunc,
	"element":      stdlib.ElementFunc,
	"flatten":      stdlib.FlattenFunc,
	"floor":        stdlib.FloorFunc,
	"format":       stdlib.FormatFunc,
	"formatlist":   stdlib.FormatListFunc,
	"indent":       stdlib.IndentFunc,
	"join":         stdlib.JoinFunc,
	"jsondecode":   stdlib.JSONDecodeFunc,
	"jsonencode":   stdlib.JSONEncodeFunc,
	"keys":         stdlib.KeysFunc,
	"length":       lengthFunc,
	"lookup":       stdlib.LookupFunc,
	"lower":        stdlib.LowerFunc,
	"max":          stdlib.MaxFunc,
	"merge":        stdlib.MergeFunc,
	"min":          stdlib.MinFunc,
	"parseint":     stdlib.ParseIntFunc,
	"range":        stdlib.RangeFunc,
	"regex":        stdlib.RegexFunc,
	"regexall":     stdlib.RegexAllFunc,
	"replace":      stdlib.ReplaceFunc,
	"reverse":      stdlib.ReverseListFunc,
	"setunion":     stdlib.SetUnionFunc,
	"slice":        stdlib.SliceFunc,
	"sort":         stdlib.SortFunc,
	"split":        stdlib.SplitFunc,
	"strlen":       stdlib.StrlenFunc,
	"substr":       stdlib.SubstrFunc,
	"title":        stdlib.TitleFunc,
	"tobool":       stdlib.MakeToFunc(cty.Bool),
	"tolist":       stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
	"tomap":        stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
	"tonumber":     stdlib.MakeToFunc(cty.Number),
	"toset":        stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
	"tostring":     stdlib.MakeToFunc(cty.String),
	"trim":         stdlib.TrimFunc,
	"trimprefix":   stdlib.TrimPrefixFunc,
	"trimspace":    stdlib.TrimSpaceFunc,
	"trimsuffix":   stdlib.TrimSuffixFunc,
	"upper":        stdlib.UpperFunc,
	"values":       stdlib.ValuesFunc,
	"zipmap":       stdlib.ZipmapFunc,
}

// readTextFile is file(): the file's UTF-8 text, at most maxFileFunc bytes.
func readTextFile(r io.Reader, path string) (cty.Value, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileFunc+1))
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxFileFunc {
		return cty.NilVal, fmt.Errorf("%s is larger than %s, the limit on file()", path, schema.FormatSize(maxFileFunc))
	}
	if !utf8.Valid(b) {
		return cty.NilVal, fmt.Errorf("%s is not UTF-8 text", path)
	}
	return cty.StringVal(string(b)), nil
}

// sha256File is filesha256(): the hex SHA-256 of the file.
func sha256File(r io.Reader, path string) (cty.Value, error) {
	sum := sha256.New()
	if _, err := io.Copy(sum, r); err != nil {
		return cty.NilVal, fmt.Errorf("reading %s: %w", path, err)
	}
	return cty.StringVal(hex.EncodeToString(sum.Sum(nil))), nil
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
			fi, err := os.Stat(abs)
			if err != nil {
				return cty.False, nil
			}
			return cty.BoolVal(fi.Mode().IsRegular()), nil
		},
	})
}

// coalesceFunc is Terraform's coalesce: the first argument that is neither
// null nor an empty string.
// lengthFunc is Terraform's length: the number of elements of a list,
// set, map, tuple or object, or of characters of a string (cty's length
// takes lists, maps and tuples only; issue 9 item 18).
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{
		Name: "value", Type: cty.DynamicPseudoType,
		AllowDynamicType: true, AllowUnknown: true, AllowMarked: true,
	}},
	Type: func(args []cty.Value) (cty.Type, error) {
		t := args[0].Type()
		if t == cty.String || t == cty.DynamicPseudoType || t.IsObjectType() {
			return cty.Number, nil
		}
		return stdlib.LengthFunc.ReturnType([]cty.Type{t})
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if t := args[0].Type(); t == cty.String {
			return stdlib.StrlenFunc.Call(args)
		} else if t.IsObjectType() {
			_, marks := args[0].Unmark()
			return cty.NumberIntVal(int64(len(t.AttributeTypes()))).WithMarks(marks), nil
		}
		return stdlib.LengthFunc.Call(args)
	},
})

var coalesceFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "vals", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		types := make([]cty.Type, len(args))
		for i, a := range args {
			types[i] = a.Type()
		}
		ty, _ := convert.UnifyUnsafe(types)
		if ty == cty.NilType {
			return cty.NilType, errors.New("all arguments must have the same type")
		}
		return ty, nil
	},
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		for _, a := range args {
			v, err := convert.Convert(a, ty)
			if err != nil {
				return cty.NilVal, err
			}
			if !v.IsKnown() {
				return cty.UnknownVal(ty), nil
			}
			if v.IsNull() || ty == cty.String && v.AsString() == "" {
				continue
			}
			return v, nil
		}
		return cty.NilVal, errors.New("no non-null, non-empty-string arguments")
	},
})

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
				return cty.NilVal, function.NewArgError(0, err)
			}
			f, _, err := schema.OpenRegular(abs)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, fmt.Errorf("reading %s: %w", path, unwrapPathError(err)))
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

// errOutsideRoot is returned for a path that leaves the project root.
var errOutsideRoot = localfs.ErrOutsideRoot

// insideRoot resolves a path relative to root (symlinks included) and
// refuses one that ends up outside it (localfs.Resolve). A path that does
// not exist is fs.ErrNotExist.
func insideRoot(root, rel string) (string, error) { return localfs.Resolve(root, rel) }
