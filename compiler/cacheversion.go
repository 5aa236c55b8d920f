package compiler

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
)

var (
	vcsOnce sync.Once
	vcsRev  string
)

// ccVersion names the cc that compiles, for the compile cache key (issue
// 13): the VCS revision it was built from when the build says the tree
// was clean, else (a dev build, go run, a test) the digest of the running
// executable, through the stat cache so it is not read on every run. ""
// when neither is known: no cache.
func ccVersion(sc *statCache) string {
	vcsOnce.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		rev, modified := "", true
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value != "false"
			}
		}
		if rev != "" && !modified {
			vcsRev = "rev:" + rev + " " + bi.GoVersion
		}
	})
	if vcsRev != "" {
		return vcsRev
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return ""
	}
	s := sc.sum(exe, nil, true)
	if s.err != nil {
		return ""
	}
	return "exe:" + s.digest
}
