package compiler

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSealedStreams: issue 13, aim 6: a sealed cache file written
// through a stream reads back whole, of every size around the buffer;
// any byte altered, or the file cut, makes it unreadable; a failed encode
// leaves neither the file nor a temporary one.
func TestWriteSealedStreams(t *testing.T) {
	dir := t.TempDir()
	key := bytes.Repeat([]byte{7}, 32)
	for _, n := range []int{0, 1, 256<<10 - 1, 256 << 10, 256<<10 + 1, 3<<20 + 5} {
		payload := make([]byte, n)
		rand.NewChaCha8([32]byte{byte(n)}).Read(payload)
		err := writeSealed(dir, "f", key, "magic\n", func(w io.Writer) error {
			for b := payload; len(b) > 0; b = b[min(len(b), 1000):] { // many small writes
				if _, err := w.Write(b[:min(len(b), 1000)]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "f")
		if got := unseal(key, "magic\n", name); !bytes.Equal(got, payload) || got == nil {
			t.Fatalf("%d bytes: read back %d bytes, not the payload", n, len(got))
		}
		b, _ := os.ReadFile(name)
		for _, i := range []int{0, len("magic\n"), len("magic\n") + 31, len(b) - 1} {
			altered := bytes.Clone(b)
			altered[i] ^= 1
			os.WriteFile(name, altered, 0o600)
			if unseal(key, "magic\n", name) != nil {
				t.Errorf("%d bytes: byte %d altered, still read", n, i)
			}
		}
		os.WriteFile(name, b[:len(b)-1], 0o600)
		if n > 0 && unseal(key, "magic\n", name) != nil {
			t.Errorf("%d bytes: cut short, still read", n)
		}
	}
	os.Remove(filepath.Join(dir, "f"))
	if err := writeSealed(dir, "g", key, "magic\n", func(w io.Writer) error { w.Write([]byte("part")); return errors.New("encode failed") }); err == nil {
		t.Fatal("a failed encode was written")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a failed encode left %v", ents)
	}
}
