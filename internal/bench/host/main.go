package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// UsageError is a bad command line: the command exits 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Main runs a benchmark command's run with its arguments, stopped by
// SIGINT or SIGTERM, and exits as its error says: 2 for a *UsageError
// (flag's own help request printing nothing more), 1 for any other, each
// printed after name.
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var ue *UsageError
	switch {
	case errors.As(err, &ue):
		if ue.Msg != "flag: help requested" {
			fmt.Fprintln(os.Stderr, name+":", ue.Msg)
		}
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
