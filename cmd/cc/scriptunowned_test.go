package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

func init() {
	// unowned DIR ADDR SPEC creates or updates the resource at ADDR in the
	// reserved project "-" of DIR's embedded state, with the JSON SPEC, as
	// a platform SDK would through the raw API (issue 10: what data
	// sources refer to); unowned DIR secret.NAME value=VALUE stores a
	// secret's value there.
	scriptCmds["unowned"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: unowned DIR ADDR SPEC|value=VALUE")
		}
		ts.Check(applyUnowned(context.Background(), filepath.Join(ts.MkAbs(args[0]), stateDir, "state.db"), args[1], args[2]))
	}
}

// applyUnowned applies one resource (or a secret's value) to the unowned
// project of the embedded state db, under that project's lock.
func applyUnowned(ctx context.Context, db, addr, spec string) error {
	c, closeFn, err := service.OpenEmbedded(ctx, db)
	if err != nil {
		return err
	}
	defer closeFn()
	lease, _, err := c.Lock(ctx, service.Unowned, service.CurrentHolder("platform sdk"), time.Minute)
	if err != nil {
		return err
	}
	defer c.Unlock(ctx, service.Unowned, lease.ID)
	st, err := c.GetState(ctx, service.Unowned)
	if err != nil {
		return err
	}
	if v, ok := strings.CutPrefix(spec, "value="); ok {
		_, err := c.PutSecretValue(ctx, service.SecretRequest{Project: service.Unowned, Address: addr, Value: []byte(v), ExpectedSerial: st.Serial, LeaseID: lease.ID})
		return err
	}
	hash, canon, err := schema.HashOf(json.RawMessage(spec))
	if err != nil {
		return err
	}
	action := service.ActionCreate
	if st.Lookup(addr) != nil {
		action = service.ActionUpdate
	}
	_, err = c.Apply(ctx, service.ApplyRequest{Project: service.Unowned, Address: addr, Action: action, Spec: canon, Hash: hash,
		ExpectedSerial: st.Serial, LeaseID: lease.ID})
	return err
}
