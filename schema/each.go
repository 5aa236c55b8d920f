package schema

import (
	"maps"
	"slices"
)

// Each calls f for every resource c declares, images included, in Kinds
// order and by name within a kind: the one list of a configuration's
// collections that code walking all of them uses.
func (c *Config) Each(f func(k Kind, name string, r any)) {
	eachIn(c.Images, KindImage, f)
	eachIn(c.Secrets, KindSecret, f)
	eachIn(c.Volumes, KindVolume, f)
	eachIn(c.Datasets, KindDataset, f)
	eachIn(c.Suites, KindSuite, f)
	eachIn(c.Functions, KindFunction, f)
	eachIn(c.Sandboxes, KindSandbox, f)
	eachIn(c.Containers, KindContainer, f)
	eachIn(c.ScalingGroups, KindScalingGroup, f)
	eachIn(c.Trainings, KindTraining, f)
	eachIn(c.Evaluations, KindEvaluation, f)
}

func eachIn[T any](m map[string]*T, k Kind, f func(Kind, string, any)) {
	for _, n := range slices.Sorted(maps.Keys(m)) {
		f(k, n, m[n])
	}
}

// Lifecycled is a resource that takes a lifecycle block: every kind but
// images.
type Lifecycled interface {
	// LifecycleOf is its lifecycle block, nil when it has none.
	LifecycleOf() *Lifecycle
}

func (r *Secret) LifecycleOf() *Lifecycle       { return r.Lifecycle }
func (r *Volume) LifecycleOf() *Lifecycle       { return r.Lifecycle }
func (r *Dataset) LifecycleOf() *Lifecycle      { return r.Lifecycle }
func (r *Suite) LifecycleOf() *Lifecycle        { return r.Lifecycle }
func (r *Function) LifecycleOf() *Lifecycle     { return r.Lifecycle }
func (r *Sandbox) LifecycleOf() *Lifecycle      { return r.Lifecycle }
func (r *Container) LifecycleOf() *Lifecycle    { return r.Lifecycle }
func (r *ScalingGroup) LifecycleOf() *Lifecycle { return r.Lifecycle }
func (r *Training) LifecycleOf() *Lifecycle     { return r.Lifecycle }
func (r *Evaluation) LifecycleOf() *Lifecycle   { return r.Lifecycle }

// Workload is a resource that runs an image: a sandbox, function,
// container, scaling group or training.
type Workload interface {
	// ImageOf is the image it runs, nil when it names none.
	ImageOf() *Image
}

func (r *Function) ImageOf() *Image     { return r.Image }
func (r *Sandbox) ImageOf() *Image      { return r.Image }
func (r *Container) ImageOf() *Image    { return r.Image }
func (r *ScalingGroup) ImageOf() *Image { return r.Image }
func (r *Training) ImageOf() *Image     { return r.Image }
