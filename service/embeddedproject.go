package service

import (
	"context"
	"path/filepath"
)

// StateDir is the directory, in a project's root, where cc keeps what is
// this machine's alone: the embedded state (state.db) and the plan key.
const StateDir = ".cc"

// ProjectStatePath is the database of the embedded state of the project
// whose root is root: ROOT/.cc/state.db, where cc keeps it when no
// --server is given.
func ProjectStatePath(root string) string {
	return filepath.Join(root, StateDir, "state.db")
}

// OpenProject opens the embedded state of the project whose root is root,
// the one cc itself uses when no --server is given (ProjectStatePath). It
// makes ROOT/.cc (mode 0700) with a .gitignore that keeps it out of
// version control even where no other .gitignore does, refusing a .cc
// that is not this user's own (OwnStateDir), then runs OpenEmbedded on
// its state.db; opts are OpenEmbedded's.
func OpenProject(ctx context.Context, root string, opts ...Option) (*Client, func() error, error) {
	if _, err := OwnStateDir(root); err != nil {
		return nil, nil, err
	}
	return OpenEmbedded(ctx, ProjectStatePath(root), opts...)
}
