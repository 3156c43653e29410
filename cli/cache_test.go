package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/internal/workload"
)

// cacheRun is one run of webhooklint with the cache's statistics.
type cacheRun struct {
	stdout, stderr string
	outputs        map[string]string // format -> what --output wrote
	hits, misses   int
	// indexHits and indexMisses count the discovery index's lookups.
	indexHits, indexMisses int
}

var (
	statsLine = regexp.MustCompile(`webhooklint: cache: (\d+) hits, (\d+) misses\n`)
	indexLine = regexp.MustCompile(`webhooklint: cache: discovery index: (\d+) hits, (\d+) misses\n`)
)

// runCached runs webhooklint on args with the cache in dir ("" for
// --no-cache), printing JSON, and text and SARIF to files.
func runCached(t *testing.T, dir string, args ...string) cacheRun {
	t.Helper()
	t.Setenv(statsEnv, "1")
	out := t.TempDir()
	all := []string{"--format", "json", "--fail-on", "never", "--color", "never",
		"--output", "text=" + filepath.Join(out, "text"), "--output", "sarif=" + filepath.Join(out, "sarif")}
	if dir == "" {
		all = append(all, "--no-cache")
	} else {
		all = append(all, "--cache-dir", dir)
	}
	var stdout, stderr bytes.Buffer
	if code := Main(append(all, args...), strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("webhooklint %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	r := cacheRun{stdout: stdout.String(), outputs: map[string]string{}}
	for _, f := range []string{"text", "sarif"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		r.outputs[f] = string(data)
	}
	if m := statsLine.FindStringSubmatch(stderr.String()); m != nil {
		r.hits, _ = strconv.Atoi(m[1])
		r.misses, _ = strconv.Atoi(m[2])
	} else if dir != "" {
		t.Fatalf("no cache statistics on stderr:\n%s", stderr.String())
	}
	if m := indexLine.FindStringSubmatch(stderr.String()); m != nil {
		r.indexHits, _ = strconv.Atoi(m[1])
		r.indexMisses, _ = strconv.Atoi(m[2])
	}
	r.stderr = statsLine.ReplaceAllString(indexLine.ReplaceAllString(stderr.String(), ""), "")
	return r
}

// sameOutput fails unless two runs printed the same bytes in every format.
func sameOutput(t *testing.T, what string, a, b cacheRun) {
	t.Helper()
	if a.stdout != b.stdout {
		t.Errorf("%s: JSON differs:\n%s\n----\n%s", what, a.stdout, b.stdout)
	}
	for f, out := range a.outputs {
		if b.outputs[f] != out {
			t.Errorf("%s: %s output differs:\n%s\n----\n%s", what, f, out, b.outputs[f])
		}
	}
	if a.stderr != b.stderr {
		t.Errorf("%s: stderr differs:\n%s\n----\n%s", what, a.stderr, b.stderr)
	}
}

// coldMissHit runs args without the cache, then twice with a new one:
// the three print the same, the second misses every unit and the third
// hits every one, or, with volatile, only some (units whose findings
// depend on the day are never kept, nor those linted beside them).
func coldMissHit(t *testing.T, volatile bool, args ...string) (second cacheRun) {
	t.Helper()
	dir := t.TempDir()
	cold := runCached(t, "", args...)
	miss := runCached(t, dir, args...)
	hit := runCached(t, dir, args...)
	sameOutput(t, "cold and first cached run", cold, miss)
	sameOutput(t, "first and second cached run", miss, hit)
	if miss.hits != 0 || miss.misses == 0 {
		t.Errorf("first cached run: %d hits, %d misses; want 0 hits", miss.hits, miss.misses)
	}
	if hit.hits+hit.misses != miss.misses || (!volatile && hit.misses != 0) {
		t.Errorf("second cached run: %d hits, %d misses; want %d hits, 0 misses", hit.hits, hit.misses, miss.misses)
	}
	// Every scope's discovery index walked by the first is the second's.
	if miss.indexHits != 0 || hit.indexMisses != 0 || hit.indexHits != miss.indexMisses {
		t.Errorf("discovery index: %d hits, %d misses, then %d hits, %d misses; want 0, n, then n, 0",
			miss.indexHits, miss.indexMisses, hit.indexHits, hit.indexMisses)
	}
	return hit
}

// A unit's findings from the cache print exactly as linted now, in every
// format, on the examples, the fixtures and the GitOps fixtures, and on
// every layout of the shared corpus, whole and with each of its entries
// (a folder with a kustomization or a chart) named.
func TestCacheSameOutput(t *testing.T) {
	for _, p := range []string{"../examples", "../testdata/gitops"} {
		t.Run(p, func(t *testing.T) { coldMissHit(t, false, p) })
	}
	t.Run("../testdata", func(t *testing.T) {
		if r := coldMissHit(t, true, "../testdata"); r.hits == 0 {
			t.Error("second cached run: no hit")
		}
	})
	// Findings on certificates depend on the day: kept until they could
	// change (internal/cache tests when they stop being valid).
	t.Run("../testdata/rules/ca-bundle", func(t *testing.T) { coldMissHit(t, false, "../testdata/rules/ca-bundle") })
	layouts := filepath.Join("..", "..", "shared", "corpus", "layouts")
	projects, err := os.ReadDir(layouts)
	if err != nil {
		t.Skipf("layouts corpus not available: %v", err)
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		root := filepath.Join(layouts, p.Name())
		t.Run(p.Name(), func(t *testing.T) { coldMissHit(t, false, root) })
		// Its entries named, each a unit of its own.
		var entries []string
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (d.Name() == "kustomization.yaml" || d.Name() == "Chart.yaml") {
				entries = append(entries, filepath.Dir(path))
			}
			return nil
		})
		if len(entries) > 0 && !testing.Short() {
			t.Run(p.Name()+"/entries", func(t *testing.T) { coldMissHit(t, false, entries...) })
		}
	}
}

const cacheWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo
webhooks:
- name: validate.demo.example.com
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: ["v1"]
  timeoutSeconds: TIMEOUT
  clientConfig:
    url: https://demo.example.com/validate
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}
  rules:
  - apiGroups: ["apps"]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [deployments]
    scope: Namespaced
`

// cacheSteps runs webhooklint with one cache folder after each of a
// series of changes.
type cacheSteps struct {
	t    *testing.T
	dir  string
	last map[string]cacheRun
}

// step runs args twice: the first after change, which must miss at least
// once, print what a run without the cache prints, and change the
// findings when changed says so; the second, which must hit every unit
// and print the same.
func (s *cacheSteps) step(name string, change func(), changed bool, args ...string) {
	t := s.t
	t.Helper()
	key := strings.Join(args, " ")
	before, seen := s.last[key]
	if change != nil {
		change()
	}
	first := runCached(t, s.dir, args...)
	if first.misses == 0 {
		t.Errorf("%s: no miss after the change (%d hits)", name, first.hits)
	}
	if seen && changed && first.stdout == before.stdout {
		t.Errorf("%s: same findings after the change:\n%s", name, first.stdout)
	}
	cold := runCached(t, "", args...)
	sameOutput(t, name+": cold and cached run", cold, first)
	again := runCached(t, s.dir, args...)
	if again.misses != 0 {
		t.Errorf("%s: run again: %d misses, want 0", name, again.misses)
	}
	sameOutput(t, name+": cached run and again", first, again)
	if s.last == nil {
		s.last = map[string]cacheRun{}
	}
	s.last[key] = again
}

// lastRun is the last step's second run of args.
func (s *cacheSteps) lastRun(args ...string) cacheRun { return s.last[strings.Join(args, " ")] }

// Every input of a unit invalidates its entry: a patch of a kustomize
// overlay, a chart's values, a new file in a folder linted, the
// configuration file, --kube-version; and an entry that is not whole is
// a miss, not an error.
func TestCacheInvalidation(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{
		".git/HEAD":                      "ref: refs/heads/main\n",
		"kust/base/kustomization.yaml":   "resources:\n- webhook.yaml\n",
		"kust/base/webhook.yaml":         strings.Replace(cacheWebhook, "TIMEOUT", "5", 1),
		"kust/prod/kustomization.yaml":   "resources:\n- ../base\npatches:\n- path: patch.yaml\n",
		"kust/prod/patch.yaml":           "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: demo\nwebhooks:\n- name: validate.demo.example.com\n  timeoutSeconds: 30\n",
		"chart/Chart.yaml":               "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"chart/values.yaml":              "timeout: 30\n",
		"chart/templates/webhook.yaml":   strings.Replace(cacheWebhook, "TIMEOUT", "{{ .Values.timeout }}", 1),
		"plain/webhook.yaml":             strings.Replace(cacheWebhook, "TIMEOUT", "30", 1),
		"configured/.webhooklint.yaml":   "rules:\n  timeout-too-long: {enabled: true}\n",
		"configured/hooks/webhook.yaml":  strings.Replace(cacheWebhook, "TIMEOUT", "30", 1),
		"configured/hooks/unrelated.txt": "not linted\n",
	})
	dir := t.TempDir()
	at := func(p string) string { return filepath.Join(root, p) }
	const timeoutRule = "timeout-too-long"

	steps := &cacheSteps{t: t, dir: dir}
	step, last := steps.step, steps.lastRun

	step("overlay", nil, false, at("kust/prod"))
	if !strings.Contains(last(at("kust/prod")).stdout, timeoutRule) {
		t.Fatalf("the overlay's patch should raise %s:\n%s", timeoutRule, last(at("kust/prod")).stdout)
	}
	step("overlay's patch changed", func() {
		testkit.WriteTree(t, root, map[string]string{"kust/prod/patch.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: demo\nwebhooks:\n- name: validate.demo.example.com\n  timeoutSeconds: 3\n"})
	}, true, at("kust/prod"))
	step("base changed", func() {
		testkit.WriteTree(t, root, map[string]string{"kust/base/webhook.yaml": strings.Replace(cacheWebhook, "TIMEOUT", "31", 1)})
	}, false, at("kust/prod"))

	step("chart", nil, false, at("chart"))
	step("chart's values changed", func() {
		testkit.WriteTree(t, root, map[string]string{"chart/values.yaml": "timeout: 5\n"})
	}, true, at("chart"))
	step("chart's template added", func() {
		testkit.WriteTree(t, root, map[string]string{"chart/templates/other.yaml": strings.Replace(cacheWebhook, "name: demo", "name: other", 1)})
	}, true, at("chart"))

	step("folder", nil, false, at("plain"))
	step("file added to the folder", func() {
		testkit.WriteTree(t, root, map[string]string{"plain/other.yaml": strings.Replace(strings.Replace(cacheWebhook, "TIMEOUT", "30", 1), "name: demo", "name: other", 1)})
	}, true, at("plain"))

	step("configured", nil, false, at("configured/hooks"))
	step("configuration changed", func() {
		testkit.WriteTree(t, root, map[string]string{"configured/.webhooklint.yaml": "rules:\n  timeout-too-long: {enabled: false}\n"})
	}, true, at("configured/hooks"))

	step("kube-version", nil, false, "--kube-version", "1.30", at("plain"))
	if r := runCached(t, dir, "--kube-version", "1.31", at("plain")); r.misses == 0 {
		t.Errorf("another --kube-version: %d hits, no miss", r.hits)
	}

	// Entries cut short, or changed, are misses: the output stays that of
	// a cold run, with no warning.
	var entries []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".entry") {
			entries = append(entries, p)
		}
		return nil
	})
	if len(entries) == 0 {
		t.Fatal("the cache folder holds no entry")
	}
	for i, e := range entries {
		data, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			data = data[:len(data)/2]
		} else {
			data[len(data)-3] ^= 1
		}
		if err := os.WriteFile(e, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{at("kust/prod")}, {at("chart")}, {at("plain")}} {
		r := runCached(t, dir, args...)
		cold := runCached(t, "", args...)
		sameOutput(t, "damaged entries", cold, r)
		if r.misses == 0 {
			t.Errorf("damaged entries of %s: %d hits, no miss", args[0], r.hits)
		}
	}
}

// On hack/bench.sh's generated workloads (internal/workload), at a small
// scale, the cache prints what a run without it prints: cold, warm, and
// after each change (a file edited, a configuration file added,
// another --kube-version), after which its units must miss. The monorepo
// is linted whole and with one file named, as the benchmark times it.
func TestCacheWorkloads(t *testing.T) {
	// An extra document whose timeout the API server rejects: the findings
	// change wherever it is appended.
	extra := "---\n" + strings.ReplaceAll(strings.Replace(cacheWebhook, "TIMEOUT", "31", 1), "demo", "edited")
	sizes := map[string]int{"configs": 12, "mixed": 400, "broken": 12, "monorepo": 6}
	for _, w := range workload.All {
		t.Run(w.Name, func(t *testing.T) {
			root := t.TempDir()
			if err := w.Write(root, sizes[w.Name]); err != nil {
				t.Fatal(err)
			}
			edited := filepath.Join(root, firstYAML(t, root))
			if w.Name == "monorepo" {
				edited = filepath.Join(root, workload.MonorepoChanged(sizes[w.Name]))
			}
			coldMissHit(t, false, root)
			runs := [][]string{{root}}
			if w.Name == "monorepo" {
				coldMissHit(t, false, edited)
				runs = append(runs, []string{edited})
			}
			steps := &cacheSteps{t: t, dir: t.TempDir()}
			for _, args := range runs {
				steps.step("first", nil, false, args...)
			}
			for _, args := range runs {
				steps.step("file edited", func() {
					data, err := os.ReadFile(edited)
					if err != nil {
						t.Fatal(err)
					}
					testkit.WriteFile(t, edited, string(data)+extra)
				}, true, args...)
			}
			for i, args := range runs {
				// Written once: the run of the other args misses on the
				// configuration all the same.
				change := func() {
					testkit.WriteFile(t, filepath.Join(root, ".webhooklint.yaml"), "rules:\n  timeout-range: {enabled: false}\n")
				}
				if i > 0 {
					change = nil
				}
				steps.step("configuration added", change, true, args...)
			}
			for _, args := range runs {
				steps.step("--kube-version", nil, false, append([]string{"--kube-version", "1.30"}, args...)...)
				steps.step("another --kube-version", nil, false, append([]string{"--kube-version", "1.31"}, args...)...)
			}
		})
	}
}

// firstYAML is the first YAML file under root, by path.
func firstYAML(t *testing.T, root string) string {
	t.Helper()
	var first string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && first == "" && strings.HasSuffix(p, ".yaml") {
			first, _ = filepath.Rel(root, p)
		}
		return nil
	})
	if first == "" {
		t.Fatalf("no YAML file under %s", root)
	}
	return first
}

// writeMonorepo writes apps apps of hack/bench.sh's GitOps monorepo under
// root: a base (a webhook configuration, its Service and Deployment, and
// a kustomization) and a prod overlay each.
func writeMonorepo(t *testing.T, root string, apps int) {
	t.Helper()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for i := range apps {
		a := fmt.Sprintf("apps/app-%04d/", i)
		n := fmt.Sprintf("app-%d", i)
		files[a+"base/kustomization.yaml"] = "namespace: " + n + "\nresources:\n- app.yaml\n"
		files[a+"base/app.yaml"] = strings.ReplaceAll(strings.Replace(cacheWebhook, "TIMEOUT", "5", 1), "demo", n)
		files[a+"prod/kustomization.yaml"] = "resources:\n- ../base\npatches:\n- target: {kind: ValidatingWebhookConfiguration}\n  patch: |-\n    - op: replace\n      path: /webhooks/0/timeoutSeconds\n      value: 31\n"
	}
	testkit.WriteTree(t, root, files)
}

// The discovery index (which folders of a scope hold a kustomization, and
// their texts) is used while the tree is as it was, and walked again
// after a kustomization is added, a file is added to or removed from a
// folder it lists, or a resources: list is edited: each run prints what
// a run without the cache prints.
func TestCacheDiscoveryIndex(t *testing.T) {
	root := t.TempDir()
	writeMonorepo(t, root, 40)
	dir := t.TempDir()
	named := filepath.Join(root, "apps/app-0003/base/app.yaml")
	step := func(name string, change func(), wantIndexHit, changed bool) {
		t.Helper()
		before := runCached(t, "", named)
		if change != nil {
			change()
		}
		cold := runCached(t, "", named)
		r := runCached(t, dir, named)
		sameOutput(t, name, cold, r)
		if changed && cold.stdout == before.stdout {
			t.Errorf("%s: the change did not change the findings", name)
		}
		want := [2]int{0, 1}
		if wantIndexHit {
			want = [2]int{1, 0}
		}
		if got := [2]int{r.indexHits, r.indexMisses}; got != want {
			t.Errorf("%s: discovery index %d hits, %d misses; want %d, %d", name, got[0], got[1], want[0], want[1])
		}
	}
	step("first run", nil, false, false)
	step("unchanged", nil, true, false)
	step("kustomization added", func() {
		testkit.WriteTree(t, root, map[string]string{"apps/app-0003/staging/kustomization.yaml": "resources:\n- ../base\nnamePrefix: staging-\n"})
	}, false, true)
	step("unchanged again", nil, true, false)
	step("file added to a base", func() {
		testkit.WriteTree(t, root, map[string]string{"apps/app-0003/base/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"})
	}, false, false)
	step("resources: edited", func() {
		testkit.WriteTree(t, root, map[string]string{"apps/app-0003/base/kustomization.yaml": "namespace: app-3\nresources:\n- app.yaml\n- extra.yaml\n"})
	}, false, false)
	step("resources: edited back", func() {
		testkit.WriteTree(t, root, map[string]string{"apps/app-0003/base/kustomization.yaml": "namespace: app-3\nresources:\n- app.yaml\n"})
	}, false, false)
	step("file removed from a base", func() {
		if err := os.Remove(filepath.Join(root, "apps/app-0003/base/extra.yaml")); err != nil {
			t.Fatal(err)
		}
	}, false, false)
	step("kustomization edited in place, its size and modification time kept", func() {
		file := filepath.Join(root, "apps/app-0003/base/kustomization.yaml")
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := os.ReadFile(file)
		edited := strings.Replace(string(text), "namespace: app-3", "namespace: app-9", 1)
		if edited == string(text) {
			t.Fatalf("no namespace to edit in %s", text)
		}
		testkit.WriteFile(t, file, edited)
		if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}, false, false)
	step("a kustomization renamed", func() {
		dir := filepath.Join(root, "apps/app-0003/prod")
		if err := os.Rename(filepath.Join(dir, "kustomization.yaml"), filepath.Join(dir, "kustomization.yml")); err != nil {
			t.Fatal(err)
		}
	}, false, false)
	step("unchanged at last", nil, true, false)
}

// The discovery index is the tree's, not the configuration's: a run with
// other flags uses the index an earlier run stored (its units are linted
// again, under their own keys), and prints what it prints without the
// cache.
func TestCacheDiscoveryIndexAcrossConfigurations(t *testing.T) {
	root := t.TempDir()
	writeMonorepo(t, root, 10)
	dir := t.TempDir()
	named := filepath.Join(root, "apps/app-0003/base/app.yaml")
	first := runCached(t, dir, named)
	if first.indexMisses != 1 {
		t.Fatalf("first run: discovery index %d hits, %d misses; want 0, 1", first.indexHits, first.indexMisses)
	}
	cold := runCached(t, "", "--kube-version", "1.35", named)
	other := runCached(t, dir, "--kube-version", "1.35", named)
	sameOutput(t, "another configuration", cold, other)
	if other.indexHits != 1 || other.indexMisses != 0 || other.hits != 0 {
		t.Errorf("another configuration: discovery index %d hits, %d misses, units %d hits; want 1, 0 and 0",
			other.indexHits, other.indexMisses, other.hits)
	}
}
