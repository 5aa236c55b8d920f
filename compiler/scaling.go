package compiler

import (
	"strconv"

	"cc.dev/cc/schema"
)

// scalingGroup compiles the scaling group name (issue 11: scaling
// groups): its image, environment, credentials and mounts as a sandbox's,
// every other field carried from the configuration as it is.
func (b *builder) scalingGroup(name string) {
	g := b.cfg.ScalingGroups[name]
	path := []string{"scaling_groups", name}
	var deps []string
	spec := schema.ScalingGroupSpec{Resources: g.Resources, Network: g.Network, Ports: g.Ports}
	b.checkResources(g.Resources, appendPath(path, "resources"))
	spec.Image = b.workloadImage(g.Image, path, &deps)
	spec.Env, spec.EnvFrom = b.environment(g.Env, g.EnvFrom, path, &deps)
	spec.Credentials = b.credentials(g.Credentials, appendPath(path, "credentials"), &deps)
	spec.VolumeMounts = b.volumeMounts(g.VolumeMounts, appendPath(path, "volume_mounts"), &deps)
	spec.Command, spec.Args = foldProcess(g.Command, g.Process)
	b.emit(schema.KindScalingGroup, name, withExtra(spec, g.Extra), deps, nil)
}

// scalingGroup checks a scaling group where it is declared: its image,
// its process, its network and its ports, each listed once.
func (c *checker) scalingGroup(g *schema.ScalingGroup, path []string) {
	c.process(g.Command, g.Process, path)
	c.network(g.Network, appendPath(path, "network"))
	seen := map[int]int{}
	for i, p := range g.Ports {
		if j, dup := seen[p]; dup {
			c.related(appendPath(path, "ports", strconv.Itoa(i)), appendPath(path, "ports", strconv.Itoa(j)),
				"ports: port %d is listed twice", p)
			continue
		}
		seen[p] = i
	}
}
