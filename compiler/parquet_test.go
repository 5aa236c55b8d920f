package compiler

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIssue9ParquetColumns: the top-level columns of Parquet files
// written by parquet-go (a nested group, a list, an optional column, key
// value metadata), read from the footer alone; and anything else refused
// (issue 9 item 3).
func TestIssue9ParquetColumns(t *testing.T) {
	for file, want := range map[string][]string{
		"testdata/parquet/rows.parquet":  {"input", "expected", "meta", "score", "flag"},
		"testdata/parquet/other.parquet": {"input", "answer"},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parquetColumns(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("parquetColumns(%s) error = %v", file, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("parquetColumns(%s) (-want +got):\n%s", file, diff)
		}
		// Every truncation or corruption of the footer is an error, never
		// a panic.
		for cut := 1; cut < len(b)-8; cut += 7 {
			c := append(append([]byte(nil), b[:len(b)-cut-8]...), b[len(b)-8:]...)
			parquetColumns(bytes.NewReader(c), int64(len(c)))
		}
		for i := len(b) - 8 - 1; i > len(b)-200 && i > 4; i-- {
			c := append([]byte(nil), b...)
			c[i] ^= 0xff
			parquetColumns(bytes.NewReader(c), int64(len(c)))
		}
	}
	for _, bad := range []string{"", "PAR1", "input,expected\nq,a\n", "PAR1xxxxxxxxPAR0", "PAR1\xff\xff\xff\x7fPAR1"} {
		if _, err := parquetColumns(bytes.NewReader([]byte(bad)), int64(len(bad))); err == nil {
			t.Errorf("parquetColumns(%q) = nil error, want one", bad)
		}
	}
}

// FuzzParquetColumns: any footer decodes or fails, without a panic.
func FuzzParquetColumns(f *testing.F) {
	b, err := os.ReadFile("testdata/parquet/rows.parquet")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		parquetColumns(bytes.NewReader(b), int64(len(b)))
	})
}
