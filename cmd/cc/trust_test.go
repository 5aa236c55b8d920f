package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"

	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// tcpServer runs the real server on 127.0.0.1 with options, and returns
// its address.
func tcpServer(t *testing.T, opts ...service.Option) (string, *service.Server) {
	t.Helper()
	db, opts := serviceDB(t, opts...)
	srv, err := service.Open(context.Background(), db, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return servicetest.ServeTCP(t, srv), srv
}

// stateList is cc state list's output for the project in the working
// directory.
func stateList(t *testing.T, args ...string) string {
	t.Helper()
	out, _ := mustCC(t, 0, append([]string{"state", "list"}, args...)...)
	return out
}

// TestAcceptance3DataLossAccident is issue 8 acceptance 3 (item 1): a
// project with volumes is applied, then its configuration compiles to zero
// resources (the D1 accident: every block gone but project). cc apply
// refuses without --allow-data-loss, naming the volumes, and changes
// nothing; with it, it deletes them. cc destroy of a project with a volume
// asks for it too, and so does a saved plan not made with it.
func TestAcceptance3DataLossAccident(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	full := "project = \"accident\"\n\nvolume \"data\" {\n  size = \"1Gi\"\n}\n\nvolume \"models\" {\n  size = \"10Gi\"\n}\n"
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(full)
	if out, _ := mustCC(t, 0, "apply", "--auto-approve"); !strings.Contains(out, "Apply complete: 2 created") {
		t.Fatalf("first apply:\n%s", out)
	}
	applied := stateList(t)

	// Everything but the project is gone.
	write("project = \"accident\"\n")
	mustCC(t, 0, "validate")
	out, errs := mustCC(t, 1, "apply", "--auto-approve")
	if first, _, _ := strings.Cut(out, "\n"); first != "This plan deletes every resource of project accident (2 resources)." {
		t.Errorf("the plan's first line is %q\n%s", first, out)
	}
	if !strings.Contains(out, "Data loss: this plan destroys the data of 2 resources: volume.data (delete), volume.models (delete).") {
		t.Errorf("the plan does not name the volumes first:\n%s", out)
	}
	want := "cc apply: not applied: this plan destroys the data of volume.data (delete), volume.models (delete); to carry it out, run cc apply again with --allow-data-loss, or save it with cc plan --allow-data-loss --out FILE and apply FILE. It deletes every resource of project accident: if the configuration was not meant to be empty, check it first. Nothing was changed.\n"
	if errs != want {
		t.Errorf("stderr =\n%q\nwant\n%q", errs, want)
	}
	if got := stateList(t); got != applied {
		t.Fatalf("after the refusal the state is\n%s\nwant\n%s", got, applied)
	}

	// A saved plan made without the flag is refused too; one made with it
	// records it, and says so in every view.
	mustCC(t, 0, "plan", "--out", "without.plan")
	if _, errs := mustCC(t, 1, "apply", "without.plan"); !strings.Contains(errs, "cc apply: not applied: this plan destroys the data of volume.data (delete), volume.models (delete); to carry it out, run cc apply --allow-data-loss without.plan, or plan again with cc plan --allow-data-loss --out FILE") {
		t.Errorf("applying a saved plan without the flag:\n%s", errs)
	}
	if got := stateList(t); got != applied {
		t.Fatalf("after the refusal of the saved plan the state is\n%s", got)
	}
	for _, format := range []string{"text", "markdown", "json"} {
		out, _ := mustCC(t, 0, "show", "--format", format, "without.plan")
		if !strings.Contains(out, "every resource of project accident") && !strings.Contains(out, `"deletes_all": true`) {
			t.Errorf("cc show --format %s does not say it deletes everything:\n%s", format, out)
		}
		if !strings.Contains(out, "volume.data") {
			t.Errorf("cc show --format %s does not name the volume:\n%s", format, out)
		}
	}

	// With the flag, it is done.
	if out, _ := mustCC(t, 0, "apply", "--auto-approve", "--allow-data-loss"); !strings.Contains(out, "Apply complete: 0 created, 0 updated, 0 replaced, 2 deleted") {
		t.Fatalf("apply --allow-data-loss:\n%s", out)
	}

	// A saved plan made with the flag carries it out.
	write(full)
	mustCC(t, 0, "apply", "--auto-approve")
	write("project = \"accident\"\n")
	mustCC(t, 0, "plan", "--allow-data-loss", "--out", "with.plan")
	if out, _ := mustCC(t, 0, "apply", "with.plan"); !strings.Contains(out, "2 deleted") {
		t.Fatalf("apply with.plan:\n%s", out)
	}

	// cc destroy of a project with a volume.
	write(full)
	mustCC(t, 0, "apply", "--auto-approve")
	applied = stateList(t)
	if _, errs := mustCC(t, 1, "destroy", "--auto-approve"); !strings.Contains(errs, "cc destroy: not applied: this plan destroys the data of volume.data (delete), volume.models (delete); to carry it out, run cc destroy again with --allow-data-loss.") {
		t.Errorf("destroy without the flag:\n%s", errs)
	}
	if got := stateList(t); got != applied {
		t.Fatalf("after the refused destroy the state is\n%s", got)
	}
	if out, _ := mustCC(t, 0, "destroy", "--auto-approve", "--allow-data-loss"); !strings.Contains(out, "2 deleted") {
		t.Fatalf("destroy --allow-data-loss:\n%s", out)
	}
}

// TestItem3PlanFileNeverChoosesServer is issue 8 item 3: a plan file made
// against a server is not applied there unless the command line names it;
// without --server the token and secret values go nowhere, and another
// server is refused naming both.
func TestItem3PlanFileNeverChoosesServer(t *testing.T) {
	dir := fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-item3")
	t.Setenv("CC_TOKEN", "token-must-not-travel")
	a := &counter{}
	addrA, _ := tcpServer(t, a.options()...)
	addrB, _ := tcpServer(t)
	mustCC(t, 0, "plan", "--server", addrA, "--out", "a.plan", "main.hcl")
	a.take()

	_, errs := mustCC(t, 1, "apply", "a.plan")
	want := "cc apply: a.plan was planned against the cc service at " + addrA + ", but this apply would go to the embedded state in " +
		filepath.Join(dir, ".cc", "state.db") + " (no --server or $CC_SERVER): a plan file never chooses the service; to apply it to the service it was planned against, name it: --server " + addrA + "\n"
	if resolved, _ := filepath.EvalSymlinks(dir); errs != want && errs != strings.ReplaceAll(want, dir, resolved) {
		t.Errorf("stderr =\n%q\nwant\n%q", errs, want)
	}
	if calls := a.take(); len(calls) > 0 {
		t.Errorf("the server in the plan file got %v", calls)
	}
	// .cc itself exists: the plan's compile cache is in .cc/cache.
	if _, err := os.Stat(filepath.Join(dir, ".cc", "state.db")); err == nil {
		t.Error("the refused apply opened an embedded state")
	}

	_, errs = mustCC(t, 1, "apply", "--server", addrB, "a.plan")
	if want := "cc apply: a.plan was planned against the cc service at " + addrA + ", but this apply would go to the cc service at " + addrB + " (--server): a plan file never chooses the service; plan again against it\n"; errs != want {
		t.Errorf("stderr =\n%q\nwant\n%q", errs, want)
	}
	t.Setenv("CC_SERVER", addrB)
	if _, errs = mustCC(t, 1, "apply", "a.plan"); !strings.Contains(errs, "but this apply would go to the cc service at "+addrB+" ($CC_SERVER)") {
		t.Errorf("with CC_SERVER:\n%s", errs)
	}
	if calls := a.take(); len(calls) > 0 {
		t.Errorf("the server in the plan file got %v", calls)
	}
	t.Setenv("CC_SERVER", "")

	// Named, it is applied there.
	if out, _ := mustCC(t, 0, "apply", "--server", addrA, "a.plan"); !strings.Contains(out, "Apply complete: 6 created") {
		t.Fatalf("apply --server A a.plan:\n%s", out)
	}

	// A plan of the embedded state is not applied to a server.
	mustCC(t, 0, "plan", "--out", "embedded.plan", "main.hcl")
	if _, errs = mustCC(t, 1, "apply", "--server", addrA, "embedded.plan"); !strings.Contains(errs, "embedded.plan was planned against the embedded state in ") {
		t.Errorf("embedded plan to a server:\n%s", errs)
	}

	// The plan file names no project directory (issue 9 item 16): it is
	// applied in the one the command line gives, the working directory,
	// whose state must be the one it was planned against. A copy of the
	// project without that state is refused, and no state is made there.
	mustCC(t, 0, "apply", "embedded.plan")
	edit(t, "main.hcl", `LOG_LEVEL      = "debug"`, `LOG_LEVEL      = "warn"`)
	mustCC(t, 0, "plan", "--out", "second.plan", "main.hcl")
	other := t.TempDir()
	copyTree(t, dir, other)
	os.RemoveAll(filepath.Join(other, ".cc"))
	t.Chdir(other)
	if _, errs = mustCC(t, 1, "apply", filepath.Join(dir, "second.plan")); !regexp.MustCompile(`second\.plan was planned against the state of project support-bot \(lineage [0-9a-f]{32}\), but \. has no embedded state \(\S+\): a saved plan is applied in its project's directory`).MatchString(errs) {
		t.Errorf("applied from another directory:\n%s", errs)
	}
	if _, err := os.Stat(filepath.Join(other, ".cc")); err == nil {
		t.Error("the refused apply opened an embedded state in the working directory")
	}
}

// TestItem2PlanFileOtherServerSameSerial is issue 8 item 2: a plan made
// against one server is refused by another whose project happens to be at
// the same serial, naming what differs.
func TestItem2PlanFileOtherServerSameSerial(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-item2")
	addrA, _ := tcpServer(t)
	addrB, _ := tcpServer(t)
	mustCC(t, 0, "apply", "--auto-approve", "--server", addrA, "main.hcl")
	// B gets the same number of mutations of another configuration.
	edit(t, "main.hcl", `lifetime = "2h"`, `lifetime = "3h"`)
	mustCC(t, 0, "apply", "--auto-approve", "--server", addrB, "main.hcl")
	edit(t, "main.hcl", `lifetime = "3h"`, `lifetime = "2h"`)
	edit(t, "main.hcl", `LOG_LEVEL      = "debug"`, `LOG_LEVEL      = "info"`)
	mustCC(t, 0, "plan", "--server", addrA, "--out", "a.plan", "main.hcl")
	serial := func(addr string) int64 {
		cl, err := service.Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		st, err := cl.GetState(context.Background(), "support-bot")
		if err != nil {
			t.Fatal(err)
		}
		return st.Serial
	}
	if sa, sb := serial(addrA), serial(addrB); sa != sb {
		t.Fatalf("serials %d and %d: the test needs them equal", sa, sb)
	}
	// The user names B, and plans against it would be right; the file is
	// A's.
	_, errs := mustCC(t, 1, "apply", "--server", addrB, "a.plan")
	if !strings.Contains(errs, "a plan file never chooses the service") {
		t.Errorf("another server named:\n%s", errs)
	}
	// Even when the file is edited to say B (a plan file is data anyone
	// may write), the state it fits is A's.
	b, err := os.ReadFile("a.plan")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("b.plan", []byte(strings.ReplaceAll(string(b), addrA, addrB)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs = mustCC(t, 1, "apply", "--server", addrB, "b.plan")
	if !regexp.MustCompile(`(?s)cc apply: b\.plan does not fit the state of project support-bot in the cc service at \S+: (the plan was made against project state with lineage \S+; this service's state has lineage \S+: it is another server or a recreated project|project support-bot is at serial \d+ as when the plan was made, but its state is not the one the plan was made against \(another server, or a rewritten state\):\n  sandbox\.dev changed).*Nothing was applied\. Plan again\.\n$`).MatchString(errs) {
		t.Errorf("the edited plan on B:\n%s", errs)
	}
}

// TestItem3NoTokenInClear is issue 8 item 3: without TLS, cc connects only
// to a server on this machine, unless --insecure.
func TestItem3NoTokenInClear(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-clear")
	t.Setenv("CC_TOKEN", "token-in-clear")
	_, errs := mustCC(t, 1, "plan", "--server", "192.0.2.7:7233", "main.hcl")
	if want := "cc plan: refusing to connect to 192.0.2.7:7233 without TLS: it is not on this machine, and $CC_TOKEN and secret values would cross the network in clear; pass --tls or --ca FILE (or --insecure to send them in clear anyway)\n"; errs != want {
		t.Errorf("stderr = %q, want %q", errs, want)
	}
	for addr, local := range map[string]bool{
		"127.0.0.1:7233": true, "127.8.9.1:1": true, "[::1]:7233": true, "localhost:7233": true, "LOCALHOST:1": true,
		"unix:///tmp/cc.sock": true, "unix:cc.sock": true, "dns:///localhost:7233": true, "passthrough:///127.0.0.1:1": true,
		"192.0.2.7:7233": false, "cc.example.com:443": false, "[2001:db8::1]:7233": false, "dns:///cc.example.com:443": false,
		"localhost.evil.com:1": false, "0.0.0.0:7233": false,
	} {
		if got := isLocal(addr); got != local {
			t.Errorf("isLocal(%q) = %t, want %t", addr, got, local)
		}
	}
}

// TestItem16ServerStoppedMidApply is issue 8 item 16: when the server
// stops in the middle of an apply, cc apply prints one summary of what
// did not run, in words, and none of gRPC's transport errors.
func TestItem16ServerStoppedMidApply(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-stopped")
	var srv atomic.Pointer[service.Server]
	var n atomic.Int64
	addr, s := tcpServer(t, service.WithUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		if strings.HasSuffix(info.FullMethod, "/ApplyResource") && n.Add(1) == 2 {
			go srv.Load().Close()
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return next(ctx, req)
	}))
	srv.Store(s)
	out, errs := mustCC(t, 1, "apply", "--auto-approve", "--server", addr, "main.hcl")
	all := out + errs
	for _, raw := range []string{"rpc error", "RST_STREAM", "connection refused", "transport", "desc ="} {
		if strings.Contains(all, raw) {
			t.Errorf("the output shows %q:\n%s", raw, all)
		}
	}
	re := regexp.MustCompile(`(?m)^Apply stopped: the cc service at ` + regexp.QuoteMeta(addr) + ` stopped answering after \d+ of 6 changes; \d+ did not run( \([^)]*\))?(; \d+ changes? running then may or may not have been done \([^)]*\))?; done: .*\. What was done stays done: run cc apply again when the service is back to carry on\.$`)
	if got := re.FindAllString(errs, -1); len(got) != 1 {
		t.Errorf("want one summary line, got %d:\n%s", len(got), errs)
	}
	if strings.Contains(errs, "Error:") || strings.Contains(errs, "Not started:") {
		t.Errorf("one error per change:\n%s", errs)
	}
}

// TestItem16DeadLocalHolderTakenOver is issue 8 item 16 through the CLI:
// the lock of a cc apply of this machine that died is taken over at once,
// and cc apply says so on stderr.
func TestItem16DeadLocalHolderTakenOver(t *testing.T) {
	dir := fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-dead")
	mustCC(t, 0, "plan", "main.hcl") // makes .cc/state.db
	child := exec.Command(os.Args[0], "-test.run=^$")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	pid := child.ProcessState.Pid()
	host, _ := os.Hostname()
	cl, closeFn, err := service.OpenEmbedded(context.Background(), filepath.Join(dir, ".cc", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Lock(context.Background(), "support-bot", service.Holder{User: "me", Host: host, Command: "cc apply", PID: int64(pid)}, 30*time.Minute); err != nil {
		t.Fatal(err)
	}
	closeFn()
	out, errs := mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	if want := fmt.Sprintf("took over the lock of cc apply (pid %d on %s), which is no longer running\n", pid, host); !strings.Contains(errs, want) {
		t.Errorf("stderr = %q, want %q", errs, want)
	}
	if !strings.Contains(out, "Apply complete: 6 created") {
		t.Errorf("stdout:\n%s", out)
	}
}

// TestPlanFileReplicasInAnyOrder: a plan file made against a list of
// replicas is applied through the same replicas named in another order
// (one CI job's list, another's), and refused through a list that names
// another.
func TestPlanFileReplicasInAnyOrder(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-replicas")
	addrA, srv := tcpServer(t)
	addrB := servicetest.ServeTCP(t, srv) // the same service, as a second replica
	other, _ := tcpServer(t)
	mustCC(t, 0, "plan", "--server", addrA+","+addrB, "--out", "r.plan", "main.hcl")
	if _, errs := mustCC(t, 1, "apply", "--server", addrA+","+other, "r.plan"); !strings.Contains(errs, "a plan file never chooses the service") {
		t.Errorf("applied through a list with another service:\n%s", errs)
	}
	if out, _ := mustCC(t, 0, "apply", "--server", addrB+", "+addrA, "r.plan"); !strings.Contains(out, "Apply complete: 6 created") {
		t.Fatalf("apply through the same replicas in another order:\n%s", out)
	}
}
