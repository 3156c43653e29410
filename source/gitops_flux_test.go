package source_test

import (
	"bytes"
	"os"
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
// webhook timeout. It needs the flux CLI, which hack/flux-cli.sh builds
// from the module proxy (.ci/run puts it on PATH), and skips without it,
// except under CI=true, where it fails. Flux's dry run reads no
// substituteFrom object (they are in the cluster), so values from
// ConfigMaps are left to their defaults there and are not compared.
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
		// CI builds it (hack/flux-cli.sh, from .ci/run): there a missing
		// flux is a broken setup, not a machine without it.
		if os.Getenv("CI") == "true" {
			t.Fatal("flux CLI not on PATH with CI=true: .ci/run puts hack/flux-cli.sh's build there")
		}
		t.Skip("flux CLI not on PATH: the equivalence with `flux build kustomization` is not checked (hack/flux-cli.sh builds it)")
	}
	ordering, err := source.Units([]string{fluxOrdering}, nil, "", nil, 1, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range []struct {
		units                  []source.Unit
		root, name, file, path string
		// want is what flux writes that the build must hold: a value of
		// substitute, of an overlay's patch.
		want string
	}{
		{units, fluxExample, "infra-controllers", "clusters/production/infrastructure.yaml", "infrastructure/controllers", "timeoutSeconds: 45"},
		{units, fluxExample, "apps", "clusters/production/apps.yaml", "apps/production", "replicas: 1"},
		{units, fluxExample, "apps", "clusters/staging/apps.yaml", "apps/staging", "timeoutSeconds: 45"},
		{ordering, fluxOrdering, "infra-controllers", "clusters/production/infrastructure.yaml", "infrastructure/controllers", ""},
		{ordering, fluxOrdering, "infra-configs", "clusters/production/infrastructure.yaml", "infrastructure/configs", ""},
	} {
		out, err := exec.Command(flux, "build", "kustomization", ks.name, "--dry-run",
			"--path", filepath.Join(ks.root, ks.path), "--kustomization-file", filepath.Join(ks.root, ks.file)).Output()
		if err != nil {
			t.Fatalf("flux build kustomization %s: %v", ks.name, err)
		}
		if !strings.Contains(string(out), ks.want) {
			t.Errorf("%s: flux's build does not hold %q:\n%s", ks.path, ks.want, out)
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
		slices.Sort(theirs)
		// Two clusters' Kustomizations may share a name (apps): one of the
		// units so labeled builds what flux builds.
		var built [][]string
		for _, u := range ks.units {
			if u.Label != "Flux Kustomization flux-system/"+ks.name {
				continue
			}
			var ours []string
			for _, f := range u.Files {
				for _, d := range f.Docs {
					ours = append(ours, d.Kind+"/"+d.Namespace+"/"+d.Name)
				}
			}
			slices.Sort(ours)
			built = append(built, ours)
		}
		if !slices.ContainsFunc(built, func(ours []string) bool { return slices.Equal(ours, theirs) }) {
			t.Errorf("%s: webhooklint builds %v, flux builds %v", ks.path, built, theirs)
		}
	}
}
