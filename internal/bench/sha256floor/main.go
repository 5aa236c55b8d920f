// Command sha256floor is the floor cc's hashing of a copied tree is
// measured against (issue 13): the sha256 of every regular file under DIR,
// read with large buffers by -workers goroutines, and nothing of cc.
//
//	go run ./internal/bench/sha256floor -workers 2 /tmp/tree
//
// It prints the number of files and bytes and a digest of the files'
// digests (in path order), so no work can be skipped, and exits 1 on any
// error.
package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

func main() {
	workers := flag.Int("workers", 1, "files hashed at once")
	bufSize := flag.Int("buf", 1<<20, "read buffer size in bytes")
	flag.Parse()
	if flag.NArg() != 1 || *workers < 1 || *bufSize < 1 {
		fmt.Fprintln(os.Stderr, "usage: sha256floor [-workers N] [-buf BYTES] DIR")
		os.Exit(2)
	}
	files, err := regularFiles(flag.Arg(0))
	if err == nil {
		var sums [][]byte
		var total int64
		sums, total, err = hashAll(files, *workers, *bufSize)
		if err == nil {
			all := sha256.New()
			for _, s := range sums {
				all.Write(s)
			}
			fmt.Printf("%d files, %d bytes, %x\n", len(files), total, all.Sum(nil))
			return
		}
	}
	fmt.Fprintln(os.Stderr, "sha256floor:", err)
	os.Exit(1)
}

// regularFiles lists the regular files under dir, in walk (lexical) order.
func regularFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// hashAll hashes files with workers goroutines, each with its own buffer.
func hashAll(files []string, workers, bufSize int) ([][]byte, int64, error) {
	sums := make([][]byte, len(files))
	sizes := make([]int64, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, bufSize)
			for i := range next {
				sums[i], sizes[i], errs[i] = hashFile(files[i], buf)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	var total int64
	for _, n := range sizes {
		total += n
	}
	return sums, total, errors.Join(errs...)
}

// hashFile reads path through buf (not io.Copy, whose os.File fast path
// reads 32 KiB at a time) into sha256.
func hashFile(path string, buf []byte) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	h := sha256.New()
	var n int64
	for {
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			return h.Sum(nil), n, nil
		}
		if err != nil {
			return nil, n, err
		}
	}
}
