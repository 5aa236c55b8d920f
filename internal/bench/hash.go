package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// hashFiles is how many files the copied tree has.
const hashFiles = 1600

// hashSizes are the sizes of the tree's files: 2^(i%12) units, from one
// unit to 2,048 (a mix of small, middle and large files), the unit chosen
// so that they add up to total.
func hashSizes(total int64) []int64 {
	var weights int64
	for i := range hashFiles {
		weights += 1 << (i % 12)
	}
	unit := max(total/weights, 1)
	sizes := make([]int64, hashFiles)
	var sum int64
	for i := range sizes {
		sizes[i] = unit << (i % 12)
		sum += sizes[i]
	}
	sizes[hashFiles-1] += max(total-sum, 0)
	return sizes
}

// hashTree writes the tree of about total bytes into WORK/hash/tree
// (pseudo-random contents, the same every time), unless a run with the
// same -work already wrote it; it returns the project directory.
func (r *runner) hashTree(total int64) (string, error) {
	dir := filepath.Join(r.work, "hash")
	done := filepath.Join(dir, "tree.done")
	want := strconv.FormatInt(total, 10)
	if b, err := os.ReadFile(done); err == nil && string(b) == want {
		return dir, nil
	}
	fmt.Fprintf(r.progress, "bench: writing a %d MiB tree of %d files\n", total>>20, hashFiles)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	for i, size := range hashSizes(total) {
		p := filepath.Join(dir, "tree", fmt.Sprintf("d%02d", i/100), fmt.Sprintf("f%04d.bin", i))
		if err := writeRandom(p, size, uint64(i)); err != nil {
			return "", err
		}
	}
	project := "project = \"hashbench\"\n\nimage \"big\" {\n  from = \"python:3.12-slim\"\n  copy {\n    src = \"tree\"\n    dst = \"/data\"\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(project), 0o644); err != nil {
		return "", err
	}
	return dir, os.WriteFile(done, []byte(want), 0o644)
}

// writeRandom writes size pseudo-random bytes (ChaCha8 seeded by seed).
func writeRandom(path string, size int64, seed uint64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var key [32]byte
	key[0], key[1] = byte(seed), byte(seed>>8)
	rng := rand.NewChaCha8(key)
	w := bufio.NewWriterSize(f, 1<<20)
	buf := make([]byte, 64<<10)
	for left := size; left > 0; left -= int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), left)]
		rng.Read(chunk)
		if _, err := w.Write(chunk); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// hashPath measures cc hashing the copied tree (compiling the one-image
// project) against sha256 of the same files with one and two workers.
func (r *runner) hashPath(ctx context.Context) error {
	dir, err := r.hashTree(r.cfg.hashBytes)
	if err != nil {
		return err
	}
	floor := func(w string) cmdSpec {
		return cmdSpec{id: "sha256-" + w, label: "`sha256floor -workers " + w + " tree`", argv: []string{r.bin.sha256floor, "-workers", w, "tree"}, dir: dir}
	}
	specs := []cmdSpec{floor("1"), floor("2")}
	if r.bin.noCacheCompile {
		specs = append(specs, r.ccSpec("hash-cold", 0, dir, "compile", "--no-cache", "main.hcl"), r.ccSpec("hash-warm", 0, dir, "compile", "main.hcl"))
	} else {
		specs = append(specs, r.ccSpec("hash", 0, dir, "compile", "main.hcl"))
	}
	res, err := r.measure(ctx, "hash", specs, r.cfg.rounds, true)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("One image copying a tree of %s files, %d MiB in all (in the page cache: one untimed warm-up round first); `sha256floor` is internal/bench/sha256floor, 1 MiB reads.", commas(hashFiles), r.cfg.hashBytes>>20)
	if r.bin.noCacheCompile {
		note += " `--no-cache` hashes every file (cold); without it the stat cache answers (warm)."
	}
	r.tables = append(r.tables, &table{title: "Hashing a copied tree", rows: res, bases: res[:2], notes: []string{note}})
	return r.profileSpecs(ctx, 0, specs)
}
