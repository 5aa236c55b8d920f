package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// collector turns resources into typed configuration while the language
// front end is still producing them: each worker decodes a resource (CUE's
// JSON export of it, or HCL's evaluated value), runs the fast check with
// its collection's type, and decodes the result into the schema's Go type.
// A resource the fast check refuses marks the whole load for CUE's
// judgement instead.
type collector struct {
	fs *fastSchema
	// closedCheck says the configuration has definitions: the fields the
	// check adds to a CUE resource are noted in added (cueclosed.go).
	closedCheck bool
	added       []addition
	ch          chan item
	wg          sync.WaitGroup
	mu          sync.Mutex
	cfg         schema.Config
	sens        [][]string
	failure     error
	// stopped is set by a failure that ends the fast way (fail); an HCL
	// resource the fast check refuses (a fastRefusal) sets failure alone, and
	// the others are still checked, so that CUE need judge only what the
	// fast check did not accept (accepted, hclschema.go).
	stopped bool
	// trees keeps each resource as the fast check filled it in, by
	// "collection.name", for crossCheck to compare with CUE's.
	trees map[string]any
	// defaults are the project's shared defaults (defaults.go), merged
	// into each resource before its check; nil when there are none.
	defaults *sharedDefaults
	// direct is the configuration the direct way reads (cuedirect.go).
	direct *directTree
	// refusedVals keeps, by "collection.name", the HCL values the fast
	// check refused: CUE judges them, and the loader may have let go of
	// its own copy meanwhile (hclrelease.go).
	refusedVals map[string]cty.Value
}

// fastResult is what the fast way made of a configuration: its typed
// configuration, the paths of its sensitive values, and (with crossCheck)
// each resource as the fast check filled it in.
type fastResult struct {
	cfg   *schema.Config
	sens  [][]string
	trees map[string]any
}

// exportError is a CUE value that could not be exported on its own (not
// concrete, or an error): the fast check never saw it.
type exportError struct{ err error }

func (e exportError) Error() string { return e.err.Error() }
func (e exportError) Unwrap() error { return e.err }

// item is one resource: its collection and name, and either CUE's JSON
// export of it or HCL's value.
type item struct {
	coll, name string
	cv         cue.Value // CUE: the resource, exported by the worker
	dn         *dnode    // CUE, the direct way: the resource's node
	val        cty.Value // HCL: the evaluated resource
}

func newCollector(fs *fastSchema) *collector {
	c := &collector{fs: fs, ch: make(chan item, 256)}
	if c.fs.err != nil {
		c.failure, c.stopped = c.fs.err, true
	}
	if crossCheck {
		c.trees = map[string]any{}
	}
	n := runtime.GOMAXPROCS(0)
	c.wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer c.wg.Done()
			for it := range c.ch {
				if err := c.process(it); err != nil {
					c.fail(err)
				}
			}
		}()
	}
	return c
}

func (c *collector) add(it item) { c.ch <- it }

// fail records err as the fast way's failure, if it is the first. A
// fastRefusal (an HCL resource the fast check refuses) records its reason
// and lets the other resources still be checked; any other failure stops
// the fast way.
func (c *collector) fail(err error) {
	var r fastRefusal
	refused := errors.As(err, &r)
	if refused {
		err = r.err
	}
	c.mu.Lock()
	if c.failure == nil {
		c.failure = err
	}
	c.stopped = c.stopped || !refused
	c.mu.Unlock()
}

// fastRefusal is an HCL resource the fast check refuses: the fast way has
// failed, and goes on checking the other resources.
type fastRefusal struct{ err error }

func (r fastRefusal) Error() string { return r.err.Error() }

// failed reports whether the fast way has already given up.
func (c *collector) failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

// accepted reports, once wait has returned, whether the fast check
// accepted the resource name of collection coll ("sandboxes",
// "data.volumes"). CUE accepts what the fast check accepts (crossCheck
// holds them to it), so a failed fast way leaves CUE to judge only the
// others (hclLoader.refused).
func (c *collector) accepted(coll, name string) bool {
	owner, field, ok := collectionField(coll)
	if !ok {
		return false
	}
	cfg := reflect.ValueOf(&c.cfg).Elem()
	if owner == dataType {
		if c.cfg.Data == nil {
			return false
		}
		cfg = reflect.ValueOf(c.cfg.Data).Elem()
	}
	m := cfg.Field(field)
	return m.Kind() == reflect.Map && !m.IsNil() && m.MapIndex(reflect.ValueOf(name)).IsValid()
}

// wait finishes the work and returns the configuration, or the first
// reason the fast way gave up.
func (c *collector) wait() (*fastResult, error) {
	close(c.ch)
	c.wg.Wait()
	if c.failure != nil {
		return nil, c.failure
	}
	sort.Slice(c.sens, func(i, j int) bool { return pathKey(c.sens[i]) < pathKey(c.sens[j]) })
	return &fastResult{cfg: &c.cfg, sens: c.sens, trees: c.trees}, nil
}

// setProject checks and records the project name.
func (c *collector) setProject(v any) {
	t := c.fs.defs["#Config"].fields["project"].t
	if _, err := c.fs.check(t, v, nil); err != nil {
		c.fail(err)
		return
	}
	s, _ := v.(string)
	c.mu.Lock()
	c.cfg.Project = s
	c.mu.Unlock()
}

var errUnknownCollection = errors.New("not a collection of the schema")

var configType = reflect.TypeOf(schema.Config{})

func (c *collector) process(it item) error {
	if c.failed() {
		return nil
	}
	ct, err := c.collectionType(it.coll)
	if err != nil {
		return err
	}
	path := append(strings.Split(it.coll, "."), it.name)
	hcl := !it.cv.Exists() && it.dn == nil
	if _, err := c.fs.check(ct.key, it.name, nil); err != nil {
		if hcl {
			return c.refuse(it, err)
		}
		return err
	}
	var tree any
	var sens [][]string
	if it.cv.Exists() {
		// cue.Values may be used concurrently: workers export in parallel.
		raw, err := it.cv.MarshalJSON()
		if err != nil {
			return exportError{err}
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&tree); err != nil {
			return err
		}
	} else if it.dn != nil {
		if tree, err = c.direct.directValue(it.dn); err != nil {
			return err
		}
	} else {
		tree = ctyToGo(it.val, path, &sens)
	}
	var exported any // with definitions: the export as it was
	if c.closedCheck && it.cv.Exists() {
		exported = deepCopy(tree)
	}
	if tree, err = c.withDefaults(it, path, tree, &sens); err != nil {
		return err
	}
	out, err := c.fs.check(ct.t, tree, nil)
	if err != nil {
		if hcl {
			return c.refuse(it, err)
		}
		return err
	}
	// The collection is a map field of schema.Config (or of its Data),
	// by its json name.
	owner, field, ok := collectionField(it.coll)
	if !ok {
		return errUnknownCollection
	}
	mapType := owner.Field(field).Type
	dst := reflect.New(mapType.Elem().Elem()) // *schema.Sandbox, ...
	if err := assign(dst, out); err != nil {
		return fmt.Errorf("internal error: decoding %s.%s: %w", it.coll, it.name, err)
	}
	if it.cv.Exists() {
		markCUERefs(it.coll, it.name, dst.Interface(), it.cv)
		markDefaultCUERefs(it.coll, it.name, dst.Interface(), c.defaults)
	}
	if it.dn != nil {
		if err := markDirectRefs(it.coll, it.name, dst.Interface(), c.direct, it.dn); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trees != nil {
		c.trees[it.coll+"."+it.name] = deepCopy(out)
	}
	c.sens = append(c.sens, sens...)
	if exported != nil {
		c.added = append(c.added, additions(it, exported, out)...)
	}
	cfg := reflect.ValueOf(&c.cfg).Elem()
	if owner == dataType {
		if c.cfg.Data == nil {
			c.cfg.Data = &schema.Data{}
		}
		cfg = reflect.ValueOf(c.cfg.Data).Elem()
	}
	m := cfg.Field(field)
	if m.IsNil() {
		m.Set(reflect.MakeMap(mapType))
	}
	m.SetMapIndex(reflect.ValueOf(it.name), dst)
	return nil
}

var dataType = reflect.TypeOf(schema.Data{})

// refuse keeps the value of the HCL resource it, which the fast check
// refuses for err, for CUE to judge (refusedValue), and returns the
// refusal.
func (c *collector) refuse(it item, err error) error {
	c.mu.Lock()
	if c.refusedVals == nil {
		c.refusedVals = map[string]cty.Value{}
	}
	c.refusedVals[it.coll+"."+it.name] = it.val
	c.mu.Unlock()
	return fastRefusal{err}
}

// refusedValue is, once wait has returned, the value of the HCL resource
// name of collection coll the fast check refused, if it checked it.
func (c *collector) refusedValue(coll, name string) (cty.Value, bool) {
	v, ok := c.refusedVals[coll+"."+name]
	return v, ok
}

// errDefaults sends a configuration whose defaults do not apply to the
// way that reports it (the languages' own checks).
var errDefaults = errors.New("shared defaults do not apply")

// withDefaults merges the shared defaults a resource takes into its tree.
func (c *collector) withDefaults(it item, path []string, tree any, sens *[][]string) (any, error) {
	if c.defaults == nil {
		return tree, nil
	}
	switch {
	case it.dn != nil:
		// The direct way loads no project that declares defaults.
	case !it.cv.Exists():
		tree = c.defaults.mergeCopies(tree, path, hclRefOf)
	case c.defaults.declared():
		// Issue 13: only when there are defaults to merge, as CUE's own
		// way (applyAllDefaults) does: finding CUE's references costs a
		// lookup per struct of every resource.
		tree = c.defaults.mergeCopies(tree, path, cueRefOf(it.cv, path))
	}
	k, ok := isDefaultKind(it.coll)
	m, isMap := tree.(map[string]any)
	if !ok || !isMap {
		return tree, nil
	}
	out, moved, ds := c.defaults.apply(k, path, m, nowhere{})
	if ds.HasErrors() {
		return nil, errDefaults
	}
	*sens = append(*sens, moved...)
	return out, nil
}

// nowhere is a locator that positions nothing.
type nowhere struct{}

func (nowhere) at([]string) *diag.Range  { return nil }
func (nowhere) key([]string) *diag.Range { return nil }

// collectionType is the type of a collection's entries: "sandboxes", or a
// collection of data sources, "data.volumes" (issue 10).
func (c *collector) collectionType(coll string) (spattern, error) {
	t := c.fs.defs["#Config"]
	for _, part := range strings.Split(coll, ".") {
		f := t.fields[part]
		if f == nil {
			return spattern{}, errUnknownCollection
		}
		t = c.fs.resolve(f.t)
	}
	if len(t.patterns) != 1 {
		return spattern{}, errUnknownCollection
	}
	return t.patterns[0], nil
}

// collectionField finds a collection's map field: in schema.Config, or
// for "data.volumes" in schema.Data.
func collectionField(coll string) (reflect.Type, int, bool) {
	owner := configType
	if rest, ok := strings.CutPrefix(coll, "data."); ok {
		owner, coll = dataType, rest
	}
	field, ok := fieldsOf(owner)[coll]
	return owner, field, ok
}

// sameConfig compares the fast way's configuration with CUE's, for
// crossCheck.
func sameConfig(fast *schema.Config, slowJSON []byte, mark func(*schema.Config)) error {
	var slow schema.Config
	if err := decodeConfig(slowJSON, &slow); err != nil {
		return err
	}
	if mark != nil {
		mark(&slow)
	}
	a, err := json.Marshal(fast)
	if err != nil {
		return err
	}
	b, err := json.Marshal(&slow)
	if err != nil {
		return err
	}
	return sameJSON(a, b)
}
