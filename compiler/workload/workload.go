// Package workload generates projects of N resources in CUE and HCL, the
// same project in both, for benchmarks of compile, plan and apply.
//
// A project of N resources has exactly N resources: N/4 images (each
// built from a registry base with apt, pip and a copied file, so a few
// local files are shared by many; every image's content is distinct, so
// none merges into another), N/100 secrets (at least one), and sandboxes
// and functions for the rest, each using one of the images, an env map of
// literals and a secret reference, and functions a source directory.
// Options.ImageShare and Options.CopyBytes change the share of images and
// the size of the copied files.
package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Options shape a generated project.
type Options struct {
	// N is the number of resources.
	N int
	// Seed varies the content (a generation counter): the same N and Seed
	// give the same project.
	Seed int
	// Changed, when above 0, changes the images and functions whose index
	// is below it (their pip pins and env values), for "1% changed" runs.
	Changed int
	// ImageShare is the share of the N resources that are images, from 0
	// to 1; 0 means the default, a quarter.
	ImageShare float64
	// CopyBytes is the size of each of the local files the images copy;
	// 0 means a few bytes.
	CopyBytes int
}

// Counts is how many resources of each kind a project of n has.
type Counts struct {
	Images, Secrets, Sandboxes, Functions int
}

// CountsFor splits n resources among the kinds, a quarter of them images.
func CountsFor(n int) Counts { return countsFor(Options{N: n}) }

func countsFor(o Options) Counts {
	n, share := o.N, o.ImageShare
	if share <= 0 || share > 1 {
		share = 0.25
	}
	c := Counts{Images: max(int(float64(n)*share), 1), Secrets: max(n/100, 1)}
	c.Images = min(c.Images, max(n-c.Secrets, 1))
	rest := max(n-c.Images-c.Secrets, 0)
	c.Functions = rest / 2
	c.Sandboxes = rest - c.Functions
	return c
}

const (
	localFiles = 4 // files copied into images, shared
	sourceDirs = 3 // function source directories, shared
)

// Write writes the project into dir: main.cue and main.hcl side by side
// (compile one file by name), and the local files they use.
func Write(dir string, o Options) error {
	if err := writeFiles(dir, o); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.cue"), CUE(o), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.hcl"), HCL(o), 0o644)
}

func writeFiles(dir string, o Options) error {
	files := map[string]string{}
	for i := 0; i < localFiles; i++ {
		content := fmt.Sprintf("index: %d\nseed: %d\n", i, o.Seed)
		if pad := o.CopyBytes - len(content); pad > 0 {
			content += "# " + strings.Repeat("x", max(pad-3, 0)) + "\n"
		}
		files[fmt.Sprintf("files/config-%d.yaml", i)] = content
	}
	for i := 0; i < sourceDirs; i++ {
		files[fmt.Sprintf("src/svc%d/handler.py", i)] = fmt.Sprintf("def handle(x):\n    return x + %d\n", i)
		files[fmt.Sprintf("src/svc%d/util.py", i)] = "def noop():\n    pass\n"
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func pin(i int, o Options) string {
	v := 1 + (i+o.Seed)%20
	if i < o.Changed {
		v += 100
	}
	// i%50 and i%20 repeat every 100 images; the patch level i/100 makes
	// every image's pin, and so its content, distinct.
	return fmt.Sprintf("pkg%d==1.%d.%d", i%50, v, i/100)
}

func level(i int, o Options) string {
	if i < o.Changed {
		return "debug"
	}
	return "info"
}

// CUE returns the project's main.cue.
func CUE(o Options) []byte {
	c := countsFor(o)
	var b strings.Builder
	b.WriteString("package workload\n\nproject: \"workload\"\n\n")
	for i := 0; i < c.Images; i++ {
		fmt.Fprintf(&b, `images: "img-%d": {
	from: "python:3.12-slim"
	steps: [
		{apt: packages: ["curl"]},
		{pip: packages: [%q]},
		{copy: {src: "files/config-%d.yaml", dst: "/etc/app/config.yaml"}},
	]
	cmd: ["python", "-m", "app"]
}
`, i, pin(i, o), i%localFiles)
	}
	for i := 0; i < c.Secrets; i++ {
		fmt.Fprintf(&b, "secrets: \"key-%d\": from_env: \"KEY_%d\"\n", i, i)
	}
	for i := 0; i < c.Sandboxes; i++ {
		fmt.Fprintf(&b, `sandboxes: "box-%d": {
	image: images."img-%d"
	command: ["sleep", "infinity"]
	resources: requests: {cpu: "500m", memory: "1Gi"}
	env: {
		INDEX:     "%d"
		LOG_LEVEL: %q
		REGION:    "eu-west"
		API_KEY:   secrets."key-%d"
	}
}
`, i, i%c.Images, i, level(i, o), i%c.Secrets)
	}
	for i := 0; i < c.Functions; i++ {
		fmt.Fprintf(&b, `functions: "fn-%d": {
	image: images."img-%d"
	source: paths: ["src/svc%d"]
	handler: "handler:handle"
	env: {
		INDEX:     "%d"
		LOG_LEVEL: %q
		API_KEY:   secrets."key-%d"
	}
	timeout: "60s"
}
`, i, (i+1)%c.Images, i%sourceDirs, i, level(i, o), (i+1)%c.Secrets)
	}
	return []byte(b.String())
}

// HCL returns the project's main.hcl.
func HCL(o Options) []byte {
	c := countsFor(o)
	var b strings.Builder
	b.WriteString("project = \"workload\"\n\n")
	for i := 0; i < c.Images; i++ {
		fmt.Fprintf(&b, `image "img-%d" {
  from = "python:3.12-slim"
  apt { packages = ["curl"] }
  pip { packages = [%q] }
  copy {
    src = "files/config-%d.yaml"
    dst = "/etc/app/config.yaml"
  }
  cmd = ["python", "-m", "app"]
}
`, i, pin(i, o), i%localFiles)
	}
	for i := 0; i < c.Secrets; i++ {
		fmt.Fprintf(&b, "secret \"key-%d\" {\n  from_env = \"KEY_%d\"\n}\n", i, i)
	}
	for i := 0; i < c.Sandboxes; i++ {
		fmt.Fprintf(&b, `sandbox "box-%d" {
  image   = image.img-%d
  command = ["sleep", "infinity"]
  resources {
    requests {
      cpu    = "500m"
      memory = "1Gi"
    }
  }
  env = {
    INDEX     = "%d"
    LOG_LEVEL = %q
    REGION    = "eu-west"
    API_KEY   = secret.key-%d
  }
}
`, i, i%c.Images, i, level(i, o), i%c.Secrets)
	}
	for i := 0; i < c.Functions; i++ {
		fmt.Fprintf(&b, `function "fn-%d" {
  image   = image.img-%d
  source { paths = ["src/svc%d"] }
  handler = "handler:handle"
  env = {
    INDEX     = "%d"
    LOG_LEVEL = %q
    API_KEY   = secret.key-%d
  }
  timeout = "60s"
}
`, i, (i+1)%c.Images, i%sourceDirs, i, level(i, o), (i+1)%c.Secrets)
	}
	return []byte(b.String())
}
