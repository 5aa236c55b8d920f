// Package host describes the machine and the source tree a benchmark ran
// on, for the headers of .ci/bench and .ci/load.
package host

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
)

// CPUModel is the first "model name" of /proc/cpuinfo.
func CPUModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU model"
}

// LoadAvg is the three load averages of /proc/loadavg.
func LoadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// FreeAddr is a loopback address with a port nobody listens on now.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// GitCommit is the short hash of HEAD of the repository at dir (the
// working directory when dir is ""), "+dirty" with uncommitted changes,
// or "unknown".
func GitCommit(ctx context.Context, dir string) string {
	if dir == "" {
		dir = "."
	}
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}
