package lint_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// TestRuleDocExamples lints every rule's documented examples with the real
// loader, so the docs, --explain and SARIF help cannot drift from the code:
// the Bad example must raise its rule and the Good one must stay clean of
// it, and both must be input a user can copy (no YAML or schema error).
// Fragments (rules.Examples.Fragment: bad.fragment.yaml) are excerpts and have
// to be YAML; those of a webhook configuration (a webhooks: list, a
// webhook's fields) are linted the same way in the whole configuration
// they stand in. The others are files of a tree the linter reads as a
// whole (a chart, a kustomization), objects that need the rest of their
// unit, or need a live cluster; a file listing (input-file) is not a
// manifest at all.
func TestRuleDocExamples(t *testing.T) {
	linted := 0
	for _, r := range rules.All() {
		ex := r.Examples()
		if ex.Bad == "" {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			switch {
			case ex.Lang != "yaml":
				t.Skipf("a %s example is not a manifest", ex.Lang)
			case ex.Fragment:
				for kind, src := range map[string]string{"Bad": ex.Bad, "Good": ex.Good} {
					if strings.Contains(src, "{{") {
						continue // a Helm template, YAML once rendered
					}
					var v any
					if err := yaml.Unmarshal([]byte(src), &v); err != nil {
						t.Errorf("the %s fragment is not YAML: %v", kind, err)
					}
				}
			}
			bad, good := ex.Bad, ex.Good
			if ex.Fragment {
				var whole bool
				if bad, whole = wholeConfiguration(bad); !whole || r.Category == rules.Live {
					return // a file of a tree (a chart, a kustomization), a unit's other objects, a cluster's state
				}
				good, _ = wholeConfiguration(good)
			}
			linted++
			if got := lintExample(t, r, "bad", bad); len(got) == 0 {
				t.Errorf("the Bad example does not raise %s:\n%s", r.Name, bad)
			}
			if got := lintExample(t, r, "good", good); len(got) != 0 {
				t.Errorf("the Good example raises %s:\n%s", r.Name, strings.Join(got, "\n"))
			}
		})
	}
	if linted == 0 {
		t.Error("no rule has an example that is linted")
	}
}

// wholeConfiguration makes a fragment of a webhook configuration a whole
// one, as a user would paste it: a webhooks: list gets the configuration's
// head, a webhook's fields (clientConfig, rules, a suppression comment…)
// also the list item they stand in. Other fragments (a tree's files, the
// other objects of a unit) are not a configuration.
func wholeConfiguration(fragment string) (string, bool) {
	if fileComment.MatchString(fragment) {
		return fragment, false
	}
	kind := "ValidatingWebhookConfiguration"
	if strings.Contains(fragment, "reinvocationPolicy:") {
		kind = "MutatingWebhookConfiguration"
	}
	head := "apiVersion: admissionregistration.k8s.io/v1\nkind: " + kind + "\nmetadata:\n  name: example\n"
	first := ""
	for _, line := range strings.Split(fragment, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			first, _, _ = strings.Cut(line, ":")
			break
		}
	}
	switch {
	case first == "webhooks":
		return head + fragment, true
	case webhookFields[first]:
		lines := strings.Split(strings.TrimSuffix(fragment, "\n"), "\n")
		for i, line := range lines {
			if line != "" {
				lines[i] = "  " + line
			}
		}
		return head + "webhooks:\n- name: check.example.com\n" + strings.Join(lines, "\n") + "\n", true
	}
	return fragment, false
}

// fileComment is the first line of a fragment that is a file of a tree:
// "# config/webhook/manifests.yaml".
var fileComment = regexp.MustCompile(`^# [\w./-]+\.ya?ml\b`)

// suppressed finds the rules a suppression comment names: they run with
// the rule, since whether the suppression is used depends on them.
var suppressed = regexp.MustCompile(`webhooklint:ignore ([a-z0-9-]+)`)

// webhookFields are the fields of a webhook a fragment can start with.
var webhookFields = map[string]bool{
	"clientConfig": true, "rules": true, "failurePolicy": true, "matchPolicy": true,
	"namespaceSelector": true, "objectSelector": true, "sideEffects": true,
	"timeoutSeconds": true, "admissionReviewVersions": true, "matchConditions": true,
	"reinvocationPolicy": true,
}

// lintExample lints one example with r and the loader's input checks on,
// and returns r's findings ("line:column: message"). An input error the
// example does not exist to show fails the test.
func lintExample(t *testing.T, r *rules.Rule, kind, src string) []string {
	t.Helper()
	settings := rules.DefaultSettings()
	settings.Now = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) // as the fixtures
	input := map[string]bool{r.Name: true, rules.YAMLSyntaxRule: true, rules.SchemaRule: true}
	for _, m := range suppressed.FindAllStringSubmatch(src, -1) {
		input[m[1]] = true
	}
	res := lint.LintUnit(lint.Unit{Files: []*manifest.File{manifest.Parse(r.Name+"/"+kind+".yaml", []byte(src))}}, lint.Options{
		Settings: settings,
		Enabled:  func(name string) bool { return input[name] },
	})
	for _, e := range res.Internal {
		t.Errorf("%s example: %v", kind, e)
	}
	var got []string
	for _, d := range res.Diagnostics {
		if d.Rule != r.Name {
			t.Errorf("%s example: %d:%d: %s [%s]", kind, d.Line, d.Column, d.Message, d.Rule)
			continue
		}
		got = append(got, fmt.Sprintf("%d:%d: %s", d.Line, d.Column, d.Message))
	}
	return got
}
