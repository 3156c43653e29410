package fix_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/fix"
)

// TestFixesAcrossStyles writes random configurations with the mistakes
// that have fixes, in every way YAML and JSON let them be written (block
// and flow lists, plain and quoted scalars, comments, CRLF line breaks,
// fields missing),
// and checks each fix as the corpus test does: applied alone it removes
// its finding, adds no error and keeps every other byte.
func TestFixesAcrossStyles(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	perRule := map[string]int{}
	for i := range 60 {
		text := randomConfig(r, i)
		name := filepath.Join(dir, fmt.Sprintf("c%d.yaml", i))
		testkit.WriteFile(t, name, []byte(text))
		before := lintFile(t, name)
		for _, d := range before {
			for _, f := range d.Fixes {
				after, err := fix.Apply([]byte(text), f.Edits)
				if err != nil {
					t.Fatal(err)
				}
				if err := outsideUnchanged([]byte(text), after, f.Edits); err != nil {
					t.Errorf("config %d: %s: %v", i, f.Message, err)
				}
				testkit.WriteFile(t, name, after)
				if _, err := sameOrBetter(before, oneDocument, lintFile(t, name), oneDocument, d); err != nil {
					t.Errorf("config %d: [%s] %q: %v\n%s\n--- fixed:\n%s", i, d.Rule, f.Message, err, text, after)
				}
				perRule[d.Rule]++
			}
		}
	}
	for _, rule := range []string{"review-versions", "review-versions-order", "timeout-range", "side-effects-value", "match-conditions"} {
		if perRule[rule] == 0 {
			t.Errorf("no %s fix made: the generator lost a case", rule)
		}
		t.Logf("%-24s %d fixes verified", rule, perRule[rule])
	}
}

func randomConfig(r *rand.Rand, i int) string {
	quote := func(s string) string {
		switch r.Intn(3) {
		case 0:
			return `"` + s + `"`
		case 1:
			return "'" + s + "'"
		}
		return s
	}
	comment := func() string {
		if r.Intn(3) == 0 {
			return " # note"
		}
		return ""
	}
	versions := [][]string{{"v1beta1", "v1"}, {"v1", "v1"}, {"v1", "v1beta1", "v1"}, {"v1beta1", "x1", "v1"}, {"v1"}}[r.Intn(5)]
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: c%d\nwebhooks:\n", i)
	b.WriteString("  - name: a.example.com\n")
	switch r.Intn(5) {
	case 0: // missing: the fix inserts it
	case 1, 2:
		quoted := make([]string, len(versions))
		for k, v := range versions {
			quoted[k] = quote(v)
		}
		fmt.Fprintf(&b, "    admissionReviewVersions: [%s]%s\n", strings.Join(quoted, ", "), comment())
	default:
		b.WriteString("    admissionReviewVersions:" + comment() + "\n")
		for _, v := range versions {
			fmt.Fprintf(&b, "      - %s%s\n", quote(v), comment())
		}
	}
	if r.Intn(5) > 0 { // else missing
		fmt.Fprintf(&b, "    sideEffects: %s%s\n", quote([]string{"None", "Some", "Unknown"}[r.Intn(3)]), comment())
	}
	fmt.Fprintf(&b, "    timeoutSeconds: %d%s\n", []int{0, 5, 31, 90}[r.Intn(4)], comment())
	b.WriteString("    failurePolicy: Ignore\n    clientConfig:\n      url: https://a.example.com/v\n")
	b.WriteString("    matchConditions:\n")
	for k := range 1 + r.Intn(3) {
		fmt.Fprintf(&b, "      - name: %s%s\n        expression: %s\n", quote([]string{"skip", "skip", "skip-2"}[r.Intn(3)]), comment(), quote(fmt.Sprintf("%d == %d", k, k)))
	}
	b.WriteString("    rules:\n      - operations: [CREATE]\n        apiGroups: [apps]\n        apiVersions: [v1]\n        resources: [deployments]\n        scope: Namespaced\n")
	text := b.String()
	if r.Intn(4) == 0 {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text
}

// oneDocument is documentLines of a file of one document.
func oneDocument(int) int { return 0 }
