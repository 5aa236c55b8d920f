package schema

import (
	"strings"
	"testing"
)

// TestValidateSpec: issue 8 item 5. The service's check of a spec it is
// sent: valid specs of each kind pass, and each broken rule is refused
// with an error naming it.
func TestValidateSpec(t *testing.T) {
	img := "sha256:" + strings.Repeat("a", 64)
	for _, tt := range []struct {
		kind Kind
		spec string
		want string // "" for valid
	}{
		{KindVolume, `{"size":"20Gi"}`, ""},
		{KindVolume, `{"size":"0Gi"}`, "more than 0"},
		{KindVolume, `{"size":"big"}`, "not a quantity"},
		{KindVolume, `{"size":"1Gi","extra":1}`, "unknown field"},
		{KindVolume, `{"size":"1Gi"} {}`, "after the object"},
		{KindVolume, `null`, "JSON object"},
		{KindImage, `{"from":"busybox"}`, ""},
		{KindImage, `{}`, "exactly one of from"},
		{KindSecret, `{"from_env":"K"}`, ""},
		{KindSecret, `{"from_env":"K","from_service":"s"}`, "exactly one of"},
		{KindDataset, `{"files":[{"path":"a.csv","digest":"` + img + `"}],"format":"csv"}`, ""},
		{KindDataset, `{"files":[],"format":"csv"}`, "exactly one"},
		// issue 11: inline rows, platform names, suites, scorer extras.
		{KindDataset, `{"rows":[{"a":"1"},{"a":2}],"name":"support_goldens"}`, ""},
		{KindDataset, `{"rows":[{"a":"1"},{"b":2}]}`, "other columns"},
		{KindDataset, `{"rows":[{"a b":"1"}]}`, "not a column name"},
		{KindDataset, `{"rows":[{"a":"1"}],"name":"-x"}`, "not a platform name"},
		{KindSuite, `{"title":"Release","description":"d"}`, ""},
		{KindSuite, `{"description":"d"}`, "title"},
		{KindEvaluation, `{"dataset":{"ref":"dataset.d"},"scorers":[{"external_function":{"version_id":"fn_v2"},"scores":["a"]}],"suite":{"ref":"suite.s"},"title":"T"}`, ""},
		{KindEvaluation, `{"dataset":{"ref":"dataset.d"},"scorers":[],"suite":{"ref":"dataset.d"}}`, "not a suite"},
		{KindEvaluation, `{"dataset":{"ref":"dataset.d"},"scorers":[{"external_function":{}}]}`, "exactly one of name"},
		{KindEvaluation, `{"dataset":{"ref":"dataset.d"},"scorers":[{"exact_match":{"inputs":["a","b"],"case_insensitive":false,"trim":true,"collapse_whitespace":false},"scores":["a"]}]}`, "only a function scorer"},
		{KindEvaluation, `{"dataset":{"ref":"dataset.d"},"scorers":[{"llm_judge":{"model":"m","instructions":"i","inputs":["output"],"fields":[],"parse":"xml"}}]}`, "parse"},
		{KindSandbox, `{"image":"` + img + `","lifetime":"1h"}`, ""},
		{KindSandbox, `{"image":"` + img + `","lifetime":"a while"}`, "not a duration"},
		{KindSandbox, `{"image":"` + img + `","env":{"K":{"ref":"volume.v"}}}`, "not a secret"},
		{KindFunction, `{"image":"` + img + `","source":{"paths":["src"],"digest":"` + img + `"},"handler":"m.run","timeout":"300s","retries":0}`, ""},
		{KindFunction, `{"image":"` + img + `","source":{"paths":["src"],"digest":"` + img + `"},"handler":"m.run","timeout":"300s","retries":11}`, "retries"},
		{KindFunction, `{"image":"` + img + `","source":{"paths":[],"digest":"` + img + `"},"handler":"m.run","timeout":"300s","retries":0}`, "source.paths"},
		{KindEvaluation, `{"dataset":{"ref":"dataset.d"},"scorers":[]}`, ""},
		{KindEvaluation, `{"dataset":{"ref":"function.f"},"scorers":[]}`, "not a dataset"},
		{Kind("widget"), `{}`, "unknown kind"},
	} {
		err := ValidateSpec(tt.kind, []byte(tt.spec))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateSpec(%s, %s) = %v, want nil", tt.kind, tt.spec, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ValidateSpec(%s, %s) = %v, want an error with %q", tt.kind, tt.spec, err, tt.want)
		}
	}
}

// TestSpecRefs: the references of a spec, sorted and unique, each of the
// kind its field takes.
func TestSpecRefs(t *testing.T) {
	img := "sha256:" + strings.Repeat("a", 64)
	spec := `{"image":"` + img + `","env":{"A":{"ref":"secret.b"},"B":"ref"},"env_from":[{"ref":"secret.a"},{"ref":"secret.b"}],` +
		`"volume_mounts":[{"volume":{"ref":"volume.v"},"path":"/data"}],"annotations":{"ref":"secret.x"}}`
	got, err := SpecRefs(KindSandbox, []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"secret.a", "secret.b", "volume.v"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("SpecRefs() = %v, want %v", got, want)
	}
}

// TestValidateContainerTrainingSpecs: the service's check of container
// and training specs refuses each broken rule, naming it (issue 11:
// container, training).
func TestValidateContainerTrainingSpecs(t *testing.T) {
	img := "sha256:" + strings.Repeat("a", 64)
	ct := func(rest string) string { return `{"image":"` + img + `","restart_policy":"always"` + rest + `}` }
	hc := func(h string) string {
		return ct(`,"ports":[{"port":8080,"protocol":"tcp"}],"health_check":{` + h + `}`)
	}
	tr := func(rest string) string { return `{"image":"` + img + `"` + rest + `}` }
	for _, tt := range []struct {
		kind Kind
		spec string
		want string // "" for valid
	}{
		{KindContainer, ct(``), ""},
		{KindContainer, `{"image":"` + img + `","restart_policy":"sometimes"}`, "restart_policy"},
		{KindContainer, `{"image":"` + img + `"}`, "restart_policy"},
		{KindContainer, ct(`,"ports":[{"port":0,"protocol":"tcp"}]`), "ports[0].port 0"},
		{KindContainer, ct(`,"ports":[{"port":53,"protocol":"sctp"}]`), "ports[0].protocol"},
		{KindContainer, ct(`,"ports":[{"port":53,"protocol":"udp"},{"port":53,"protocol":"udp"}]`), "listed twice"},
		{KindContainer, ct(`,"ports":[{"port":53}]`), "ports[0].protocol"},
		{KindContainer, hc(`"http_path":"/healthz","port":8080,"interval":"10s","timeout":"5s","failure_threshold":3`), ""},
		{KindContainer, hc(`"command":["true"],"interval":"10s","timeout":"5s","failure_threshold":3`), ""},
		{KindContainer, hc(`"interval":"10s","timeout":"5s","failure_threshold":3`), "exactly one of http_path and command"},
		{KindContainer, hc(`"http_path":"/healthz","interval":"10s","timeout":"5s","failure_threshold":3`), "needs"},
		{KindContainer, hc(`"command":["true"],"interval":"often","timeout":"5s","failure_threshold":3`), "health_check.interval"},
		{KindContainer, hc(`"command":["true"],"interval":"10s","timeout":"5s","failure_threshold":0`), "failure_threshold"},
		{KindContainer, ct(`,"credentials":[{"hosts":["a.com"],"secret":{"ref":"volume.v"}}]`), "not a secret"},
		{KindContainer, ct(`,"probe":1`), "unknown field"},
		{KindTraining, tr(`,"dataset_mounts":[{"dataset":{"ref":"dataset.d","hash":"` + img + `"},"path":"/data"}]`), ""},
		{KindTraining, tr(`,"dataset_mounts":[{"dataset":{"ref":"volume.d"},"path":"/data"}]`), "not a dataset"},
		{KindTraining, tr(`,"dataset_mounts":[{"dataset":{"ref":"dataset.d"},"path":"data"}]`), "not absolute"},
		{KindTraining, tr(`,"dataset_mounts":[{"dataset":{"ref":"dataset.d"},"path":"/d"},{"dataset":{"ref":"dataset.e"},"path":"/d"}]`), "two datasets"},
		{KindTraining, tr(`,"resources":{"gpu":{"count":0}}`), "gpu.count"},
		{KindTraining, `{"image":"busybox"}`, "not an image's hash"},
	} {
		err := ValidateSpec(tt.kind, []byte(tt.spec))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateSpec(%s, %s) = %v, want nil", tt.kind, tt.spec, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ValidateSpec(%s, %s) = %v, want an error with %q", tt.kind, tt.spec, err, tt.want)
		}
	}
}
