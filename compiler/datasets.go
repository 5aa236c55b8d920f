package compiler

import (
	"path/filepath"
	"strings"

	"cc.dev/cc/schema"
)

func (b *builder) dataset(name string) *schema.Resource {
	if r, ok := b.datasets[name]; ok {
		return r
	}
	ds := b.cfg.Datasets[name]
	path := []string{"datasets", name}
	spec := schema.DatasetSpec{Name: ds.Name, DatasetSettings: ds.DatasetSettings, Rows: inlineRows(ds)}
	var inputs []schema.Input
	format := ""
	files := b.datasetFiles(ds.Files, path)
	for _, df := range files {
		f, fp := df.rel, df.at
		s := b.inputFile(f, fp, "dataset file")
		if s.digest == "" {
			continue
		}
		spec.Files = append(spec.Files, schema.FileInput{Path: f, Digest: s.digest})
		inputs = append(inputs, schema.Input{Path: f, Digest: s.digest})
		if ds.Format == "" {
			ext := formatOf(f)
			switch {
			case ext == "":
				b.errorf(fp, "dataset file %s: cannot tell its format from its extension; set format (csv, parquet or jsonl)", f)
			case format == "":
				format = ext
			case ext != format:
				b.errorf(fp, "dataset file %s is %s but the files before it are %s; a dataset's files share one format", f, ext, format)
			}
		}
	}
	if spec.Format == "" {
		spec.Format = format
	}
	if len(spec.Rows) > 0 {
		b.dataCols[name] = &datasetCols{cols: sortedKeys(spec.Rows[0]), file: "the inline table"}
	} else {
		b.dataCols[name] = b.datasetColumns(files, spec, path)
	}
	r := b.emit(schema.KindDataset, name, withExtra(spec, ds.Extra), nil, inputs)
	b.datasets[name] = r
	return r
}

func formatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return "csv"
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		return "jsonl"
	}
	return ""
}
