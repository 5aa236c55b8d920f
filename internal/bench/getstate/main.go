// Command getstate is the floor cc's no-op plan is measured against
// (issue 13): the one state read a plan makes, and nothing else. It opens
// the embedded state of the project directory DIR exactly as cc does when
// no --server is given (service.OpenProject, synchronous=NORMAL), makes one
// GetState call for the project and exits, so that, run as a process, it
// pays the same process start and database open as cc plan.
//
//	go run ./internal/bench/getstate -project workload /tmp/wl10k
//
// It prints the project's serial and number of resources, and exits 1 on
// any error.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"cc.dev/cc/service"
)

func main() {
	project := flag.String("project", "workload", "the project whose state to read")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: getstate [-project NAME] DIR")
		os.Exit(2)
	}
	if err := getState(context.Background(), flag.Arg(0), *project); err != nil {
		fmt.Fprintln(os.Stderr, "getstate:", err)
		os.Exit(1)
	}
}

// getState makes the one call and prints what it read.
func getState(ctx context.Context, root, project string) error {
	c, closeFn, err := service.OpenProject(ctx, root, service.WithSync(service.SyncNormal))
	if err != nil {
		return err
	}
	st, err := c.GetState(ctx, project)
	if cerr := closeFn(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Printf("project %s: serial %d, %d resources\n", project, st.Serial, len(st.Resources))
	return nil
}
