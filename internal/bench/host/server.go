package host

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Server is one cc server process a benchmark started.
type Server struct {
	Addr    string
	logPath string
	cmd     *exec.Cmd
	log     *os.File
	// exited is closed when the process has exited, waitErr then being
	// what cmd.Wait returned.
	exited  chan struct{}
	waitErr error
}

// StartServer runs the cc binary's server ARGS --listen ADDR with its log
// in logPath, in logPath's directory, with this process's environment and
// env, and waits until it accepts connections.
func StartServer(ctx context.Context, cc, logPath string, env []string, args ...string) (*Server, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: addr, logPath: logPath}
	if s.log, err = os.Create(logPath); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(cc, append([]string{"server", "--listen", addr}, args...)...)
	s.cmd.Env = append(os.Environ(), env...)
	// In its own directory: whatever it writes beside a relative path
	// stays there.
	s.cmd.Dir, s.cmd.Stdout, s.cmd.Stderr = filepath.Dir(logPath), s.log, s.log
	if err := s.cmd.Start(); err != nil {
		s.log.Close()
		return nil, fmt.Errorf("start cc server: %w", err)
	}
	s.exited = make(chan struct{})
	cmd := s.cmd
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	if err := s.wait(ctx); err != nil {
		if serr := s.Stop(); serr != nil {
			// Its exit status, and its log.
			return nil, fmt.Errorf("cc server did not start listening (%v): %w", err, serr)
		}
		return nil, fmt.Errorf("cc server did not start listening on %s (%v); its log:\n%s", addr, err, s.LogTail())
	}
	return s, nil
}

// wait polls the address until the server accepts a connection.
func (s *Server) wait(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exited:
			return errors.New("it exited")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return errors.New("not within 60 s")
}

// Stop interrupts the server and waits for it; it is a no-op once done.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	cmd := s.cmd
	s.cmd = nil
	defer s.log.Close()
	if err := cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("cc server on %s did not stop within 30 s of SIGINT", s.Addr)
	}
	if s.waitErr != nil {
		return fmt.Errorf("cc server on %s: %v; its log:\n%s", s.Addr, s.waitErr, s.LogTail())
	}
	return nil
}

// LogTail is the last lines of the server's log, indented.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.logPath)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
