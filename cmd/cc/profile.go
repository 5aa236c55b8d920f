package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles are --cpuprofile and --memprofile, on every command (issue 13:
// anyone can say where the time and the memory of a command go, with go
// tool pprof).
type profiles struct {
	cpu, mem string
	cpuFile  *os.File
	started  bool
}

func (e *env) registerProfiles(fs *flag.FlagSet) {
	fs.StringVar(&e.prof.cpu, "cpuprofile", "", "write a CPU profile of the command to `FILE`, for go tool pprof (default $CC_CPUPROFILE)")
	fs.StringVar(&e.prof.mem, "memprofile", "", "write a heap profile to `FILE` when the command ends, for go tool pprof (default $CC_MEMPROFILE)")
}

// startProfiles starts the CPU profile once the command's flags are
// parsed; a command that parses twice (cc state SUB) starts it once.
func (e *env) startProfiles() error {
	p := &e.prof
	if p.started {
		return nil
	}
	p.started = true
	if p.cpu == "" {
		p.cpu = e.getenv("CC_CPUPROFILE")
	}
	if p.mem == "" {
		p.mem = e.getenv("CC_MEMPROFILE")
	}
	if p.cpu == "" {
		return nil
	}
	f, err := os.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.cpuFile = f
	return nil
}

// stopProfiles ends the CPU profile and writes the heap profile, when the
// command returns.
func (e *env) stopProfiles() {
	p := &e.prof
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			fmt.Fprintf(e.stderr, "cc: --cpuprofile: %v\n", err)
		}
		p.cpuFile = nil
	}
	if p.mem == "" {
		return
	}
	f, err := os.Create(p.mem)
	if err == nil {
		runtime.GC() // the heap as it is, not as of the last collection
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "cc: --memprofile: %v\n", err)
	}
	p.mem = ""
}
