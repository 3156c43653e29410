package source_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/source"
)

// For each Flux Kustomization of the example, the objects webhooklint
// builds are those `flux build kustomization --dry-run` builds from the
// same folder: same kinds, namespaces and names, and the same substituted
// webhook timeout. It needs the flux CLI, which cannot be installed from
// the Go proxy, apt or npm alone here: the test skips without it.
func TestFluxBuildEquivalence(t *testing.T) {
	// simulate reads the entries' units too: the webhook as Flux applies it.
	units, err := source.Units([]string{fluxExample}, nil, "", nil, 1, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(units, func(u source.Unit) bool { return u.Label == "Flux Kustomization flux-system/infra-controllers" })
	if i < 0 || units[i].Problem != nil {
		t.Fatalf("no infra-controllers unit: %+v", units)
	}
	var applied bool
	for _, f := range units[i].Files {
		for _, d := range f.Docs {
			if c := d.Config; c != nil && len(c.Webhooks) == 1 {
				w := c.Webhooks[0]
				applied = w.TimeoutSeconds != nil && *w.TimeoutSeconds == 45 && w.FailurePolicy != nil && string(*w.FailurePolicy) == "Fail"
			}
		}
	}
	if !applied {
		t.Errorf("the unit's webhook is not the substituted one (timeout 45 from substitute, Fail from the ConfigMap)")
	}
	flux, err := exec.LookPath("flux")
	if err != nil {
		t.Skip("flux CLI not on PATH: the equivalence with `flux build kustomization` is not checked")
	}
	for _, ks := range []struct{ name, file, path string }{
		{"infra-controllers", "clusters/production/infrastructure.yaml", "infrastructure/controllers"},
		{"apps", "clusters/production/apps.yaml", "apps/production"},
	} {
		i := slices.IndexFunc(units, func(u source.Unit) bool { return u.Label == "Flux Kustomization flux-system/"+ks.name })
		if i < 0 {
			t.Fatalf("no unit for Kustomization %s", ks.name)
		}
		var ours []string
		for _, f := range units[i].Files {
			for _, d := range f.Docs {
				ours = append(ours, d.Kind+"/"+d.Namespace+"/"+d.Name)
			}
		}
		out, err := exec.Command(flux, "build", "kustomization", ks.name, "--dry-run",
			"--path", filepath.Join(fluxExample, ks.path), "--kustomization-file", filepath.Join(fluxExample, ks.file)).Output()
		if err != nil {
			t.Fatalf("flux build kustomization %s: %v", ks.name, err)
		}
		var theirs []string
		dec := yaml.NewDecoder(bytes.NewReader(out))
		for {
			var o struct {
				Kind     string `yaml:"kind"`
				Metadata struct{ Name, Namespace string }
			}
			if dec.Decode(&o) != nil {
				break
			}
			if o.Kind != "" {
				theirs = append(theirs, o.Kind+"/"+o.Metadata.Namespace+"/"+o.Metadata.Name)
			}
		}
		slices.Sort(ours)
		slices.Sort(theirs)
		if !slices.Equal(ours, theirs) {
			t.Errorf("%s: webhooklint builds %v, flux builds %v", ks.name, ours, theirs)
		}
		if ks.name == "infra-controllers" && !strings.Contains(string(out), "timeoutSeconds: 45") {
			t.Errorf("flux did not substitute guard_timeout as webhooklint does:\n%s", out)
		}
	}
}
