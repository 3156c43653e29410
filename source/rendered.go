package source

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// lintKustomization builds a root kustomization and lints the objects it
// builds together (cross-object rules see the build's Services and
// workloads, and nothing else), then moves every finding to the patch or
// resource line that wrote its field.
func lintKustomization(u *unit, lo lint.Options, origins *kustomize.Origins) *unitResult {
	defer origins.Done(u.reads)
	if u.cycle != nil {
		return &unitResult{failed: true, diags: []diag.Diagnostic{cycleError(u)}}
	}
	b, built, f, uses, err := buildKustomization(u, lo.Workers(), true)
	if err != nil {
		ds := kustomizeErrors(u.dir, b, err)
		if u.gitops != nil {
			onEntry(u.gitops, ds)
		}
		if u.base {
			baseVars(u, ds)
		}
		return &unitResult{failed: true, diags: ds}
	}
	b.Origins = origins
	name := f.Name
	files := []*manifest.File{f}
	res := lint.LintUnit(lint.Unit{Files: files, Base: u.base}, lo)
	origin := u.label()
	for i := range res.Diagnostics {
		d := &res.Diagnostics[i]
		if d.File != name {
			continue
		}
		for j := range d.Related {
			r := &d.Related[j]
			if r.Object != nil {
				at, _ := locateBuilt(b, r.Object, r.Path, false)
				r.File, r.Line, r.Column, r.EndLine, r.EndColumn = at.File, at.Line, at.Column, at.EndLine, at.EndColumn
			}
		}
		at, found := locateBuilt(b, d.Object, d.Path, isAtKey(built, *d))
		d.File, d.Line, d.Column, d.EndLine, d.EndColumn = at.File, at.Line, at.Column, at.EndLine, at.EndColumn
		d.Origin = origin
		if found {
			d.Origin += " (" + at.By + ")"
		}
		if at.By == "patch" && d.Severity > diag.Info && !u.deployed.Known() {
			variantGap(u, b, d)
		}
	}
	// kustomize's own warnings (deprecated fields) are findings on the
	// kustomization that has them, at info: the build still works.
	for _, w := range b.Warnings {
		res.Diagnostics = append(res.Diagnostics, diag.Diagnostic{
			File: w.File, Line: w.Line, Column: w.Column, EndLine: w.Line, EndColumn: w.Column + 1,
			Severity: diag.Info, Rule: rules.KustomizeBuildRule, Message: w.Message, Origin: origin,
		})
	}
	r := &unitResult{diags: res.Diagnostics, base: u.base, configs: res.Configs, policies: res.Policies, internal: res.Internal}
	if u.gitops != nil {
		relocateGitops(u, b, uses, res.Diagnostics)
		if fluxEntry(u) {
			r.applied = appliedBy(files, "default")
		}
	}
	return r
}

// buildKustomization builds a kustomize unit and parses its output as one
// file: the objects kubectl would receive, in kustomize's order. With
// alone, a build with no judged object is parsed alone
// (manifest.Options.Alone): nothing reads its objects' cross-object data.
//
// A GitOps entry's unit is built as its controller builds it (gitopsRoot,
// applyGitops); uses are then the postBuild variables each object read.
func buildKustomization(u *unit, jobs int, alone bool) (b *kustomize.Build, built []byte, f *manifest.File, uses map[string][]gitops.Use, err error) {
	if p := u.prebuilt; p != nil {
		// Built during discovery for the HelmReleases it outputs.
		b, uses, u.prebuilt = p.b, p.uses, nil
	} else if b, uses, err = buildGitops(u); err != nil {
		return b, nil, nil, nil, err
	}
	var buf bytes.Buffer
	for _, o := range b.Objects {
		buf.WriteString("---\n")
		buf.Write(o.YAML)
	}
	built = buf.Bytes()
	return b, built, manifest.ParseWith(b.File+" (built)", built, manifest.Options{Jobs: jobs, Alone: alone}), uses, nil
}

// buildGitops builds a kustomize unit, as its GitOps entry's controller
// does when it has one (gitopsRoot, applyGitops).
func buildGitops(u *unit) (b *kustomize.Build, uses map[string][]gitops.Use, err error) {
	var root *kustomize.Root
	if u.gitops != nil {
		if root, err = gitopsRoot(u); err != nil {
			return nil, nil, err
		}
	}
	b, err = kustomize.RunAs(u.shown, root) // as the error message shows it
	if err != nil {
		return b, nil, err
	}
	if u.gitops != nil {
		if uses, err = applyGitops(u.gitops, b); err != nil {
			return b, nil, err
		}
	}
	return b, uses, nil
}

// locateBuilt maps a field of a built object to the line that wrote it;
// an object the build does not hold stays on the kustomization file.
func locateBuilt(b *kustomize.Build, obj *diag.Object, path string, atKey bool) (kustomize.Location, bool) {
	if obj != nil {
		if o := b.Find(obj.Kind, obj.Name, obj.Namespace); o != nil {
			return b.Locate(o, path, atKey), true
		}
	}
	return kustomize.Location{Pos: kustomize.Pos{File: b.File, Line: 1, Column: 1, EndLine: 1, EndColumn: 2}}, false
}

// unmappedVar is kustomize's error on a var whose object is not among the
// resources built.
var unmappedVar = regexp.MustCompile(`^var '[^']*' cannot be mapped to a field in the set of known resources`)

// baseVars makes info the build error of a base whose var names an object
// it does not hold: vars are resolved over what the overlay builds
// (kubebuilder's config/certmanager names the Service of ../webhook, both
// read by config/default), so building the base alone, which its project
// never does, is what fails.
func baseVars(u *unit, ds []diag.Diagnostic) {
	for i := range ds {
		d := &ds[i]
		if d.Rule == rules.KustomizeBuildRule && d.Severity == diag.Error && unmappedVar.MatchString(d.Message) {
			d.Severity = diag.Info
			d.Message = strings.Replace(d.Message, kustomizeNotBuilt, "; a base ("+u.baseBy+"): its overlay resolves vars"+kustomizeNotBuilt, 1)
		}
	}
}

// kustomizeNotBuilt ends the message of a kustomization that was not built.
const kustomizeNotBuilt = "; its files are linted alone"

// kustomizeErrors reports a kustomization that was not built. The files
// it would have read are then linted one by one (when no other unit uses
// them), and the message says so.
func kustomizeErrors(dir string, b *kustomize.Build, err error) []diag.Diagnostic {
	const after = kustomizeNotBuilt
	mk := func(file string, line, col, endCol int, msg string) diag.Diagnostic {
		sev := rules.MustLookup(rules.KustomizeBuildRule).Severity
		if by := missingGenerated(filepath.Dir(file), msg); by != "" {
			// Not built yet, not wrong: the project makes the file.
			sev, msg = diag.Info, msg+"; "+by
		} else if missingFileIn.MatchString(msg) && !inRepository(filepath.Dir(absPath(file))) {
			// Broken only if nothing the input leaves out makes it.
			sev, msg = diag.Info, msg+"; "+outsideRepository
		}
		return diag.Diagnostic{
			File: absPath(file), Line: line, Column: col, EndLine: line, EndColumn: endCol,
			Severity: sev, Rule: rules.KustomizeBuildRule,
			Message: msg + after,
		}
	}
	var ps kustomize.Problems
	if errors.As(err, &ps) {
		out := make([]diag.Diagnostic, 0, len(ps))
		for _, p := range ps {
			d := mk(p.File, p.Line, p.Column, p.EndCol, p.Msg)
			if p.Remote {
				// Offline by design: the build is not wrong, only not linted.
				d.Severity = diag.Warning
			}
			out = append(out, d)
		}
		return out
	}
	var se *kustomize.SyntaxError
	if errors.As(err, &se) {
		// Where and what as the YAML parser's error is reported for any
		// manifest; the file linted one by one then does not say it again
		// (dropSyntaxRestated).
		if d, ok := syntaxError(se.File); ok {
			return []diag.Diagnostic{mk(se.File, d.Line, d.Column, d.EndColumn, d.Message)}
		}
	}
	file, line, msg := filepath.Join(dir, "kustomization.yaml"), 1, err.Error()
	if f, ok := kustomize.FailedIn(err); ok {
		file = f // the base's, when the base is what fails
		msg, _ = kustomize.Cause(err)
	} else if b != nil {
		file = b.File
	} else if f, ok := kustomize.FileIn(dir); ok {
		file = f
	}
	col, endCol := 1, 2
	if l, c, ok := kustomize.EntryLine(file, msg); ok {
		line, col, endCol = l, c, c+1
	}
	return []diag.Diagnostic{mk(file, line, col, endCol, msg)}
}

// syntaxError is the first YAML syntax error of a file, as the parser of
// manifests positions it.
func syntaxError(file string) (diag.Diagnostic, bool) {
	data, err := overlay.ReadFile(file)
	if err != nil {
		return diag.Diagnostic{}, false
	}
	for _, d := range manifest.Parse(file, data).Diagnostics {
		if d.Rule == rules.YAMLSyntaxRule {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}

// dropSyntaxRestated drops from the findings of files linted one by one
// the YAML syntax errors that a failed build reports already, at the same
// place: one cause, one finding.
func dropSyntaxRestated(failed []*unitResult, alone []*unitResult) {
	type at struct {
		file      string
		line, col int
	}
	said := map[at]bool{}
	for _, r := range failed {
		for _, d := range r.diags {
			if d.Rule == rules.KustomizeBuildRule {
				said[at{absPath(d.File), d.Line, d.Column}] = true
			}
		}
	}
	for _, r := range alone {
		r.diags = slices.DeleteFunc(r.diags, func(d diag.Diagnostic) bool {
			return d.Rule == rules.YAMLSyntaxRule && said[at{absPath(d.File), d.Line, d.Column}]
		})
	}
}

// cycleError reports a kustomization that includes itself, at its entry
// that starts the cycle. It is not built: kustomize would fail, and its
// files are linted one by one like those of any failed build.
func cycleError(u *unit) diag.Diagnostic {
	at := u.cycleAt
	if at.Line == 0 {
		at.Line, at.Column, at.EndLine, at.EndColumn = 1, 1, 1, 2
	}
	names := []string{display(at.File)}
	for _, d := range u.cycle[1:] {
		names = append(names, display(d))
	}
	return diag.Diagnostic{
		File: at.File, Line: at.Line, Column: at.Column, EndLine: at.Line, EndColumn: at.EndColumn,
		Severity: rules.MustLookup(rules.KustomizeBuildRule).Severity, Rule: rules.KustomizeBuildRule,
		Message: "kustomization cycle " + strings.Join(names, " -> ") +
			": kustomize cannot build it; remove one of these references" + kustomizeNotBuilt,
	}
}

// probeNamespace is a release namespace no chart expects: a finding the
// chart has in "default" but not there rests on the namespace.
const probeNamespace = "webhooklint-release"

// lintChart renders a chart and lints its manifests together (lintRendered).
// When nothing gave the release namespace, the chart is rendered again into
// each namespace its values name and into probeNamespace: a warning or error
// that one of those renders lacks holds only under the assumed namespace,
// and is info that names the assumption and how to state it.
func lintChart(u *unit, lo lint.Options) *unitResult {
	r := lintRendered(u, lo)
	releaseNameHeld(u, lo, r)
	ns := chartContext(u.chart).Namespace
	judged := func(d diag.Diagnostic) bool { return d.Severity > diag.Info && namespaceRules[d.Rule] }
	if r.failed || ns.Known() || !slices.ContainsFunc(r.diags, judged) {
		return r // a render is costly (linkerd's takes seconds): only when it can change a level
	}
	held := make([]bool, len(r.diags))
	for i := range held {
		held[i] = true
	}
	for _, other := range append(helm.ValuesNamespaces(u.dir, u.chart.ValuesFiles, 3), probeNamespace) {
		v := *u
		v.chart.Namespace = other
		there := map[string]bool{}
		for _, d := range lintRendered(&v, lo).diags {
			there[namespaceFree(d, other)] = true
		}
		for i, d := range r.diags {
			held[i] = held[i] && there[namespaceFree(d, ns.Value)]
		}
	}
	note := "; " + assumption("release namespace", ns)
	for i := range r.diags {
		if d := &r.diags[i]; !held[i] && judged(*d) {
			// DependsOnOverlay: a severity override does not raise it again.
			d.Severity, d.Message, d.DependsOnOverlay = diag.Info, d.Message+note, true
		}
	}
	return r
}

// releaseNameHeld lowers to info the warnings of releaseNameRules that a
// chart whose release name nobody gave has only under the assumed name:
// rendered again with the chart's own name as the release name (what its
// install docs usually run, `helm install <chart> ...`), the same template
// line no longer has them.
func releaseNameHeld(u *unit, lo lint.Options, r *unitResult) {
	name := chartContext(u.chart).ReleaseName
	judged := func(d diag.Diagnostic) bool { return d.Severity > diag.Info && releaseNameRules[d.Rule] }
	if r.failed || name.Known() || r.chart == "" || r.chart == name.Value || !slices.ContainsFunc(r.diags, judged) {
		return
	}
	v := *u
	v.chart.ReleaseName = r.chart
	there := map[string]bool{}
	for _, d := range lintRendered(&v, lo).diags {
		there[fmt.Sprintf("%s\x00%s\x00%d\x00%d", d.Rule, d.File, d.Line, d.Column)] = true
	}
	note := "; " + assumption("release name", name)
	for i := range r.diags {
		d := &r.diags[i]
		if judged(*d) && !there[fmt.Sprintf("%s\x00%s\x00%d\x00%d", d.Rule, d.File, d.Line, d.Column)] {
			d.Severity, d.Message, d.DependsOnOverlay = diag.Info, d.Message+note, true
		}
	}
}

// releaseNameRules are the rules whose findings compare names a chart
// usually derives from the release name with names it may write out by
// hand (a Certificate's dnsNames).
var releaseNameRules = map[string]bool{rules.ServingCertificateRule: true}

// namespaceRules are the rules whose findings compare namespaces or what
// lives in them (the backend's namespace, the Service a webhook calls, who
// may write the caBundle): those of rules.Rule.DependsOnOverlay and those
// that mark some findings so. The others (replicas, probes, timeouts) read
// nothing the release namespace changes.
var namespaceRules = map[string]bool{
	rules.SelfDeadlockRule: true, rules.SystemCriticalScopeRule: true, rules.PolicySystemCriticalScopeRule: true,
	rules.ServiceReferenceRule: true, rules.UnresolvedReferenceRule: true, rules.CABundleRule: true,
	rules.CertificateCycleRule: true, rules.ConversionWebhookRule: true, rules.ServingCertificateRule: true,
}

// namespaceFree identifies a finding of a chart rendered into namespace ns
// across renders into other namespaces: where it is and what it says, with
// the namespace where messages quote it.
func namespaceFree(d diag.Diagnostic, ns string) string {
	msg := strings.NewReplacer(`"`+ns+`"`, `"\x00"`, `"`+ns+`/`, `"\x00/`).Replace(d.Message)
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", d.Rule, d.File, d.Line, d.Column, msg)
}

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
	kv := ""
	if lo.Settings != nil {
		kv = fmt.Sprintf("v%d.%d.0", lo.Settings.KubeVersion.Major, lo.Settings.KubeVersion.Minor)
	}
	renderDiag := func(err error) diag.Diagnostic {
		d := diag.Diagnostic{
			File: filepath.Join(u.shown, "Chart.yaml"), Line: 1, Column: 1, EndLine: 1, EndColumn: 2,
			Severity: rules.MustLookup(rules.HelmRenderRule).Severity, Rule: rules.HelmRenderRule,
			Message: err.Error(),
		}
		var he *helm.Error
		if errors.As(err, &he) {
			d.File, d.Line, d.Column, d.EndLine, d.EndColumn = he.File, he.Line, he.Column, he.Line, he.Column+1
			d.Message = he.Msg
			if he.NeedsValue {
				d.Severity = diag.Warning // a value to give, not a broken chart
			}
		}
		return d
	}
	c, err := renderChart(u, kv)
	if err != nil {
		return &unitResult{failed: true, diags: []diag.Diagnostic{renderDiag(err)}}
	}
	// Templates that failed or passed a render limit: reported, and the
	// rest of the chart is linted.
	var problems []diag.Diagnostic
	for _, e := range c.Skipped {
		d := renderDiag(e)
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
	var post *postRendered
	if u.gitops != nil && len(u.gitops.Chart.PostRender) > 0 {
		if post, err = postRender(u.gitops, c); err != nil {
			problems = append(problems, postRenderProblem(u.gitops, err))
		}
	}
	origin := u.label()
	var files []*manifest.File
	byName := map[string]*helm.Template{}
	for _, t := range c.Templates {
		files = append(files, manifest.Parse(t.File, t.Rendered))
		byName[t.File] = t
	}
	for _, crd := range c.CRDs {
		// Not templates: their findings are where they are.
		files = append(files, manifest.Parse(crd.File, crd.Data))
	}
	if u.gitops == nil {
		// An entry gives the values: they are chosen, not defaults.
		markValueDriven(u, files, byName)
	}
	markRegeneratedCABundles(files, byName)
	res := lint.LintUnit(lint.Unit{Files: files}, lo)
	docsOf := map[string]*manifest.File{}
	for _, f := range files {
		docsOf[f.Name] = f
	}
	for i := range res.Diagnostics {
		d := &res.Diagnostics[i]
		t := byName[d.File]
		if t == nil {
			continue
		}
		for j := range d.Related {
			r := &d.Related[j]
			if rt := byName[r.File]; rt != nil {
				tr := traceTemplate(u, rt, docsOf[r.File], r.Line, r.Path)
				r.File, r.Line, r.Column, r.EndLine, r.EndColumn = tr.File, tr.Line, tr.Column, tr.Line, tr.EndColumn
			}
		}
		tr := traceTemplate(u, t, docsOf[d.File], d.Line, d.Path)
		d.File, d.Line, d.Column, d.EndLine, d.EndColumn = tr.File, tr.Line, tr.Column, tr.Line, tr.EndColumn
		if t.Source == nil {
			// A packaged subchart: no template file to point into; the
			// finding stays on the chart.
			d.Origin = origin + ", # Source: " + t.Name
			continue
		}
		var how string
		switch {
		case d.Path == "":
		case !tr.Exact:
			how = "; the field is not written in the template, shown at the closest enclosing key"
		case !tr.Literal:
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
					File: vs.File, Line: vs.Line, Column: vs.Column, EndLine: vs.Line, EndColumn: vs.Column + 1,
					Message: fmt.Sprintf("chart value %s is set here", vs.Key),
				})
			}
		}
		d.Origin = origin + ", # Source: " + t.Name + how
	}
	post.relocate(res.Diagnostics)
	res.Diagnostics = append(res.Diagnostics, problems...)
	for _, dep := range c.MissingDeps {
		line, col := max(dep.Line, 1), max(dep.Column, 1)
		res.Diagnostics = append(res.Diagnostics, diag.Diagnostic{
			File: filepath.Join(u.dir, "Chart.yaml"), Line: line, Column: col, EndLine: line, EndColumn: col + 1,
			Severity: diag.Info, Rule: rules.HelmRenderRule, Origin: origin,
			Message: fmt.Sprintf("dependency %s (%s) is not under charts/ and webhooklint renders offline: the chart was linted without it; run `helm dependency build` to lint it too",
				dep.Name, dep.Repository),
		})
	}
	r := &unitResult{diags: res.Diagnostics, configs: res.Configs, policies: res.Policies, internal: res.Internal, chart: c.Name}
	if fluxEntry(u) {
		r.applied = appliedBy(files, u.chart.Namespace) // helm installs into the release namespace
	}
	return r
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
	return helm.Render(u.shown, helm.Options{ // u.shown: as messages name it
		ValuesFiles: u.chart.ValuesFiles, Values: u.chart.Values, Set: u.chart.Set, SetString: u.chart.SetString,
		ReleaseName: u.chart.ReleaseName, Namespace: u.chart.Namespace, KubeVersion: kubeVersion,
	})
}

// traceTemplate maps a field of a rendered document (by a line in it) to
// the template line that wrote it; File is always set: the template, the
// file of the named template that wrote the field, or the chart's
// Chart.yaml for a packaged subchart, which has no template to point into.
func traceTemplate(u *unit, t *helm.Template, f *manifest.File, line int, path string) helm.Trace {
	if t.Source == nil {
		return helm.Trace{File: filepath.Join(u.dir, "Chart.yaml"), Line: 1, Column: 1, EndColumn: 2}
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
	return tr
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
				if tr := t.Trace(d.Index, fmt.Sprintf("webhooks[%d].timeoutSeconds", i)); tr.Exact && !tr.Literal {
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

// isAtKey reports whether a diagnostic on rendered text points at its
// field's key (an unknown or duplicate field) rather than its value.
func isAtKey(data []byte, d diag.Diagnostic) bool {
	lines := bytes.Split(data, []byte{'\n'})
	if d.Line < 1 || d.Line > len(lines) || d.Path == "" {
		return false
	}
	r := []rune(string(lines[d.Line-1]))
	if d.Column < 1 || d.Column > len(r) {
		return false
	}
	rest := string(r[d.Column-1:])
	key := d.Path
	if strings.HasSuffix(key, "]") {
		if i := strings.LastIndexByte(key, '['); i >= 0 {
			key = key[i+1 : len(key)-1]
		}
	} else if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	return strings.HasPrefix(rest, key+":") || strings.HasPrefix(rest, `"`+key+`":`) || strings.HasPrefix(rest, "'"+key+"':")
}

// display shows a path relative to the working folder when it is inside
// it, as paths given on the command line are.
func display(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
