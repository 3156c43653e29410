package rules

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/webhooklint/webhooklint/internal/policytypes"
)

// Test support for the practice rules' unit tests: decode YAML manifests
// without the manifest loader (rules must not depend on it) and run one
// rule. The fixtures under testdata/rules are run by lint/fixtures_test.go.

// decodeTestConfigs decodes every webhook configuration in a YAML stream;
// other documents are skipped.
func decodeTestConfigs(t testing.TB, src string) []*Config {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(src)))
	var out []*Config
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading YAML: %v", err)
		}
		if c, ok := decodeWebhook(t, doc); ok {
			out = append(out, c)
		}
	}
}

// decodeTestConfig decodes one YAML webhook configuration.
func decodeTestConfig(t testing.TB, doc string) *Config {
	t.Helper()
	c, ok := decodeWebhook(t, []byte(doc))
	if !ok {
		t.Fatalf("test input is not a webhook configuration:\n%s", doc)
	}
	return c
}

// decodeWebhook is the one decoder of the rules' tests. It is strict: a
// misspelled field in a test's input fails the test rather than being
// dropped, as the loader would report it.
func decodeWebhook(t testing.TB, doc []byte) (*Config, bool) {
	t.Helper()
	var head struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal(doc, &head); err != nil {
		t.Fatalf("decoding test input: %v", err)
	}
	if !IsWebhookKind(head.APIVersion, head.Kind) {
		return nil, false
	}
	if head.Kind == Validating {
		var o admissionv1.ValidatingWebhookConfiguration
		if err := yaml.UnmarshalStrict(doc, &o); err != nil {
			t.Fatalf("decoding test input: %v", err)
		}
		return FromValidating(head.APIVersion, &o), true
	}
	var o admissionv1.MutatingWebhookConfiguration
	if err := yaml.UnmarshalStrict(doc, &o); err != nil {
		t.Fatalf("decoding test input: %v", err)
	}
	return FromMutating(head.APIVersion, &o), true
}

// runRuleOnConfigs runs the named rule over each configuration, with all of
// them as the input inventory, and returns the findings in order.
func runRuleOnConfigs(t testing.TB, name string, cs []*Config, s *Settings) [][]Finding {
	t.Helper()
	r := MustLookup(name)
	in := &Inventory{Configs: cs}
	out := make([][]Finding, len(cs))
	for i, c := range cs {
		NewPass(r, c, in, s, func(f Finding) { out[i] = append(out[i], f) }).Run()
	}
	return out
}

// runRuleOn is runRuleOnConfigs over a YAML stream, flattened.
func runRuleOn(t testing.TB, name, src string, s *Settings) []Finding {
	t.Helper()
	var all []Finding
	for _, fs := range runRuleOnConfigs(t, name, decodeTestConfigs(t, src), s) {
		all = append(all, fs...)
	}
	return all
}

// fixedNow is the clock of every practice-rule test.
var fixedNow = time.Date(2026, time.June, 1, 12, 0, 0, 0, time.UTC)

// testSettings are default settings with a fixed clock.
func testSettings() *Settings {
	s := DefaultSettings()
	s.Now = fixedNow
	s.TypeCheckPolicy = typeCheckPolicy
	return s
}

// typeCheckPolicy is what the linter hands the rules.
func typeCheckPolicy(vap *admissionv1.ValidatingAdmissionPolicy, schemas PolicySchemas) []admissionv1.ExpressionWarning {
	return policytypes.Check(vap, schemas)
}

func regexpMatch(re, s string) (bool, error) { return regexp.MatchString(re, s) }
