package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cc.dev/cc/internal/bench/host"
)

// deployment is one setup's servers for one round.
type deployment struct {
	servers []*host.Server
	db      *database
}

// setupTitle is how the output names a setup.
func setupTitle(name string) string {
	switch name {
	case "sqlite":
		return "SQLite, one `cc server --sync full`"
	case "postgres":
		return "PostgreSQL, two `cc server` replicas on one database"
	}
	return name
}

// deploy starts a setup's servers on a fresh database in dir: sqlite one
// cc server --db FILE --sync full; postgres a new database and two
// replicas on it (CC_DB=URL cc server) sharing one secret key.
func deploy(ctx context.Context, cfg *config, cc, name, dir string) (*deployment, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	d := &deployment{}
	if name == "sqlite" {
		s, err := host.StartServer(ctx, cc, filepath.Join(dir, "server.log"), nil, "--db", filepath.Join(dir, "state.db"), "--sync", "full")
		if err != nil {
			return nil, err
		}
		d.servers = append(d.servers, s)
		return d, nil
	}
	key := filepath.Join(dir, "secret.key")
	if err := writeSecretKey(key); err != nil {
		return nil, err
	}
	var err error
	if d.db, err = createDatabase(ctx, cfg.postgres); err != nil {
		return nil, err
	}
	// One after the other: the first migrates the new database. Each in
	// its own directory, so that a cc taking the URL for a file name
	// gives each its own file, and checkUsed refuses it.
	for i := range 2 {
		rdir := filepath.Join(dir, fmt.Sprintf("replica-%d", i))
		if err := os.MkdirAll(rdir, 0o700); err != nil {
			return nil, errors.Join(err, d.stop(ctx))
		}
		// The URL in $CC_DB, not on the command line: ps shows that to
		// every user of the machine, password and all.
		s, err := host.StartServer(ctx, cc, filepath.Join(rdir, "server.log"), []string{"CC_DB=" + d.db.url}, "--secret-key-file", key)
		if err != nil {
			return nil, errors.Join(err, d.stop(ctx))
		}
		d.servers = append(d.servers, s)
	}
	if err := d.db.checkUsed(ctx); err != nil {
		return nil, errors.Join(err, d.stop(ctx))
	}
	return d, nil
}

// addrs are the servers' addresses.
func (d *deployment) addrs() []string {
	var out []string
	for _, s := range d.servers {
		out = append(out, s.Addr)
	}
	return out
}

// stop stops the servers and drops the database.
func (d *deployment) stop(ctx context.Context) error {
	var errs []error
	for _, s := range d.servers {
		errs = append(errs, s.Stop())
	}
	if d.db != nil {
		errs = append(errs, d.db.drop(context.WithoutCancel(ctx)))
	}
	return errors.Join(errs...)
}
