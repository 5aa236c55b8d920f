package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// Issue 10 (moves, forgetting, adoption), imperatively: cc state mv,
// cc state rm and cc import, each under the project's lock.

func init() {
	register(&command{
		name:    "import",
		args:    "[flags] ADDR ID [PATH]",
		summary: "adopt a resource the service has that no project owns",
		help: `Import adopts the unowned resource KIND.ID (KIND that of ADDR: "cc import
volume.cache build-cache" adopts the unowned volume build-cache) into the
project at ADDR, as the service has it, under the project's lock. Nothing is
created, changed or deleted. Declare it in the configuration afterwards (or
use an import block and cc plan --generate-config-out FILE, which writes the
declaration): until then the next plan deletes it.`,
		run: runImport,
	})
}

// runStateLifecycle runs cc state mv FROM TO [PATH] and cc state rm ADDR
// [PATH].
func runStateLifecycle(e *env, c *command, sub string, args []string) int {
	fs := e.flags(c)
	var lf locateFlags
	lf.register(fs)
	lockTimeout := fs.Duration("lock-timeout", 0, "wait up to `DURATION` for the project's lock")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	want := map[string]int{"mv": 2, "rm": 1}[sub]
	if fs.NArg() < want || fs.NArg() > want+1 {
		return e.usageError(c, "want: cc state mv FROM TO [PATH] or cc state rm ADDR [PATH]")
	}
	path := "."
	if fs.NArg() == want+1 {
		path = fs.Arg(want)
	}
	for _, a := range fs.Args()[:want] {
		if !resourceAddress(a) {
			return e.usageError(c, "%s: want the address KIND.NAME of a resource that is not an image", a)
		}
	}
	return e.underLock(c, &lf, path, *lockTimeout, "cc state "+sub, func(project string, cn *conn, lk *applier.Lock) int {
		if sub == "mv" {
			from, to := fs.Arg(0), fs.Arg(1)
			res, err := cn.client.Move(e.ctx, service.MoveRequest{Project: project, From: from, To: to, ExpectedSerial: lk.Serial(), LeaseID: lk.LeaseID()})
			if err != nil {
				return e.fail(c, err)
			}
			fmt.Fprintf(e.stdout, "%s has moved to %s, keeping its identity, versions and history (serial %d).\n", from, to, res.Serial)
			if len(res.Dependants) > 0 {
				fmt.Fprintf(e.stdout, "What depends on it now names %s: %s.\n", to, strings.Join(res.Dependants, ", "))
			}
			return exitOK
		}
		addr := fs.Arg(0)
		res, err := cn.client.Forget(e.ctx, service.TransferRequest{Project: project, Address: addr, ExpectedSerial: lk.Serial(), LeaseID: lk.LeaseID()})
		if err != nil {
			return e.fail(c, err)
		}
		fmt.Fprintf(e.stdout, "%s was forgotten by project %s, not destroyed: the service keeps it, unowned, as %s (serial %d). Remove its declaration from the configuration, or the next plan creates it again.\n",
			addr, project, res.Resource.Address, res.Serial)
		return exitOK
	})
}

// resourceAddress reports whether a is the address KIND.NAME of a
// resource that is not an image, an instance's (sandbox.worker["a"])
// included (issue 12).
func resourceAddress(a string) bool {
	k, _, ok := schema.ParseAddress(a)
	return ok && k != schema.KindImage
}

func runImport(e *env, args []string) int {
	c := commands["import"]
	fs := e.flags(c)
	var lf locateFlags
	lf.register(fs)
	lockTimeout := fs.Duration("lock-timeout", 0, "wait up to `DURATION` for the project's lock")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		return e.usageError(c, "want ADDR ID [PATH]")
	}
	addr, id, path := fs.Arg(0), fs.Arg(1), "."
	if fs.NArg() == 3 {
		path = fs.Arg(2)
	}
	if !resourceAddress(addr) {
		return e.usageError(c, "%s: want the address KIND.NAME of a resource that is not an image", addr)
	}
	if !schema.ValidUnownedID(id) {
		return e.usageError(c, "ID %q: want the name of an unowned resource (a lowercase DNS label, or a forgotten instance's name, worker[\"a\"])", id)
	}
	return e.underLock(c, &lf, path, *lockTimeout, "cc import", func(project string, cn *conn, lk *applier.Lock) int {
		res, err := cn.client.Adopt(e.ctx, service.TransferRequest{Project: project, Address: addr, ID: id, ExpectedSerial: lk.Serial(), LeaseID: lk.LeaseID()})
		if err != nil {
			return e.fail(c, err)
		}
		fmt.Fprintf(e.stdout, "%s was imported into project %s from the unowned %s (serial %d). Declare it in the configuration, or the next plan deletes it.\n",
			addr, project, schema.Address(schema.KindOf(addr), id), res.Serial)
		return exitOK
	})
}

// generateConfig writes to name the declarations of the plan's imports
// that the configuration does not declare, in its language, and refuses to
// overwrite a file.
func generateConfig(name string, res *compiler.Result, p *planner.Plan, st *planner.State) error {
	// The built-in images first: a configuration that never names one
	// still refers to it (issue 11); its own images win a shared hash.
	builtins, err := compiler.BuiltinImageHashes(res.Desired.Root)
	if err != nil {
		return err
	}
	in := compiler.GenerateInput{Lang: res.Lang, Images: builtins}
	for _, r := range res.Desired.Resources {
		if r.Kind != schema.KindImage {
			continue
		}
		in.Images[r.Hash] = r.Address
		if unnamedImage(r) {
			// Written in place where an import uses it (image =
			// "ubuntu:latest"), never declared.
			in.Resources = append(in.Resources, compiler.GenerateResource{Address: r.Address, Spec: r.Spec, Sensitive: r.Sensitive})
		}
	}
	for _, c := range p.Changes {
		if c.Action != planner.Import || c.After != nil {
			continue
		}
		u := st.UnownedAt(schema.Address(c.Kind, c.ImportID))
		if u == nil {
			continue
		}
		in.Resources = append(in.Resources, compiler.GenerateResource{Address: c.Addr, Spec: u.Spec, Sensitive: u.Sensitive})
	}
	if res.Lang == "cue" {
		in.Package = cuePackage(res.Desired.Root)
	}
	b, err := compiler.Generate(in)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("--generate-config-out: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// unnamedImage reports whether r is an image the configuration never named
// (a string shorthand, image.HASHPREFIX).
func unnamedImage(r schema.Resource) bool {
	hex := strings.TrimPrefix(r.Hash, "sha256:")
	return len(hex) >= 12 && r.Name == hex[:12]
}

var packageRE = regexp.MustCompile(`(?m)^package\s+([A-Za-z_][A-Za-z0-9_]*)\s*$`)

// cuePackage is the package of the CUE files in root, "" when they have
// none.
func cuePackage(root string) string {
	files, _ := filepath.Glob(filepath.Join(root, "*.cue"))
	for _, f := range files {
		// Only regular files, and their first 64 KiB: a FIFO never blocks.
		if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		fd, err := os.Open(f)
		if err != nil {
			continue
		}
		b := make([]byte, 64<<10)
		n, _ := io.ReadFull(fd, b)
		fd.Close()
		b = b[:n]
		if m := packageRE.FindSubmatch(b); m != nil {
			return string(m[1])
		}
	}
	return ""
}
