package source

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/helm"
)

// judgedKinds are the words of the kinds rules judge (webhook
// configurations, CRDs, admission policies and their bindings); other
// objects are only read as their context.
var judgedKinds = [][]byte{[]byte("WebhookConfiguration"), []byte("CustomResourceDefinition"), []byte("AdmissionPolicy")}

// mayWriteJudged reports whether a template that was not rendered may
// have written an object the rules judge: its text names such a kind, or
// it includes named templates and one of the chart's helper files (its
// own, its dependencies') names one. A partial's own failure (the required
// value read in a _helpers.tpl) cannot be tied to one template: it may.
func mayWriteJudged(u *unit, file string) bool {
	data, err := overlay.ReadDiskFile(file)
	if err != nil || strings.HasPrefix(filepath.Base(file), "_") {
		return true
	}
	names := func(b []byte) bool {
		return slices.ContainsFunc(judgedKinds, func(k []byte) bool { return bytes.Contains(b, k) })
	}
	if names(data) {
		return true
	}
	if !bytes.Contains(data, []byte("include ")) && !bytes.Contains(data, []byte("template ")) {
		return false
	}
	found := false
	for _, dir := range append([]string{u.dir}, u.readDirs...) {
		_ = overlay.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || found {
				return filepath.SkipAll
			}
			if !e.IsDir() && strings.HasSuffix(p, ".tpl") {
				if b, err := overlay.ReadDiskFile(p); err == nil && names(b) {
					found = true
				}
			}
			return nil
		})
	}
	return found
}

// lintRendered renders a chart and lints its manifests together, moving each
// finding to the template that produced the document and the line its
// field was traced to. A dependency that would have to be downloaded is
// left out, with a note; the rest of the chart is still linted.
func lintRendered(u *unit, lo lint.Options) *unitResult {
	c, err := renderChart(u, targetVersion(lo))
	if err != nil {
		return &unitResult{failed: true, diags: []diag.Diagnostic{renderProblem(u, err)}}
	}
	problems := skippedTemplates(u, c)
	var post *postRendered
	if u.gitops != nil && len(u.gitops.Chart.PostRender) > 0 {
		if post, err = postRender(u.gitops, c); err != nil {
			problems = append(problems, postRenderProblem(u.gitops, err))
		}
	}
	origin := u.label()
	files, byName := parseRendered(c)
	if u.gitops == nil {
		// An entry gives the values: they are chosen, not defaults.
		markValueDriven(u, files, byName)
	}
	markRegeneratedCABundles(files, byName)
	waves := argoWaveFindings(u, files) // before the rules drop the positions
	docsOf := map[string]*manifest.File{}
	for _, f := range files {
		docsOf[f.Name] = f
	}
	lu := lint.Unit{Files: files, Applied: u.deployed.Known(), HelmRelease: true}
	var fixes *chartFixes
	if u.gitops == nil && post == nil {
		// A GitOps entry gives values of its own, and a post-renderer
		// changes what the templates wrote.
		fixes = &chartFixes{u: u, kubeVersion: targetVersion(lo), c: c, byName: byName, docsOf: docsOf}
		lu.Edits = fixes.edits
	}
	res := lint.LintUnit(lu, lo)
	if fixes != nil {
		fixes.verify(res.Diagnostics)
	}
	res.Diagnostics = append(res.Diagnostics, waves...)
	traceFindings(u, res.Diagnostics, byName, docsOf, origin)
	post.relocate(res.Diagnostics)
	res.Diagnostics = append(res.Diagnostics, problems...)
	res.Diagnostics = append(res.Diagnostics, missingDependencies(u, c.MissingDeps, origin)...)
	r := &unitResult{diags: res.Diagnostics, configs: res.Configs, policies: res.Policies, crds: res.CRDs, internal: res.Internal, chart: c.Name}
	if fluxEntry(u) {
		r.applied = appliedBy(files, u.chart.Namespace) // helm installs into the release namespace
	}
	return r
}

// targetVersion is the Kubernetes version the chart is rendered for
// (.Capabilities.KubeVersion), the one the rules judge against.
func targetVersion(lo lint.Options) string {
	if lo.Settings == nil {
		return ""
	}
	return fmt.Sprintf("v%d.%d.0", lo.Settings.KubeVersion.Major, lo.Settings.KubeVersion.Minor)
}

// skippedTemplates reports the templates that failed or passed a render
// limit; the rest of the chart is linted.
func skippedTemplates(u *unit, c *helm.Chart) []diag.Diagnostic {
	var problems []diag.Diagnostic
	for _, e := range c.Skipped {
		d := renderProblem(u, e)
		if dep, ok := fillsFailure(c.MissingDeps, e); ok {
			// Not the chart's fault: with the dependency vendored, its values
			// would be there (the dependency's note says it is missing).
			d.Severity = diag.Info
			d.Message += fmt.Sprintf("; the missing dependency %s may set what this reads", dep)
		} else if he := (*helm.Error)(nil); errors.As(e, &he) && he.NeedsValue && d.Severity == diag.Warning && !mayWriteJudged(u, he.File) {
			// Only objects the rules read for context were not rendered.
			d.Severity = diag.Info
			d.Message += "; no webhook or policy in it"
		}
		problems = append(problems, d)
	}
	return problems
}

// parseRendered parses what the chart rendered: each template's output,
// by template name for tracing findings back, and the CRDs, which are not
// templates, so their findings are where they are.
func parseRendered(c *helm.Chart) ([]*manifest.File, map[string]*helm.Template) {
	var files []*manifest.File
	byName := map[string]*helm.Template{}
	for _, t := range c.Templates {
		files = append(files, manifest.Parse(t.File, t.Rendered))
		byName[t.File] = t
	}
	for _, crd := range c.CRDs {
		files = append(files, manifest.Parse(crd.File, crd.Data))
	}
	return files, byName
}

// renderProblem reports a chart that did not render, or a template that
// did not: on the template line helm names, else on Chart.yaml.
func renderProblem(u *unit, err error) diag.Diagnostic {
	d := diag.Diagnostic{
		Span:     diag.Point(filepath.Join(u.shown, "Chart.yaml"), 1, 1),
		Severity: rules.MustLookup(rules.HelmRenderRule).Severity, Rule: rules.HelmRenderRule,
		Message: err.Error(),
	}
	var he *helm.Error
	if errors.As(err, &he) {
		d.Span = diag.Point(he.File, he.Line, he.Column)
		d.Message = he.Msg
		if he.NeedsValue {
			d.Severity = diag.Warning // a value to give, not a broken chart
		}
	}
	return d
}

// traceFindings moves each finding on a rendered template to the template
// line its field was traced to, naming the chart value to change when a
// template action wrote it.
func traceFindings(u *unit, ds []diag.Diagnostic, byName map[string]*helm.Template, docsOf map[string]*manifest.File, origin string) {
	for i := range ds {
		d := &ds[i]
		t := byName[d.File]
		if t == nil {
			continue
		}
		for j := range d.Related {
			r := &d.Related[j]
			if rt := byName[r.File]; rt != nil {
				tr := traceTemplate(u, rt, docsOf[r.File], r.Line, r.Path)
				r.Span = tr.Span
			}
		}
		tr := traceTemplate(u, t, docsOf[d.File], d.Line, d.Path)
		d.Span = tr.Span
		if t.Source == nil {
			// A packaged subchart: no template file to point into; the
			// finding stays on the chart.
			d.Origin = origin + ", # Source: " + t.Name
			continue
		}
		var how string
		switch {
		case d.Path == "":
		case !tr.exact:
			how = "; the field is not written in the template, shown at the closest enclosing key"
		case tr.action:
			how = "; the value comes from the template action on this line"
			if tr.File != t.File {
				break // a named template's line: its source is another file's
			}
			// A value the GitOps entry gives is changed in the entry.
			if s, ok := moveToEntryValue(u, d, t.Source, tr.Line); ok {
				how += s
				break
			}
			// Name the values key to change, where it is set.
			if key, ok := helm.ValuesKeyAt(t.Source, tr.Line); ok && setBy(u, key) != "" {
				how += fmt.Sprintf(" (chart value %s, %s)", key, setBy(u, key))
			} else if vs, ok := helm.ValuesAt(u.dir, u.chart.ValuesFiles, t.Source, tr.Line); ok {
				how += fmt.Sprintf(" (chart value %s)", vs.Key)
				d.Related = append(d.Related, diag.Related{
					Span:    vs.Span,
					Message: fmt.Sprintf("chart value %s is set here", vs.Key),
				})
			}
		}
		d.Origin = origin + ", # Source: " + t.Name + how
	}
}

// missingDependencies notes each dependency that is not vendored: the
// chart is linted without it.
func missingDependencies(u *unit, missing []helm.Dependency, origin string) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, dep := range missing {
		line, col := max(dep.Line, 1), max(dep.Column, 1)
		out = append(out, diag.Diagnostic{
			Span:     diag.Point(filepath.Join(u.dir, "Chart.yaml"), line, col),
			Severity: diag.Info, Rule: rules.HelmRenderRule, Origin: origin,
			Message: fmt.Sprintf("dependency %s (%s) is not under charts/ and webhooklint renders offline: the chart was linted without it; run `helm dependency build` to lint it too",
				dep.Name, dep.Repository),
		})
	}
	return out
}

// fillsFailure reports which missing dependency a failed template reads
// the values of (`.Values.<name or alias>`, a `required` key under it),
// when one does: rendered with the dependency vendored, those values
// would be set.
func fillsFailure(missing []helm.Dependency, err error) (string, bool) {
	var he *helm.Error
	if !errors.As(err, &he) {
		return "", false
	}
	for _, dep := range missing {
		for _, key := range []string{dep.Alias, dep.Name} {
			if key != "" && (strings.Contains(he.Msg, ".Values."+key+".") || strings.Contains(he.Msg, " "+key+".") ||
				strings.Contains(he.Msg, ".Values."+key+">")) {
				return dep.Name, true
			}
		}
	}
	return "", false
}

// renderChart renders a chart unit with its values, as helm template would.
func renderChart(u *unit, kubeVersion string) (*helm.Chart, error) {
	return renderChartWith(u, kubeVersion, nil)
}

// renderChartWith renders it with edited standing in for the text of
// its files (helm.Options.Edited).
func renderChartWith(u *unit, kubeVersion string, edited map[string][]byte) (*helm.Chart, error) {
	return helm.Render(u.shown, helm.Options{ // u.shown: as messages name it
		ValuesFiles: u.chart.ValuesFiles, Values: u.chart.Values, Set: u.chart.Set, SetString: u.chart.SetString,
		ReleaseName: u.chart.ReleaseName, Namespace: u.chart.Namespace, KubeVersion: kubeVersion, Edited: edited,
	})
}

// traceTemplate maps a field of a rendered document (by a line in it) to
// the template line that wrote it; File is always set: the template, the
// file of the named template that wrote the field, or the chart's
// Chart.yaml for a packaged subchart, which has no template to point into.
func traceTemplate(u *unit, t *helm.Template, f *manifest.File, line int, path string) writtenAt {
	if t.Source == nil {
		return writtenAt{Span: diag.Point(filepath.Join(u.dir, "Chart.yaml"), 1, 1)}
	}
	doc, docs := renderedDoc(f, line)
	if docs != templateChunks(t) {
		// Conditionals changed the document count: the chunk that writes
		// the document's kind (or name), if only one does.
		doc = -1
		if d := docAt(f.Docs, line); d != nil {
			doc = helm.ChunkOf(t.Source, d.Kind, d.Name)
		}
	}
	tr := t.Trace(doc, path)
	if tr.File == "" {
		tr.File = t.File
	}
	return writtenAt{Span: tr.Span, exact: tr.Exact, action: !tr.Literal}
}

// renderedDoc finds the index of the document a rendered line is in, and
// how many documents the rendered template has.
func renderedDoc(f *manifest.File, line int) (doc, count int) {
	doc = -1
	seen := map[int]bool{}
	for _, d := range f.Docs {
		seen[d.Index] = true
		if d.Line <= line {
			doc = d.Index
		}
	}
	return doc, len(seen)
}

func templateChunks(t *helm.Template) int { return helm.Chunks(t.Source) }

// markValueDriven tells the backend checks which workloads take spec.replicas
// (which autoscalers minReplicas) from a template action, and timeout-too-long which webhooks take
// timeoutSeconds from one: a chart that defaults to a value but lets users
// choose is judged on the values rendered, at a lower severity. A value
// the user gave (--set, --values) is the deployment's choice: judged as a
// written one, and named.
func markValueDriven(u *unit, files []*manifest.File, byName map[string]*helm.Template) {
	for _, f := range files {
		t := byName[f.Name]
		if t == nil || t.Source == nil {
			continue
		}
		if _, docs := renderedDoc(f, 0); docs != templateChunks(t) {
			continue // conditionals changed the document count: no mapping
		}
		for _, d := range f.Docs {
			if tr := t.Trace(d.Index, "spec.replicas"); tr.Exact && !tr.Literal {
				d.MarkReplicasFromValues(givenValue(u, t, tr))
			}
			if tr := t.Trace(d.Index, "spec.minReplicas"); tr.Exact && !tr.Literal {
				d.MarkReplicasFromValues(givenValue(u, t, tr)) // an autoscaler's
			}
			if d.Config == nil {
				continue
			}
			for i := range d.Config.Webhooks {
				if tr := t.Trace(d.Index, fieldpath.Field(fieldpath.WebhookPath(i), "timeoutSeconds")); tr.Exact && !tr.Literal {
					d.MarkTimeoutFromValues(i, givenValue(u, t, tr))
				}
			}
		}
	}
}

// givenValue names what the user gave that sets the chart value the
// template action at tr reads (`--set replicas=1`, `--values prod.yaml:12`),
// or "" when the chart's own values.yaml sets it, or no value is named
// there.
func givenValue(u *unit, t *helm.Template, tr helm.Trace) string {
	if tr.File != "" {
		return "" // a named template's line, of another file
	}
	key, ok := helm.ValuesKeyAt(t.Source, tr.Line)
	if !ok {
		return ""
	}
	if set := setBy(u, key); set != "" {
		return set
	}
	vs, ok := helm.ValuesAt(u.dir, u.chart.ValuesFiles, t.Source, tr.Line)
	if !ok || vs.File == filepath.Join(u.dir, "values.yaml") {
		return ""
	}
	return fmt.Sprintf("--values %s:%d", display(vs.File), vs.Line)
}

// setBy is the `--set key=value` that sets chart value key for unit u, or
// "": as helm merges them, --set over the values files and --set-string
// last, the last setting of a key winning; one --set may hold several
// (a=1,b=2).
func setBy(u *unit, key string) string {
	sets := append(slices.Clip(u.chart.Set), u.chart.SetString...)
	for i := len(sets) - 1; i >= 0; i-- {
		pairs := strings.Split(sets[i], ",")
		for j := len(pairs) - 1; j >= 0; j-- {
			if k, v, ok := strings.Cut(pairs[j], "="); ok && strings.TrimSpace(k) == key {
				return "--set " + key + "=" + v
			}
		}
	}
	return ""
}

// markRegeneratedCABundles compares each webhook's caBundle with the
// chart's other renders (made only for charts that generate certificates)
// and marks those that differ: a chart without lookup makes a new CA at
// every upgrade; one with lookup, at every upgrade if its render as
// installed differs too, else only at renders without a cluster.
func markRegeneratedCABundles(files []*manifest.File, byName map[string]*helm.Template) {
	for _, f := range files {
		t := byName[f.Name]
		if t == nil || t.Again == nil {
			continue
		}
		again := differingCABundles(f, t.Again)
		upgrade := again
		if t.Lookup {
			upgrade = nil
			if t.Installed != nil {
				upgrade = differingCABundles(f, t.Installed)
			}
		}
		for d, ws := range again {
			for _, i := range ws {
				d.MarkCABundleRegenerated(i, slices.Contains(upgrade[d], i), t.Lookup)
			}
		}
	}
}

// differingCABundles lists, per document of f, the webhooks whose caBundle
// the other render of its template writes differently.
func differingCABundles(f *manifest.File, other []byte) map[*manifest.Document][]int {
	type key struct {
		index, item int
		kind, name  string
	}
	configs := map[key]*rules.Config{}
	for _, d := range manifest.Parse(f.Name, other).Docs {
		if d.Config != nil {
			configs[key{d.Index, d.Item, d.Kind, d.Name}] = d.Config
		}
	}
	out := map[*manifest.Document][]int{}
	for _, d := range f.Docs {
		o := configs[key{d.Index, d.Item, d.Kind, d.Name}]
		if d.Config == nil || o == nil {
			continue
		}
		for i, w := range d.Config.Webhooks {
			if i < len(o.Webhooks) && !bytes.Equal(w.ClientConfig.CABundle, o.Webhooks[i].ClientConfig.CABundle) {
				out[d] = append(out[d], i)
			}
		}
	}
	return out
}
