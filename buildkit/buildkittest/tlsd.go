package buildkittest

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/buildkit/client"
)

// Buildkitd returns the path of the buildkitd that .ci/e2e/up.sh built
// ($CC_E2E_BUILDKITD), for tests that start a daemon of their own. It
// skips t when that is unset, except under CI=true, where it fails: CI
// must run the test.
func Buildkitd(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("CC_E2E_BUILDKITD")
	if bin != "" {
		return bin
	}
	const why = "CC_E2E_BUILDKITD is not set; .ci/e2e/up.sh builds buildkitd and sets it"
	if os.Getenv("CI") == "true" {
		t.Fatal("CI must run this end-to-end test: " + why)
	}
	t.Skip("end-to-end test: " + why)
	return ""
}

// TLSDaemon is a buildkitd of a test's own, reached over TLS.
type TLSDaemon struct {
	// Addr is its tcp://127.0.0.1:PORT address.
	Addr string
	// Log is the file its output goes to.
	Log string
}

// StartTLS starts the buildkitd at bin on tcp://127.0.0.1 at a free port
// with TLS and client verification (buildkitd --tlscacert ca.File
// --tlscert --tlskey, the server certificate issued by ca), the worker
// settings of .ci/e2e/up.sh (OCI worker, native snapshotter, no
// containerd), docker.io mirrored to e.Registry, and its root under
// t.TempDir(). It returns once the daemon lists its workers to a client
// with a certificate of ca, and stops the daemon at cleanup.
func (e Env) StartTLS(t testing.TB, bin string, ca *CA) TLSDaemon {
	t.Helper()
	dir := t.TempDir()
	cert, key := ca.Server(t, "buildkitd")
	conf := filepath.Join(dir, "buildkitd.toml")
	toml := fmt.Sprintf("[registry.\"docker.io\"]\n  mirrors = [%q]\n[registry.%q]\n  http = true\n", e.Registry, e.Registry)
	if err := os.WriteFile(conf, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	d := TLSDaemon{Addr: "tcp://" + freeAddr(t), Log: filepath.Join(dir, "buildkitd.log")}
	log, err := os.Create(d.Log)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(bin, "--root", filepath.Join(dir, "root"), "--addr", d.Addr, "--config", conf,
		"--tlscacert", ca.File, "--tlscert", cert, "--tlskey", key,
		"--otel-socket-path", filepath.Join(dir, "otel.sock"),
		"--oci-worker-snapshotter=native", "--containerd-worker=false")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { stop(cmd, exited, filepath.Join(dir, "root")) })
	clientCert, clientKey := ca.Client(t, "buildkittest-probe")
	if err := waitWorkers(d.Addr, exited, client.WithServerConfig("127.0.0.1", ca.File), client.WithCredentials(clientCert, clientKey)); err != nil {
		b, _ := os.ReadFile(d.Log)
		t.Fatalf("buildkitd at %s did not start: %v\n%s", d.Addr, err, tail(string(b), 20))
	}
	return d
}

// freeAddr is a 127.0.0.1 port free at the time of asking.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitWorkers waits up to a minute for the buildkitd at addr to list its
// workers, or for it to exit.
func waitWorkers(addr string, exited <-chan error, opts ...client.ClientOpt) error {
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("it exited: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := client.New(ctx, addr, opts...)
		if err == nil {
			_, err = c.ListWorkers(ctx)
			c.Close()
		}
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop stops buildkitd and makes its root removable: native snapshots
// can hold read-only files and directories.
func stop(cmd *exec.Cmd, exited <-chan error, root string) {
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink == 0 {
			if fi, err := d.Info(); err == nil {
				os.Chmod(p, fi.Mode().Perm()|0o700)
			}
		}
		return nil
	})
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
