package service_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"cc.dev/cc/service"
)

// ExampleOpenProject opens the embedded state cc itself uses for a
// project, ROOT/.cc/state.db, and reads a project's state from it (issue
// 12, cc as a Go library). A project never written has serial 0 and no
// resources.
func ExampleOpenProject() {
	root, err := os.MkdirTemp("", "cc-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	client, closeService, err := service.OpenProject(context.Background(), root)
	if err != nil {
		log.Fatal(err)
	}
	defer closeService()
	st, err := client.GetState(context.Background(), "support-bot")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("project %s: serial %d, %d resources, locked: %v\n", st.Project, st.Serial, len(st.Resources), st.Lock != nil)
	// Output:
	// project support-bot: serial 0, 0 resources, locked: false
}
