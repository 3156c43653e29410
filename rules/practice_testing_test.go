package rules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

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
		if c := decodeTestConfig(t, doc); c != nil {
			out = append(out, c)
		}
	}
}

func decodeTestConfig(t testing.TB, doc []byte) *Config {
	t.Helper()
	js, err := utilyaml.ToJSON(doc)
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	if len(bytes.TrimSpace(js)) == 0 || string(bytes.TrimSpace(js)) == "null" {
		return nil
	}
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(js, &head); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if !IsWebhookKind(head.APIVersion, head.Kind) {
		return nil
	}
	if head.Kind == Validating {
		var o admissionv1.ValidatingWebhookConfiguration
		if err := json.Unmarshal(js, &o); err != nil {
			t.Fatalf("decoding %s: %v", head.Kind, err)
		}
		return FromValidating(head.APIVersion, &o)
	}
	var o admissionv1.MutatingWebhookConfiguration
	if err := json.Unmarshal(js, &o); err != nil {
		t.Fatalf("decoding %s: %v", head.Kind, err)
	}
	return FromMutating(head.APIVersion, &o)
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
