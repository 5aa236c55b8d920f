package main

import (
	"flag"
	"os"
	"path/filepath"
)

// registerNoCache adds --no-cache to a command that compiles (issue 13:
// compile cache).
func registerNoCache(fs *flag.FlagSet) {
	fs.Bool("no-cache", false, "compile from scratch: neither read nor write the compile cache and the stat cache in the project's .cc/cache (also CC_NO_CACHE=1)")
}

// cacheDir is the compile cache of the project at path for command c
// (compiler.Input.CacheDir): the project's .cc/cache, or "" with
// --no-cache, CC_NO_CACHE=1, and for cc validate, which writes no file.
func (e *env) cacheDir(c *command, path string) string {
	if c.name == "validate" || e.getenv("CC_NO_CACHE") == "1" {
		return ""
	}
	if e.fs != nil {
		if f := e.fs.Lookup("no-cache"); f != nil {
			if g, ok := f.Value.(flag.Getter); ok && g.Get() == true {
				return ""
			}
		}
	}
	dir := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		dir = filepath.Dir(path)
	}
	return filepath.Join(dir, stateDir, "cache")
}

// sealDir is where the key of cached compilations with sensitive values
// lives (compiler.Input.SealDir): the user's cache directory
// ($XDG_CACHE_HOME, else ~/.cache) under cc/sealed, out of every project,
// so that a project's .cc alone cannot open them; "" without a home.
func (e *env) sealDir() string {
	d := e.getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(d) {
		h := e.getenv("HOME")
		if !filepath.IsAbs(h) {
			return ""
		}
		d = filepath.Join(h, ".cache")
	}
	return filepath.Join(d, "cc", "sealed")
}
