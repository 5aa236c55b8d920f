package main

import (
	"fmt"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "version",
		args:    "",
		summary: "print cc's version",
		help:    "Version prints cc's module version, the Go version it was built with, and the VCS revision when known.",
		run: func(e *env, args []string) int {
			c := commands["version"]
			fs := e.flags(c)
			if rc := e.parse(c, fs, args); rc >= 0 {
				return rc
			}
			fmt.Fprintln(e.stdout, versionString())
			return exitOK
		},
	})
}

func versionString() string {
	v, goVersion, rev := "(devel)", "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " " + s.Value[:12]
			}
		}
	}
	return fmt.Sprintf("cc %s %s%s", v, goVersion, rev)
}
