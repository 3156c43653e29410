package cli

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/fix"
)

// sourceBase is a kustomize base with a webhook whose fields several
// rules fix: no sideEffects, review versions out of order with a
// duplicate, a timeout out of range.
const sourceBase = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo
webhooks:
  - name: check.example.com
    clientConfig:
      url: https://example.com/check
    rules:
      - operations: ["CREATE"]
        apiGroups: ["apps"]
        apiVersions: ["v1"]
        resources: ["deployments"]
    failurePolicy: Ignore
    admissionReviewVersions: ["v1beta1", "v1", v1]
  - name: other.example.com
    clientConfig:
      url: https://example.com/other
    sideEffects: None
    failurePolicy: Ignore
    admissionReviewVersions: [v1]
    timeoutSeconds: 60 # the base's
`

// sourcePatch sets the second webhook's timeout, out of range, in an
// overlay's strategic-merge patch.
const sourcePatch = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo
webhooks:
  - name: other.example.com
    timeoutSeconds: 45 # the overlay's
`

// chartValues and chartTemplate make a chart whose webhook takes its
// sideEffects and, for one webhook, its timeout from values as they are,
// and writes the other's sideEffects literally.
const (
	chartValues = `webhook:
  # how long the API server waits
  timeout: 45
  sideEffects: "Some"
`
	chartTemplate = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: {{ .Release.Name }}-demo
webhooks:
  - name: check.example.com
    clientConfig:
      url: https://example.com/check
    rules:
      - operations: ["CREATE"]
        apiGroups: ["apps"]
        apiVersions: ["v1"]
        resources: ["deployments"]
    failurePolicy: Ignore
    sideEffects: {{ .Values.webhook.sideEffects }}
    timeoutSeconds: {{ .Values.webhook.timeout }}
    admissionReviewVersions: [v1]
  - name: other.example.com
    clientConfig:
      url: https://example.com/other
    sideEffects: Some # literal
    failurePolicy: Ignore
    admissionReviewVersions: [v1]
    timeoutSeconds: {{ .Values.otherTimeout | default 10 }}
`
)

// fixTree is a tree to lint, by path.
type fixTree map[string]string

func (tr fixTree) write(t *testing.T, dir string) {
	t.Helper()
	for name, text := range tr {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// jsonFindings lints args in the working folder and returns the findings.
func jsonFindings(t *testing.T, args ...string) []diag.Diagnostic {
	t.Helper()
	_, out, stderr := run(t, "", append([]string{"--format", "json"}, args...)...)
	var res struct {
		Diagnostics []diag.Diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %v\n%s%s", args, err, out, stderr)
	}
	return res.Diagnostics
}

// fixesOf lists "rule file" for each finding that offers a fix, and for
// each fix the files it edits.
func fixesOf(ds []diag.Diagnostic) map[string][]string {
	out := map[string][]string{}
	for _, d := range ds {
		for _, f := range d.Fixes {
			for _, e := range f.Edits {
				if k := d.Rule + " " + d.File; !slices.Contains(out[k], e.File) {
					out[k] = append(out[k], e.File)
					slices.Sort(out[k])
				}
			}
		}
	}
	return out
}

// count is the findings per "rule file".
func count(ds []diag.Diagnostic) map[string]int {
	out := map[string]int{}
	for _, d := range ds {
		out[d.Rule+" "+d.File]++
	}
	return out
}

// TestFixesInBuildsAndCharts: a finding of a kustomize build gets its fix
// in the file that writes the field (the base's resource, the overlay's
// patch), in that file's style, one of a chart on the template line that
// writes the value literally or in the values.yaml key the line reads as
// it is; none where no one file decides the value. Each fix made removes its finding and adds none; bytes
// outside the edits stay; --diff applies with patch -p1 to what --fix
// makes; a second --fix changes nothing.
func TestFixesInBuildsAndCharts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tree  fixTree
		entry string
		// want are the findings ("rule file") that offer a fix, with the
		// files their fixes edit; every other finding offers none.
		want map[string][]string
	}{{
		name: "base and patch",
		tree: fixTree{
			"base/kustomization.yaml":    "resources:\n- webhook.yaml\n",
			"base/webhook.yaml":          sourceBase,
			"overlay/kustomization.yaml": "resources:\n- ../base\npatches:\n- path: timeout.yaml\n",
			"overlay/timeout.yaml":       sourcePatch,
		},
		entry: "overlay",
		want: map[string][]string{
			"side-effects-value base/webhook.yaml":    {"base/webhook.yaml"},
			"review-versions base/webhook.yaml":       {"base/webhook.yaml"},
			"review-versions-order base/webhook.yaml": {"base/webhook.yaml"},
			"timeout-range overlay/timeout.yaml":      {"overlay/timeout.yaml"},
		},
	}, {
		name: "JSON6902 and inline patches",
		tree: fixTree{
			"base/kustomization.yaml": "resources:\n- webhook.yaml\n",
			"base/webhook.yaml":       sourceBase,
			"overlay/kustomization.yaml": "resources:\n- ../base\npatches:\n- path: ops.yaml\n" +
				"  target: {kind: ValidatingWebhookConfiguration, name: demo}\n" +
				"- path: append.yaml\n  target: {kind: ValidatingWebhookConfiguration, name: demo}\n" +
				"- patch: |-\n    - op: add\n      path: /webhooks/0/sideEffects\n      value: Some\n" +
				"  target: {kind: ValidatingWebhookConfiguration}\n",
			"overlay/ops.yaml": "- op: replace\n  path: /webhooks/1/timeoutSeconds\n  value: 50\n",
			// An appended element has no path to map back: its finding is
			// at the base's list, with no fix.
			"overlay/append.yaml": "- op: add\n  path: /webhooks/-\n  value: {name: extra.example.com, " +
				"clientConfig: {url: 'https://example.com/extra'}, sideEffects: None, failurePolicy: Ignore, " +
				"admissionReviewVersions: [v1], timeoutSeconds: 40}\n",
		},
		entry: "overlay",
		want: map[string][]string{
			"review-versions base/webhook.yaml":       {"base/webhook.yaml"},
			"review-versions-order base/webhook.yaml": {"base/webhook.yaml"},
			// The operations' scalar values, in the file and inline.
			"timeout-range overlay/ops.yaml":                {"overlay/ops.yaml"},
			"side-effects-value overlay/kustomization.yaml": {"overlay/kustomization.yaml"},
		},
	}, {
		name: "a replacement writes the value",
		tree: fixTree{
			"base/kustomization.yaml": "resources:\n- webhook.yaml\n",
			"base/webhook.yaml":       sourceBase,
			"overlay/kustomization.yaml": "resources:\n- ../base\n- settings.yaml\nreplacements:\n" +
				"- source: {kind: ConfigMap, name: settings, fieldPath: data.timeout}\n  targets:\n" +
				"  - select: {kind: ValidatingWebhookConfiguration}\n    fieldPaths: [webhooks.1.timeoutSeconds]\n",
			"overlay/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {timeout: \"60\"}\n",
		},
		entry: "overlay",
		want: map[string][]string{
			"side-effects-value base/webhook.yaml":    {"base/webhook.yaml"},
			"review-versions base/webhook.yaml":       {"base/webhook.yaml"},
			"review-versions-order base/webhook.yaml": {"base/webhook.yaml"},
		},
	}, {
		name: "two overlays disagree on the base",
		tree: fixTree{
			"base/kustomization.yaml": "resources:\n- webhook.yaml\n",
			"base/webhook.yaml":       sourceBase,
			"a/kustomization.yaml":    "resources:\n- ../base\n",
			"b/kustomization.yaml":    "resources:\n- ../base\npatches:\n- path: side-effects.yaml\n",
			"b/side-effects.yaml":     strings.Replace(sourcePatch, "other.example.com\n    timeoutSeconds: 45 # the overlay's", "check.example.com\n    sideEffects: None", 1),
		},
		entry: "base/webhook.yaml",
		want: map[string][]string{
			// Both overlays offer these (b's at other list indices); only
			// a's build lacks sideEffects, which b's patch sets.
			"review-versions base/webhook.yaml":       {"base/webhook.yaml"},
			"review-versions-order base/webhook.yaml": {"base/webhook.yaml"},
			"timeout-range base/webhook.yaml":         {"base/webhook.yaml"},
		},
	}, {
		name: "chart",
		tree: fixTree{
			"chart/Chart.yaml":             "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
			"chart/values.yaml":            chartValues,
			"chart/templates/webhook.yaml": chartTemplate,
		},
		entry: "chart",
		want: map[string][]string{
			"side-effects-value chart/templates/webhook.yaml": {"chart/templates/webhook.yaml", "chart/values.yaml"},
			"timeout-range chart/templates/webhook.yaml":      {"chart/values.yaml"},
		},
	}, {
		name: "a chart value read twice, through a pipeline",
		tree: fixTree{
			"chart/Chart.yaml":  "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
			"chart/values.yaml": chartValues,
			// The second webhook's timeout is the first's, with a default:
			// the value is not the one line's to change.
			"chart/templates/webhook.yaml": strings.Replace(chartTemplate, ".Values.otherTimeout", ".Values.webhook.timeout", 1),
		},
		entry: "chart",
		want: map[string][]string{
			"side-effects-value chart/templates/webhook.yaml": {"chart/templates/webhook.yaml", "chart/values.yaml"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.tree.write(t, dir)
			t.Chdir(dir)
			before := jsonFindings(t, tc.entry)
			if got := fixesOf(before); !maps.EqualFunc(got, tc.want, slices.Equal) {
				t.Fatalf("fixes offered: %v, want %v", got, tc.want)
			}
			var edits []diag.Edit
			for _, d := range before {
				for _, f := range d.Fixes {
					edits = append(edits, f.Edits...)
				}
			}
			_, diff, _ := run(t, "", "--unsafe-fixes", "--diff", tc.entry)
			if code, _, stderr := run(t, "", "--fix", "--unsafe-fixes", tc.entry); code == ExitUsage || code == ExitInternal {
				t.Fatalf("--fix: exit %d: %s", code, stderr)
			}
			// Bytes outside the edits: each file is its text with the
			// edits the JSON output lists made, and nothing else.
			for name, text := range tc.tree {
				got, _ := os.ReadFile(name)
				want, err := fix.Apply([]byte(text), fileEdits(edits, name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s after --fix:\n%s\nwant\n%s", name, got, want)
				}
			}
			if patch, err := exec.LookPath("patch"); err == nil && diff != "" {
				other := t.TempDir()
				tc.tree.write(t, other)
				cmd := exec.Command(patch, "-p1", "--quiet")
				cmd.Dir, cmd.Stdin = other, strings.NewReader(diff)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("patch -p1: %v\n%s\n%s", err, out, diff)
				}
				for name := range tc.tree {
					a, _ := os.ReadFile(filepath.Join(other, name))
					b, _ := os.ReadFile(name)
					if !bytes.Equal(a, b) {
						t.Errorf("%s: patch -p1 of --diff made\n%s\n--fix made\n%s", name, a, b)
					}
				}
			}
			// Rebuilt: each fixed finding is gone, no finding is new.
			after := jsonFindings(t, tc.entry)
			n0, n1 := count(before), count(after)
			for k, n := range n1 {
				if n > n0[k] {
					t.Errorf("%d %s findings after the fixes, %d before", n, k, n0[k])
				}
			}
			for k := range tc.want {
				if n1[k] >= n0[k] {
					t.Errorf("%s: still %d findings after its fix", k, n1[k])
				}
			}
			if len(fixesOf(after)) != 0 {
				t.Errorf("fixes left after --fix: %v", fixesOf(after))
			}
		})
	}
}

func fileEdits(edits []diag.Edit, name string) []diag.Edit {
	var out []diag.Edit
	for _, e := range edits {
		if e.File == name && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	diag.SortEdits(out)
	return out
}
