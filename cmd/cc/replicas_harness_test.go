package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// issue 14: several replicas. The harness of the tests of two cc server
// PROCESSES on one PostgreSQL database: the database, the processes, the
// clients (cc processes too) and SQL against the database with psql.

// replicaToken is the token of every client of the replica tests.
const replicaToken = "replica-test-token-0123456789"

// pgTool is the path of a PostgreSQL client program (psql, pg_dump): in
// $CC_PG_BIN, else in Debian's /usr/lib/postgresql/*/bin, else on PATH.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	dirs := []string{os.Getenv("CC_PG_BIN")}
	more, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for _, d := range append(dirs, more...) {
		if p := filepath.Join(d, name); d != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (set CC_PG_BIN): %v", name, err)
	}
	return p
}

// psql runs SQL on db and returns its rows, one a line, columns separated
// by "|".
func psql(t *testing.T, db, query string) string {
	t.Helper()
	out, err := exec.Command(pgTool(t, "psql"), "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", query, db).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", query, err, out)
	}
	return strings.TrimSpace(string(out))
}

// replicaProc is one cc server process.
type replicaProc struct {
	name string
	cmd  *exec.Cmd
	addr string
	// log is its stderr: the JSON log of every call.
	log *syncBuffer
}

// startReplicas starts n cc server processes on db, on 127.0.0.1 at free
// ports, with one secret key file and one tokens file (replicaToken sees
// every project), logging JSON, and waits until each serves.
func startReplicas(t *testing.T, db string, n int) []*replicaProc {
	t.Helper()
	dir := t.TempDir()
	key, tokens := filepath.Join(dir, "secret.key"), filepath.Join(dir, "tokens")
	k := make([]byte, 32)
	rand.Read(k)
	writeFile(t, key, hex.EncodeToString(k)+"\n")
	writeFile(t, tokens, replicaToken+" * team\n")
	var ps []*replicaProc
	for i := 0; i < n; i++ {
		p := &replicaProc{name: string(rune('a' + i)), log: &syncBuffer{}}
		p.cmd = exec.Command(serverBinary(t), "server", "--listen", "127.0.0.1:0", "--db", db,
			"--secret-key-file", key, "--tokens", tokens, "--log-format", "json")
		p.cmd.Stderr = p.log
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.kill() })
		ps = append(ps, p)
	}
	for _, p := range ps {
		p.addr = p.waitServing(t)
	}
	return ps
}

// serverBinary is the cc the replicas run: this test binary, which is cc
// on PATH under testscript.Main, or $CC_TEST_SERVER_BINARY (a cc built
// from another tree, to try a store before it is merged).
func serverBinary(t *testing.T) string {
	if b := os.Getenv("CC_TEST_SERVER_BINARY"); b != "" {
		return b
	}
	p, err := exec.LookPath("cc")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitServing waits (a minute at most) for the "serving" line of the
// server's log and returns the address it listens on.
func (p *replicaProc) waitServing(t *testing.T) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(p.log.String(), "\n") {
			var rec struct{ Msg, Listen string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "serving" {
				return rec.Listen
			}
		}
		if p.cmd.ProcessState != nil {
			break
		}
	}
	t.Fatalf("replica %s does not serve:\n%s", p.name, p.log.String())
	return ""
}

// kill ends the process with SIGKILL (kill -9) and waits for it.
func (p *replicaProc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// calls counts the calls of the ResourceService method (ApplyResource;
// "" for all of them: the mutations) in the server's log.
func (p *replicaProc) calls(method string) int {
	return strings.Count(p.log.String(), `"method":"/cc.v1.ResourceService/`+method)
}

// addrs is the list of the replicas' addresses, for --server.
func addrs(ps ...*replicaProc) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.addr)
	}
	return strings.Join(s, ",")
}

// client is a cc command run as a process in dir against server.
func client(dir, server string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("cc", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CC_SERVER="+server, "CC_TOKEN="+replicaToken, "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runClient runs a client to its end: its output and exit code.
func runClient(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errs.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), 0
}
