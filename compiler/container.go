package compiler

import (
	"strconv"

	"cc.dev/cc/schema"
)

// container compiles one container: a sandbox's field groups plus its
// ports, health check and restart policy, which are plain values.
func (b *builder) container(name string) {
	c := b.cfg.Containers[name]
	path := []string{"containers", name}
	var deps []string
	spec := schema.ContainerSpec{ContainerSettings: c.ContainerSettings}
	b.checkResources(c.Resources, appendPath(path, "resources"))
	spec.Image = b.workloadImage(c.Image, path, &deps)
	spec.Env, spec.EnvFrom = b.environment(c.Env, c.EnvFrom, path, &deps)
	spec.Credentials = b.credentials(c.Credentials, appendPath(path, "credentials"), &deps)
	spec.VolumeMounts = b.volumeMounts(c.VolumeMounts, appendPath(path, "volume_mounts"), &deps)
	var inputs []schema.Input
	spec.MountedFiles = b.mountedFiles(c.MountedFiles, appendPath(path, "mounted_files"), &inputs)
	spec.Command, spec.Args = foldProcess(c.Command, c.Process)
	b.emit(schema.KindContainer, name, withExtra(spec, c.Extra), deps, inputs)
}

// container checks what spans a container's fields: a port listed once,
// a health check probing one way, on a port the container listens on,
// and exposed ports it listens on.
func (c *checker) container(ct *schema.Container, path []string) {
	c.process(ct.Command, ct.Process, path)
	c.network(ct.Network, appendPath(path, "network"))
	listens := map[int]bool{}
	seen := map[schema.ContainerPort]int{}
	for i, p := range ct.Ports {
		pp := appendPath(path, "ports", strconv.Itoa(i))
		if j, dup := seen[p]; dup {
			c.related(pp, appendPath(path, "ports", strconv.Itoa(j)), "ports: %d/%s is listed twice", p.Port, p.Protocol)
		}
		seen[p] = i
		listens[p.Port] = true
	}
	if h := ct.HealthCheck; h != nil {
		hp := appendPath(path, "health_check")
		switch {
		case h.HTTPPath == "" && len(h.Command) == 0:
			c.errorf(hp, "health_check: set http_path (an HTTP GET) or command (run in the container)")
		case h.HTTPPath != "" && len(h.Command) > 0:
			c.errorf(appendPath(hp, "command"), "health_check: set http_path or command, not both")
		case h.HTTPPath != "" && h.Port == 0:
			c.errorf(appendPath(hp, "http_path"), "health_check: http_path needs the port to probe")
		case h.Port != 0 && len(ct.Ports) > 0 && !listens[h.Port]:
			c.errorf(appendPath(hp, "port"), "health_check: port %d is not one of the container's ports", h.Port)
		}
	}
	if n := ct.Network; n != nil && len(ct.Ports) > 0 {
		for i, p := range n.ExposedPorts {
			if !listens[p] {
				c.errorf(appendPath(path, "network", "exposed_ports", strconv.Itoa(i)), "network: port %d is exposed but is not one of the container's ports", p)
			}
		}
	}
}
