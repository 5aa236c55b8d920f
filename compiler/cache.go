package compiler

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"slices"

	"cc.dev/cc/diag"
	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// The compile cache (issue 13: compile cache). With Input.CacheDir set
// (and the embedded schema), Compile keys the compilation by everything
// it reads: cc's own version, every Input field that changes the result,
// the name, type, mode and content of every file and directory under the
// project root but its .cc directory (configuration, cc.lock, env files,
// ignore files, local inputs and whatever a function may read), the
// -var-files' contents, and, for CUE, that no cue.mod above the root
// takes the module out of it. The key is an HMAC under the project's
// random cache key, so no cache file holds a --var value or an unkeyed
// hash of one. A successful compilation with that key is then read back
// instead of compiled: the same desired state, warnings and sources.
//
// A compilation is not cached when it reads what the key cannot follow
// (a symbolic link out of the root, an unreadable file, a cue.mod above
// the root). One in which any value is sensitive is cached only
// encrypted, under a key out of the project (Input.SealDir,
// cachesealed.go), and not at all without one.
//
// What a project's compile seldom reads changes most: version-control
// directories (.git and its kind, localfs.VCSDirs) with every commit and
// fetch, and what the root's .ccignore (or .dockerignore) excludes, such
// as .venv or node_modules, with every install. So the key first leaves
// out what is under those (localfs.Policy.Omits: a version-control
// directory, a directory or a top-level file the ignore file excludes;
// only their names and types are in it, and the walk tells the
// compilation's localfs.Watch what it left out). That key is only good
// for a compilation that read nothing left out: every read of the
// project's files passes its path to localfs.Touch, which the Watch
// counts when it is under what was left out, and a compilation that read
// there (a copy of the whole root that
// the ignore file does not cut .git from, a fileset over it,
// file(".git/HEAD"), a file the ignore file excludes) stores no result
// under that key but a mark that the project needs the whole key; the
// next compilation keys it so, everything under the root included, as
// the key was before. A symbolic link into an omitted path, or an ignore
// file that cannot be read, gives the whole key from the start.

const resultMagic = "cc-compilecache-1\n"

// compileCache is the cache of one compilation.
type compileCache struct {
	dir  string
	key  []byte
	stat *statCache
	// seal is the key of entries with sensitive values (cachesealed.go),
	// read once asked for (sealTried).
	seal      []byte
	sealTried bool
	// ck is the compilation's key; nil: not cacheable. full says it
	// holds what the omitted entries hold too; part is the key without
	// it (nil when it cannot be had).
	ck, part []byte
	full     bool
	slot     string
	// policy is the root's, whose omitted entries part leaves out, and
	// watch counts the compilation's reads under them.
	policy *localfs.Policy
	watch  *localfs.Watch
}

// cachedResult is what a result file holds: a Result, its desired state
// without its schema (always the embedded one).
type cachedResult struct {
	Key []byte
	// Full says Key holds what the root's omitted paths hold too; a
	// Full entry without a Key only says the project needs such a key.
	Full     bool
	Lang     string
	Files    map[string][]byte
	Warnings diag.Diagnostics
	Unlocked []string
	Project  string
	Desired  cachedDesired
	// gob gives no empty list or map, only nil: these say which were
	// empty.
	WarningsEmpty, UnlockedEmpty bool
	// Sealed, when set, is the whole entry encrypted (sealResult), of a
	// compilation with sensitive values: Key is then the one sealKey
	// derives, and every other field empty.
	Sealed []byte
}

// cachedDesired is a schema.Desired but its Schema (TestCachedDesiredFields
// keeps the two in step).
type cachedDesired struct {
	FormatVersion int
	Project       string
	// Resources are in encodeResources' form, their Lifecycles by index.
	Resources  []byte
	Lifecycles map[int]*schema.Lifecycle
	Trees      map[string][]schema.TreeEntry
	TreesNil   bool
	Data       []schema.DataSource
	Moves      []schema.Moved
	Removed    []schema.Removed
	Imports    []schema.Imported
	Outputs    []schema.Output
	Root       string
}

// openCompileCache opens the cache of the compilation of in (p located),
// and gives p its stat cache; nil when there is none. The cache's watch
// is on from then until close.
func openCompileCache(in Input, p *project) *compileCache {
	if in.CacheDir == "" || in.Schema != nil {
		return nil
	}
	k, err := cacheDirKey(in.CacheDir)
	if err != nil {
		return nil // a read-only project: no cache
	}
	c := &compileCache{dir: in.CacheDir, key: k, stat: openStatCache(in.CacheDir, k)}
	p.stat = c.stat
	m := hmac.New(sha256.New, k)
	m.Write([]byte(in.Path + "\x00" + in.Env + "\x00" + p.root))
	c.slot = "c-" + hex.EncodeToString(m.Sum(nil))[:24]
	if c.policy, err = localfs.New(p.root); err == nil {
		c.watch = c.policy.Watch()
		c.part, err = c.inputKey(in, p, false)
	} else {
		err = errKeyOmitted
	}
	switch {
	case err == nil:
		c.ck = c.part
	case errors.Is(err, errKeyOmitted):
		c.useFullKey(in, p)
	}
	return c
}

// close ends the cache's watch.
func (c *compileCache) close() {
	if c != nil {
		c.watch.Stop()
	}
}

// useFullKey makes the key the whole one: what the omitted paths hold
// included.
func (c *compileCache) useFullKey(in Input, p *project) {
	c.full = true
	c.ck, _ = c.inputKey(in, p, true)
}

// lookup gives the cached result of the compilation, or nil. A slot that
// says the project needs the whole key (Full) makes it so first.
func (c *compileCache) lookup(in Input, p *project) *Result {
	if c == nil || c.ck == nil {
		return nil
	}
	b := unseal(c.key, resultMagic, filepath.Join(c.dir, c.slot))
	if b == nil {
		return nil
	}
	var cr cachedResult
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&cr) != nil {
		return nil
	}
	if cr.Full && !c.full {
		c.useFullKey(in, p)
	}
	if cr.Sealed != nil {
		if c.ck == nil || cr.Full != c.full || !c.openResult(in, &cr) {
			return nil
		}
	}
	if c.ck == nil || cr.Full != c.full || !hmac.Equal(cr.Key, c.ck) || cr.Key == nil {
		return nil
	}
	res := cr.result()
	if res != nil && cacheHitHook != nil {
		cacheHitHook()
	}
	return res
}

// result is the Result cr holds, or nil.
func (cr *cachedResult) result() *Result {
	rs, err := decodeResources(cr.Desired.Resources, cr.Desired.Lifecycles)
	if err != nil {
		return nil
	}
	res := cr.fields()
	res.Desired.Resources = rs
	return res
}

// cacheHitHook, when set (by tests), is told of every compile cache hit.
var cacheHitHook func()

// fields is the Result cr holds but its resources.
func (cr *cachedResult) fields() *Result {
	d := &cr.Desired
	res := &Result{Lang: cr.Lang, Files: cr.Files, Warnings: cr.Warnings, Unlocked: cr.Unlocked, Project: cr.Project,
		Desired: &schema.Desired{FormatVersion: d.FormatVersion, Project: d.Project, Trees: d.Trees,
			Data: d.Data, Moves: d.Moves, Removed: d.Removed, Imports: d.Imports, Outputs: d.Outputs, Root: d.Root}}
	if res.Files == nil {
		res.Files = map[string][]byte{}
	}
	if cr.WarningsEmpty {
		res.Warnings = diag.Diagnostics{}
	}
	if cr.UnlockedEmpty {
		res.Unlocked = []string{}
	}
	if res.Desired.Trees == nil && !d.TreesNil {
		res.Desired.Trees = map[string][]schema.TreeEntry{}
	}
	return res
}

// finish stores a successful result when it may, and the stat cache: a
// compilation that read no omitted path under the key without what they
// hold, one that did under the whole key, or, when it had only the
// other, a mark that the project needs the whole key (no result).
func (c *compileCache) finish(in Input, res *Result, err error, p *project) {
	if c == nil {
		return
	}
	defer c.stat.save()
	defer c.close()
	if c.ck == nil || err != nil || res == nil || res.Desired == nil {
		return
	}
	sensitive := hasSensitive(res, p)
	if sensitive && c.sealingKey(in) == nil {
		return
	}
	// Located again first, under the watch: what locating reads counts
	// too (the first time, the watch was not yet on).
	if !c.located(in, p) {
		return
	}
	key, full := c.ck, c.full
	if c.watch == nil || c.watch.Reads() == 0 {
		if c.part != nil {
			key, full = c.part, false
		}
	} else if !c.full {
		key = nil
	}
	if !c.keyedAlike(in, p, key, full) {
		return
	}
	if key == nil {
		mark := cachedResult{Full: true}
		_ = writeSealed(c.dir, c.slot, c.key, resultMagic, func(w io.Writer) error { return gob.NewEncoder(w).Encode(&mark) })
		return
	}
	cr := newCachedResult(key, full, res)
	if sensitive {
		if cr = c.sealResult(cr); cr == nil {
			return
		}
	}
	if writeSealed(c.dir, c.slot, c.key, resultMagic, func(w io.Writer) error { return gob.NewEncoder(w).Encode(cr) }) == nil {
		pruneResults(c.dir)
	}
}

// newCachedResult is what a result file holds of res, under key.
func newCachedResult(key []byte, full bool, res *Result) *cachedResult {
	d := res.Desired
	rs, lcs := encodeResources(d.Resources)
	return &cachedResult{Key: key, Full: full, Lang: res.Lang, Files: res.Files, Warnings: res.Warnings, Unlocked: res.Unlocked, Project: res.Project,
		Desired: cachedDesired{FormatVersion: d.FormatVersion, Project: d.Project, Resources: rs, Lifecycles: lcs, Trees: d.Trees, TreesNil: d.Trees == nil,
			Data: d.Data, Moves: d.Moves, Removed: d.Removed, Imports: d.Imports, Outputs: d.Outputs, Root: d.Root},
		WarningsEmpty: res.Warnings != nil && len(res.Warnings) == 0, UnlockedEmpty: res.Unlocked != nil && len(res.Unlocked) == 0}
}

// located and keyedAlike report whether the project is still what the
// key said when the compilation began: located alike (its configuration
// files, its language, its environment's file) and keyed alike (key,
// with full; nil: nothing to compare). A file that changed while the
// project was located, keyed or compiled may be in the result in a state
// no key says, so such a result is not stored: a later compile of the
// state the key says would be answered with it. The second keying hashes
// again every file read racily clean (statCache.lookAgain): two writes in
// one clock tick at the same size leave the same stat data.
func (c *compileCache) located(in Input, p *project) bool {
	q, err := openProject(in, nil)
	return err == nil && q.root == p.root && q.lang == p.lang && q.envFile == p.envFile && slices.Equal(q.files, p.files)
}

func (c *compileCache) keyedAlike(in Input, p *project, key []byte, full bool) bool {
	if key == nil {
		return true
	}
	c.stat.lookAgain()
	k, err := c.inputKey(in, p, full)
	return err == nil && hmac.Equal(k, key)
}

// hasSensitive reports whether the compilation met a sensitive value.
func hasSensitive(res *Result, p *project) bool {
	if p.marked || len(p.sensitive) > 0 {
		return true
	}
	for _, r := range res.Desired.Resources {
		if len(r.Sensitive) > 0 {
			return true
		}
	}
	for _, o := range res.Desired.Outputs {
		if o.Sensitive {
			return true
		}
	}
	return false
}
