//go:build unix

package applier

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has the pid on this machine.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
