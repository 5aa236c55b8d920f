// Command gen writes a generated project of N resources, main.cue and
// main.hcl side by side, for measuring cc against other tools:
//
//	go run ./compiler/workload/gen -n 10000 -out /tmp/wl10k
package main

import (
	"flag"
	"fmt"
	"os"

	"cc.dev/cc/compiler/workload"
)

func main() {
	n := flag.Int("n", 1000, "number of resources")
	out := flag.String("out", "", "directory to write (created)")
	seed := flag.Int("seed", 0, "content variant")
	changed := flag.Int("changed", 0, "change the first K images and functions")
	images := flag.Float64("images", 0.25, "share of the N resources that are images (0 to 1)")
	copyBytes := flag.Int("copy-bytes", 0, "size of each local file the images copy (bytes)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -n N -out DIR [-seed S] [-changed K] [-images SHARE] [-copy-bytes B]")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := workload.Write(*out, workload.Options{N: *n, Seed: *seed, Changed: *changed, ImageShare: *images, CopyBytes: *copyBytes}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
