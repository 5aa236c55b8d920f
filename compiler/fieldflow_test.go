package compiler

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

// fullConfig sets every field of the schema, each somewhere: the fields
// of a resource kind on the resources of that kind, inline copies standing
// for references (the compiler resolves them by content).
func fullConfig() map[string]any {
	inputs := []any{"output", "expected"}
	envSecret := map[string]any{"from_env": "A", "env_var": "A2"}
	svcSecret := map[string]any{"from_service": "shared.token"}
	volume := map[string]any{"size": "10Gi"}
	dataset := map[string]any{"files": []any{"data/g.csv"}, "format": "csv", "description": "goldens", "name": "Goldens_v1"}
	// issue 11: a suite, and inline tables by row and by column.
	suite := map[string]any{"title": "Nightly", "description": "every night"}
	rows := map[string]any{"rows": []any{map[string]any{"input": "a", "expected": "b"}}}
	columns := map[string]any{"columns": map[string]any{"input": []any{"a", "c"}, "expected": []any{"b", 1}}}
	resources := map[string]any{
		"requests": map[string]any{"cpu": "500m", "memory": "1Gi"},
		"limits":   map[string]any{"cpu": "1", "memory": "2Gi"},
		"gpu":      map[string]any{"count": 1, "type": "a100"},
	}
	mount := []any{map[string]any{"volume": volume, "path": "/data", "read_only": true}}
	fn := map[string]any{
		"image":           map[string]any{"from": pinnedBase},
		"source":          map[string]any{"paths": []any{"src"}, "include": []any{"**/*.py"}, "exclude": []any{"**/test_*"}},
		"handler":         "app.main:run",
		"env":             map[string]any{"PLAIN": "1", "SECRET": envSecret},
		"env_from":        []any{svcSecret},
		"resources":       resources,
		"volume_mounts":   mount,
		"timeout":         "60s",
		"retries":         2,
		"version_trigger": "rotated 2026-12-01",
		"scaling":         map[string]any{"min_replicas": 1, "max_replicas": 3, "concurrency": 4},
		// issue 11: the sandbox field groups a function takes.
		"identity":      true,
		"network":       map[string]any{"ingress_mode": "public", "exposed_ports": []any{8080}, "egress_mode": "none"},
		"mounted_files": []any{map[string]any{"src": "conf/app.toml", "path": "/etc/app.toml", "mode": "0640"}},
		"credentials":   []any{map[string]any{"hosts": []any{"api.example.com"}, "secret": svcSecret}},
		"tags":          []any{"team-a"},
		"annotations":   map[string]any{"owner": "me"},
		"profiles":      []any{"gpu"},
		"compute_class": "host",
		"description":   "runs the app",
		// issue 11: and the advanced sandbox options of seed B.
		"ports":    []any{map[string]any{"container_port": 8000, "host_port": 80, "protocol": "tcp"}},
		"s3_mount": map[string]any{"bucket": "fn-data", "prefix": "in/", "mount_path": "/mnt/s3", "read_only": true, "credentials": svcSecret},
		"snapshot": map[string]any{"mount_path": "/state", "size": "1Gi", "restore_from": "snap-2"},
	}
	sandbox := map[string]any{
		"image":         map[string]any{"from": pinnedBase},
		"command":       []any{"sleep", "infinity"},
		"resources":     resources,
		"env":           map[string]any{"PLAIN": "1", "SECRET": envSecret},
		"env_from":      []any{svcSecret},
		"credentials":   []any{map[string]any{"hosts": []any{"api.example.com"}, "secret": svcSecret}},
		"network":       map[string]any{"ingress_mode": "public", "exposed_ports": []any{8080}, "egress_mode": "none"},
		"volume_mounts": mount,
		"mounted_files": []any{map[string]any{"src": "conf/app.toml", "path": "/etc/app.toml", "mode": "0640"}},
		"snapshot":      map[string]any{"mount_path": "/work", "size": "1Gi", "restore_from": "snap-1"},
		"lifetime":      "2h",
		"tags":          []any{"team-a"},
		"annotations":   map[string]any{"owner": "me"},
		"identity":      true,
		// issue 11: the missing sandbox fields.
		"profiles":      []any{"gpu"},
		"runners":       []any{"runner-1"},
		"compute_class": "host",
		"ports":         []any{map[string]any{"container_port": 8080, "host_port": 80, "protocol": "tcp"}},
		"s3_mount":      map[string]any{"bucket": "team-data", "prefix": "runs/", "mount_path": "/mnt/s3", "read_only": true, "credentials": envSecret},
		"max_timeout":   "10m",
		"temp_dir":      "/scratch",
		"stop":          map[string]any{"grace_period": "30s", "snapshot_on_stop": true},
	}
	// issue 11: container, training
	container := map[string]any{
		"image":          map[string]any{"from": pinnedBase},
		"command":        []any{"serve"},
		"resources":      resources,
		"env":            map[string]any{"PLAIN": "1", "SECRET": envSecret},
		"env_from":       []any{svcSecret},
		"ports":          []any{map[string]any{"port": 8080, "protocol": "tcp"}},
		"health_check":   map[string]any{"http_path": "/healthz", "port": 8080, "interval": "15s", "timeout": "2s", "failure_threshold": 5},
		"restart_policy": "on_failure",
		"credentials":    []any{map[string]any{"hosts": []any{"api.example.com"}, "secret": svcSecret}},
		"network":        map[string]any{"ingress_mode": "public", "exposed_ports": []any{8080}, "egress_allow": []any{"*.example.com"}},
		"volume_mounts":  mount,
		"mounted_files":  []any{map[string]any{"src": "conf/app.toml", "path": "/etc/app.toml", "mode": "0640"}},
		"tags":           []any{"web"},
		"annotations":    map[string]any{"owner": "me"},
		"identity":       true,
	}
	probe := map[string]any{"image": map[string]any{"from": pinnedBase}, "health_check": map[string]any{"command": []any{"true"}}, "network": map[string]any{"egress_mode": "none"}}
	training := map[string]any{
		"image":          map[string]any{"from": pinnedBase},
		"command":        []any{"train"},
		"resources":      resources,
		"dataset_mounts": []any{map[string]any{"dataset": dataset, "path": "/data/goldens"}},
		"volume_mounts":  mount,
		"env":            map[string]any{"PLAIN": "1", "SECRET": svcSecret},
		"env_from":       []any{svcSecret},
	}
	scorers := []any{
		map[string]any{"exact_match": map[string]any{"inputs": inputs, "case_insensitive": true, "trim": false, "collapse_whitespace": true}},
		map[string]any{"levenshtein": map[string]any{"inputs": inputs, "case_insensitive": true}},
		map[string]any{"regex_match": map[string]any{"inputs": []any{"output"}, "pattern": "^ok", "full_match": true}},
		map[string]any{"contains": map[string]any{"inputs": inputs, "mode": "any", "case_insensitive": true}},
		map[string]any{"numeric_close": map[string]any{"inputs": inputs, "abs_tol": 0.5, "rel_tol": 0.25, "graded": true}},
		map[string]any{"string_similarity": map[string]any{"inputs": inputs, "method": "jaccard"}},
		map[string]any{"json_valid": map[string]any{"inputs": []any{"output"}}},
		map[string]any{"json_match": map[string]any{"inputs": inputs, "paths": []any{"a.b"}}},
		map[string]any{"embedding_similarity": map[string]any{"inputs": inputs, "model": "embed-1"}},
		map[string]any{"llm_judge": map[string]any{
			"name": "judge", "model": "gpt-x", "instructions": "grade it", "inputs": []any{"output"},
			"fields":     []any{map[string]any{"name": "score", "type": "float", "range": []any{0, 1}, "description": "how good"}},
			"api_key":    envSecret,
			"base_url":   "https://llm.example.com",
			"completion": map[string]any{"temperature": 0.5, "stop": []any{"\n\n"}, "extra": map[string]any{"k": true}},
			"prompt":     "grade {{output}}",
			"parse":      "json",
		}},
		map[string]any{"function": fn, "scores": []any{"relevance", "tone"}},
		map[string]any{"external_function": map[string]any{"version_id": "fn_v2"}},
		map[string]any{"external_function": map[string]any{"name": "brand"}, "scores": []any{"brand"}},
		map[string]any{"llm_judge": map[string]any{
			"name": "reply", "model": "gpt-x", "instructions": "grade it",
			"fields": []any{
				map[string]any{"name": "score", "type": "int"},
				map[string]any{"name": "verdict", "type": "enum", "values": []any{"pass", "fail"}},
				map[string]any{"name": "issues", "type": "list", "items": map[string]any{"type": "object",
					"fields": []any{map[string]any{"name": "tags", "type": "list", "items": map[string]any{"type": "enum", "values": []any{"x"}}}}}},
				map[string]any{"name": "marks", "type": "list", "items": map[string]any{"type": "list", "items": map[string]any{"type": "float", "range": []any{0, 1}}}},
				map[string]any{"name": "marks2", "type": "list", "items": map[string]any{"type": "float", "range": []any{0, 1}}},
				map[string]any{"name": "labels", "type": "list", "items": map[string]any{"type": "enum", "values": []any{"a", "b"}}},
				map[string]any{"name": "detail", "type": "object", "fields": []any{map[string]any{"name": "n", "type": "float", "range": []any{0, 2}}}},
			},
		}},
	}
	return map[string]any{
		"project": "p",
		"images": map[string]any{
			"base": map[string]any{
				"from": pinnedBase,
				"steps": []any{
					map[string]any{"apt": map[string]any{"packages": []any{"git"}}},
					map[string]any{"pip": map[string]any{"packages": []any{"numpy==2.1"}, "index_url": "https://pypi.example/simple", "extra_index_urls": []any{"https://extra.example/simple"}}},
					map[string]any{"pip_requirements": map[string]any{"file": "requirements.txt"}},
					map[string]any{"run": map[string]any{"commands": []any{"echo hi"}}},
					map[string]any{"copy": map[string]any{"src": "src", "dst": "/app", "mode": "0755"}},
					map[string]any{"env": map[string]any{"vars": map[string]any{"A": "1"}}},
					map[string]any{"workdir": map[string]any{"path": "/app"}},
					map[string]any{"dockerfile": map[string]any{"commands": []any{"EXPOSE 8080"}}},
				},
				"entrypoint": []any{"python"},
				"cmd":        []any{"-m", "app"},
				"user":       "1000",
				"platform":   "linux/amd64",
			},
			"layered": map[string]any{"from": map[string]any{"from": pinnedBase, "user": "2000"}},
			"built":   map[string]any{"from_dockerfile": "docker/Dockerfile"},
		},
		"secrets": map[string]any{
			"env":   envSecret,
			"svc":   svcSecret,
			"file":  map[string]any{"from_env_file": map[string]any{"path": "dev.env", "keys": []any{"K"}}},
			"integ": map[string]any{"from_integration": map[string]any{"name": "github", "keys": []any{"TOKEN"}}},
			"store": map[string]any{"from_store": map[string]any{"store": "vault", "name": "db", "field": "password"}},
		},
		"volumes":  map[string]any{"data": volume},
		"datasets": map[string]any{"goldens": dataset, "rows": rows, "columns": columns},
		"suites":   map[string]any{"nightly": suite},
		"functions": map[string]any{"fn": fn, "ranker": map[string]any{
			"image": map[string]any{"from": pinnedBase}, "source": map[string]any{"paths": []any{"src"}},
			"handler": "app.main:Ranker", "methods": []any{"rank", "score"},
			"network": map[string]any{"egress_allow": []any{"*.example.com"}},
		}},
		"sandboxes": map[string]any{
			"dev":   sandbox,
			"allow": map[string]any{"image": map[string]any{"from": pinnedBase}, "network": map[string]any{"egress_allow": []any{"*.example.com"}}},
			"entry": map[string]any{"image": map[string]any{"from": pinnedBase}, "entrypoint": []any{"python"}, "args": []any{"-m", "app"}},
			"args":  map[string]any{"image": map[string]any{"from": pinnedBase}, "args": []any{"--serve"}},
		},
		// issue 11: kinds parity: entrypoint and args beside command.
		"containers": map[string]any{"web": container, "probe": probe,
			"entry": map[string]any{"image": "python:3.12", "entrypoint": []any{"python"}, "args": []any{"-m", "app"}}},
		"trainings": map[string]any{"finetune": training,
			"entry": map[string]any{"image": "python:3.12", "entrypoint": []any{"python"}, "args": []any{"train.py"}}},
		// issue 11: scaling groups.
		"scaling_groups": map[string]any{"entry": map[string]any{
			"image": "python:3.12", "entrypoint": []any{"python"}, "args": []any{"-m", "app"},
		}, "worker": map[string]any{
			"image":   map[string]any{"from": pinnedBase},
			"network": map[string]any{"egress_mode": "none"},
		}, "api": map[string]any{
			"image":         map[string]any{"from": pinnedBase},
			"command":       []any{"serve"},
			"resources":     sandbox["resources"],
			"replicas":      map[string]any{"min": 2, "max": 4, "target_concurrency": 10},
			"env":           sandbox["env"],
			"env_from":      sandbox["env_from"],
			"credentials":   sandbox["credentials"],
			"network":       map[string]any{"ingress_mode": "public", "exposed_ports": []any{8080}, "egress_allow": []any{"api.example.com"}},
			"ports":         []any{8080, 9090},
			"volume_mounts": mount,
			"identity":      true,
			"tags":          []any{"a"},
			"annotations":   map[string]any{"k": "v"},
		}},
		"evaluations": map[string]any{
			"quality":    map[string]any{"dataset": dataset, "task": fn, "scorers": scorers, "suite": suite, "title": "Quality", "metadata": map[string]any{"k": "v"}},
			"by-name":    map[string]any{"dataset": dataset, "external_task": map[string]any{"name": "other"}, "scorers": []any{scorers[6]}},
			"by-version": map[string]any{"dataset": dataset, "external_task": map[string]any{"version_id": "v1"}, "scorers": []any{scorers[6]}},
		},
	}
}

var fullConfigFiles = map[string]string{
	"data/g.csv":        "input,expected\n1,2\n",
	"src/app/main.py":   "def run(): pass\n",
	"conf/app.toml":     "x = 1\n",
	"requirements.txt":  "numpy==2.1\n",
	"dev.env":           "K=v\n",
	"docker/Dockerfile": "FROM busybox\n",
}

// schemaPaths lists the field paths under def ("network/egress_allow",
// "steps/apt/packages"), not descending into another resource (a field
// of kind #Image, #Secret, #Volume, #Dataset or #Function holds a
// reference or a resource of its own, whose fields are that kind's).
func schemaPaths(s *schema.Schema, d *schema.Def, at string, out []string) []string {
	for _, f := range d.Fields {
		if f.Name == "$id" || (at == "" && f.Name == "lifecycle") {
			// A resource's lifecycle is in no spec, on purpose (issue 10:
			// lifecycle; TestLifecycleSameFromBothLanguages covers it).
			continue
		}
		p := strings.TrimPrefix(at+"/"+f.Name, "/")
		out = append(out, p)
		if schema.Kind(strings.ToLower(strings.TrimPrefix(f.Type, "#"))).Valid() {
			continue
		}
		// A recursive definition (issue 11: a judge field's fields) is
		// walked once: its fields below it are the same fields.
		if e := s.Elem(f); e != nil && !strings.Contains("/"+at+"/", "/"+f.Name+"/") {
			out = schemaPaths(s, e, p, out)
		}
	}
	return out
}

// leafPaths lists the paths of every leaf of plain data, list indices
// and map keys included.
func leafPaths(v any, at []string, out [][]string) [][]string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out = leafPaths(x, appendPath(at, k), out)
		}
	case []any:
		for i, x := range v {
			out = leafPaths(x, appendPath(at, itoa(i)), out)
		}
	default:
		out = append(out, at)
	}
	return out
}

// TestIssue16EveryFieldReachesTheSpec: a configuration that sets every
// field of the schema compiles, and every value it sets is in the compiled
// spec of its resource, under the same name, but where the spec holds a
// reference instead (issue 16 item 2). A field added to the schema fails
// the test until the configuration sets it; a field the compiler drops
// fails it then.
func TestIssue16EveryFieldReachesTheSpec(t *testing.T) {
	s := schema.Default()
	cfg := fullConfig()
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"main.cue": string(b)}
	for k, v := range fullConfigFiles {
		files[k] = v
	}
	dir := writeProject(t, files)
	d := compileOK(t, filepath.Join(dir, "main.cue"), Input{})
	for _, k := range schema.Kinds {
		coll, _ := cfg[k.Plural()].(map[string]any)
		set := map[string]bool{}
		for _, name := range sortedKeys(coll) {
			var spec any = specOf(t, d, schema.Address(k, name))
			for _, p := range leafPaths(coll[name], nil, nil) {
				set[withoutIndices(p)] = true
				sp, ok := specPath(k, p)
				if !ok {
					continue // a reference: the spec holds its address
				}
				if _, ok := schema.ValueAt(spec, schema.JoinPointer(sp)); !ok && !renamed(k, sp, spec) {
					t.Errorf("%s.%s: the config sets %s, which the compiled spec lacks", k, name, strings.Join(p, "."))
				}
			}
		}
		for _, p := range schemaPaths(s, s.Kind(k), "", nil) {
			if !covered(set, p) {
				t.Errorf("the schema's %s field %s is set by no %s of fullConfig; set it there", k, p, k)
			}
		}
	}
}

// renamed: an image based on another image of the project holds it as
// from_image; the entrypoint (and the args after it) of a sandbox, a
// container, a scaling group or a training are its command (issue 11).
func renamed(k schema.Kind, sp []string, spec any) bool {
	process := k == schema.KindSandbox || k == schema.KindContainer || k == schema.KindScalingGroup || k == schema.KindTraining
	if process && len(sp) > 0 && (sp[0] == "entrypoint" || sp[0] == "args") {
		_, ok := schema.ValueAt(spec, "/command")
		return ok
	}
	if k == schema.KindImage && len(sp) > 0 && sp[0] == "from" {
		_, ok := schema.ValueAt(spec, "/from_image")
		return ok
	}
	return false
}

func withoutIndices(p []string) string {
	var out []string
	for _, e := range p {
		if !isIndex(e) {
			out = append(out, e)
		}
	}
	return strings.Join(out, "/")
}

func covered(set map[string]bool, p string) bool {
	if set[p] {
		return true
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasPrefix(k, p+"/") {
			return true
		}
	}
	return false
}
