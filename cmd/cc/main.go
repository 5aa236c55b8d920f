// Command cc compiles a compute platform's resources, described in CUE or
// HCL, into content-hashed image specs and a reviewable plan, and applies it.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
