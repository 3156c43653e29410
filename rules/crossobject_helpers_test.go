package rules

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"
)

// decodeConfig turns one YAML webhook configuration into a Config, as the
// loader does, for tests that do not need positions.
func decodeWebhookYAML(t *testing.T, doc string) *Config {
	t.Helper()
	var head struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
		t.Fatalf("decoding test input: %v", err)
	}
	switch head.Kind {
	case Validating:
		var o admissionv1.ValidatingWebhookConfiguration
		if err := yaml.UnmarshalStrict([]byte(doc), &o); err != nil {
			t.Fatalf("decoding test input: %v", err)
		}
		return FromValidating(head.APIVersion, &o)
	case Mutating:
		var o admissionv1.MutatingWebhookConfiguration
		if err := yaml.UnmarshalStrict([]byte(doc), &o); err != nil {
			t.Fatalf("decoding test input: %v", err)
		}
		return FromMutating(head.APIVersion, &o)
	}
	t.Fatalf("test input is a %q, not a webhook configuration", head.Kind)
	return nil
}

// runRule runs the named rule over one configuration and returns
// "path: message" lines.
func runRuleFindings(t *testing.T, name string, c *Config, in *Inventory, s *Settings) []string {
	t.Helper()
	var got []string
	NewPass(MustLookup(name), c, in, s, func(f Finding) {
		got = append(got, f.Severity.String()+" "+f.Path+": "+f.Message)
	}).Run()
	return got
}

func settingsForMinor(t *testing.T, minor int) *Settings {
	t.Helper()
	s := DefaultSettings()
	s.KubeVersion = KubeVersion{1, minor}
	return s
}

func expectFindings(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("finding %d:\n got  %s\n want substring %s", i, got[i], want[i])
		}
	}
}
