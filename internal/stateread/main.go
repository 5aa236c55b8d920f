// Command stateread opens a project's embedded state (.cc/state.db) and
// reads it once with GetState, as a no-op plan does: the floor a cached
// no-op plan is measured against (issue 13: compile cache).
//
//	go run ./internal/stateread DIR PROJECT
package main

import (
	"context"
	"fmt"
	"os"

	"cc.dev/cc/service"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: stateread DIR PROJECT")
		os.Exit(2)
	}
	ctx := context.Background()
	c, closeFn, err := service.OpenProject(ctx, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer closeFn()
	st, err := c.GetState(ctx, os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(st.Resources), "resources")
}
