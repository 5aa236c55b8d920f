package compiler

import (
	"encoding/json"
	"strings"
	"testing"
)

// instancesHCL declares three for_each sandboxes, two count volumes and
// an image whose steps come from a dynamic block (issue 12: reuse).
const instancesHCL = `
project = "inst"

variable "workers" {
  default = { a = "1", b = "2", c = "3" }
}

image "base" {
  from = "python:3.12-slim"
  dynamic "apt" {
    for_each = ["git", "curl"]
    iterator = pkg
    content { packages = [pkg.value] }
  }
}

volume "cache" {
  count = 2
  size  = "${count.index + 1}Gi"
}

sandbox "worker" {
  for_each = var.workers
  image    = image.base
  command  = ["sleep", each.value]
  env      = { NAME = each.key }
}
`

// TestForEachCountInstances checks the addresses of for_each and count
// instances and that each instance's body sees its own key (issue 12:
// reuse).
func TestForEachCountInstances(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": instancesHCL})
	d := compileOK(t, dir, Input{})
	var addrs []string
	for _, r := range d.Resources {
		addrs = append(addrs, r.Address)
	}
	got := strings.Join(addrs, " ")
	for _, want := range []string{`sandbox.worker["a"]`, `sandbox.worker["b"]`, `sandbox.worker["c"]`, `volume.cache[0]`, `volume.cache[1]`} {
		if !strings.Contains(got, want) {
			t.Errorf("addresses %s lack %s", got, want)
		}
	}
	b := d.Lookup(`sandbox.worker["b"]`)
	if b == nil {
		t.Fatal("no sandbox.worker[\"b\"]")
	}
	spec, _ := json.Marshal(b.Spec)
	if !strings.Contains(string(spec), `"sleep","2"`) || !strings.Contains(string(spec), `"NAME":"b"`) {
		t.Errorf("worker b's spec = %s", spec)
	}
}
