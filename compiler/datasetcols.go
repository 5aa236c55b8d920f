package compiler

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// maxCSVHeader bounds the header line of a CSV dataset file: cc reads the
// header only, never the rows.
const maxCSVHeader = 1 << 20

// taskColumns are the columns an evaluation adds to its dataset's rows:
// the task's output and trace (SDK A: "scorers may additionally declare
// output and trace parameters").
var taskColumns = []string{"output", "trace"}

// datasetCols are the columns of a dataset's files, read from the first
// file (all have the same, or that is reported).
type datasetCols struct {
	cols []string
	file string
}

// datasetColumns reads the columns of each file of the dataset at path
// (CSV header, JSONL keys of the first record, Parquet schema) and
// reports a file that cannot be read as its format, or whose columns
// differ from the first file's (issue 9 item 3). It returns nil when the
// columns are not known. files are the dataset's files, globs expanded;
// spec holds those that hashed, and the dataset's format.
func (b *builder) datasetColumns(files []datasetFile, spec schema.DatasetSpec, path []string) *datasetCols {
	if len(files) == 0 || len(spec.Files) != len(files) {
		return nil // a file is missing or unreadable: reported already
	}
	var first *datasetCols
	var firstAt []string
	for i, f := range spec.Files {
		fp := files[i].at
		format := spec.Format
		if formatOf(f.Path) == "parquet" {
			format = "parquet" // a .parquet file is Parquet, whatever format says
		}
		cols, err := b.readColumns(f.Path, format)
		if err != nil {
			b.errorf(fp, "dataset file %s %v", f.Path, err)
			return nil
		}
		if first == nil {
			first, firstAt = &datasetCols{cols: cols, file: f.Path}, fp
			continue
		}
		if !sameSet(cols, first.cols) {
			b.clashf(fp, firstAt, "dataset file %s has the columns %s, and %s has %s; a dataset's files have the same columns",
				f.Path, strings.Join(cols, ", "), first.file, strings.Join(first.cols, ", "))
		}
	}
	return first
}

// readColumns reads the column names of the dataset file rel, reading only
// what names them.
func (b *builder) readColumns(rel, format string) ([]string, error) {
	f, _, err := b.fs.policy.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch format {
	case "csv":
		return csvHeader(f)
	case "jsonl":
		return jsonlKeys(f)
	case "parquet":
		return parquetFileColumns(f)
	}
	return nil, fmt.Errorf("has the unknown format %s", format)
}

// csvHeader reads a CSV file's header line.
func csvHeader(r io.Reader) ([]string, error) {
	cr := csv.NewReader(bufio.NewReader(io.LimitReader(r, maxCSVHeader+1)))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	switch {
	case err == io.EOF:
		return nil, errors.New("is empty: a CSV dataset starts with a header line naming its columns")
	case cr.InputOffset() > maxCSVHeader:
		return nil, fmt.Errorf("has a header line longer than %s", schema.FormatSize(maxCSVHeader))
	case err != nil:
		return nil, fmt.Errorf("has a header line that is not CSV: %v", err)
	}
	rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	return rec, nil
}

// jsonlKeys reads the keys of a JSONL file's first record, in order; the
// record's values are read past, not kept.
func jsonlKeys(r io.Reader) ([]string, error) {
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(r, maxSmallFile)))
	bad := func(err error) error {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("has a first record that does not end in the first %s", schema.FormatSize(maxSmallFile))
		}
		return fmt.Errorf("has a first record that is not a JSON object: %v", err)
	}
	t, err := dec.Token()
	if err == io.EOF {
		return nil, errors.New("is empty: a JSONL dataset's first record names its columns")
	}
	if err != nil {
		return nil, bad(err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, bad(fmt.Errorf("it starts with %v", t))
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, bad(err)
		}
		name, _ := k.(string) // the decoder refuses a key that is not a string
		keys = append(keys, name)
	}
	return keys, nil
}

func sameSet(a, b []string) bool {
	x := append([]string(nil), a...)
	y := append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, "\x00") == strings.Join(y, "\x00")
}

// scorerInputs are the inputs of one scorer and the kind that has them.
func scorerInputs(s schema.Scorer) (kind string, inputs []string) {
	switch b := s.BuiltinScorers; {
	case b.ExactMatch != nil:
		return "exact_match", b.ExactMatch.Inputs
	case b.Levenshtein != nil:
		return "levenshtein", b.Levenshtein.Inputs
	case b.RegexMatch != nil:
		return "regex_match", b.RegexMatch.Inputs
	case b.Contains != nil:
		return "contains", b.Contains.Inputs
	case b.NumericClose != nil:
		return "numeric_close", b.NumericClose.Inputs
	case b.StringSimilarity != nil:
		return "string_similarity", b.StringSimilarity.Inputs
	case b.JSONValid != nil:
		return "json_valid", b.JSONValid.Inputs
	case b.JSONMatch != nil:
		return "json_match", b.JSONMatch.Inputs
	case b.EmbeddingSimilarity != nil:
		return "embedding_similarity", b.EmbeddingSimilarity.Inputs
	case s.LLMJudge != nil:
		return "llm_judge", s.LLMJudge.Inputs
	}
	return "", nil
}

// checkInputs reports each scorer input of the evaluation at path that is
// neither a column of its dataset (named dname) nor one the task adds
// (issue 9 item 3).
func (b *builder) checkInputs(scorers []schema.Scorer, dname string, path []string) {
	dc := b.dataCols[dname]
	if dc == nil {
		return
	}
	known := append(append([]string(nil), dc.cols...), taskColumns...)
	for i, s := range scorers {
		kind, inputs := scorerInputs(s)
		for j, in := range inputs {
			if contains(known, in) {
				continue
			}
			d := b.errorf(appendPath(path, "scorers", strconv.Itoa(i), kind, "inputs", strconv.Itoa(j)),
				"scorer %d (%s): input %q is not a column of dataset.%s", i+1, kind, in, dname)
			if sg := diag.Suggest(in, known); sg != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", sg)
			}
			d.Detail = fmt.Sprintf("%s has the columns %s, and the task adds %s",
				dc.file, strings.Join(dc.cols, ", "), strings.Join(taskColumns, " and "))
		}
	}
}
