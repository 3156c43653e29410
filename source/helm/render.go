// Package helm renders a chart in-process with the Helm v4 engine, as
// `helm template` would with the chart's default values and any --values
// files, offline: no repository is contacted, no cluster is looked up
// (the `lookup` function returns nothing), and a chart whose dependencies
// are not vendored under charts/ is reported instead of downloaded.
//
// Each rendered document remembers the template that produced it, and a
// finding's field path is traced back to a template line by looking for
// the path's keys in the template text (see Trace).
package helm

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// ReleaseName and Namespace are what `helm template` uses by default.
const (
	ReleaseName = "release-name"
	Namespace   = "default"
)

// Options tune a render.
type Options struct {
	// ValuesFiles are merged over the chart's values.yaml, in order.
	ValuesFiles []string
	// Set and SetString are --set and --set-string values (Helm's strvals
	// syntax: a.b=c,d[0]=e), applied over the values files in order.
	Set, SetString []string
	// Values are merged over the values files, in order, before Set: the
	// values a GitOps entry gives (a HelmRelease's valuesFrom and values).
	Values []map[string]any
	// ReleaseName and Namespace are .Release.Name and .Release.Namespace;
	// empty means what `helm template` uses.
	ReleaseName, Namespace string
	// KubeVersion is reported to templates as .Capabilities.KubeVersion,
	// e.g. "v1.37.0"; empty keeps Helm's default.
	KubeVersion string
	// Edited stands in for the text of the chart's templates and its
	// values.yaml (absolute paths): the render with a fix made, without
	// writing it.
	Edited map[string][]byte
}

// Dependency is a dependency Chart.yaml declares.
type Dependency struct {
	Name, Repository string
	// Alias is the name its values and templates go by, when it has one.
	Alias string
	// Line and Column locate its entry in Chart.yaml (0 when unknown).
	Line, Column int
}

// Template is one rendered template file.
type Template struct {
	// Name is Helm's name for it (chart/templates/x.yaml), as in the
	// `# Source:` header of `helm template`.
	Name string
	// File is the template on disk.
	File string
	// Rendered is the output.
	Rendered []byte
	// Source is the template text, for tracing.
	Source []byte
	// defines are the chart's named templates, shared by its templates,
	// for tracing a field written in one (see Trace).
	defines map[string]*define
	// Again is the output of a second render, made only when the chart
	// generates certificates while rendering (genCA, genSelfSignedCert,
	// genSignedCert): what differs between the two renders changes at
	// every render without a cluster (helm template, Argo CD), and at
	// every upgrade unless Lookup keeps it.
	Again []byte
	// Lookup says the chart calls lookup, the way it reuses a certificate
	// it installed; Installed is then a render whose lookup answers with
	// the first render's objects, as at helm upgrade (installed.go).
	Lookup    bool
	Installed []byte
}

// Chart is a rendered chart.
type Chart struct {
	Dir       string
	Name      string
	Templates []*Template
	// Skipped are templates that were not rendered because they failed or
	// passed a limit of the render (time, memory, output size); the
	// other templates were rendered without them.
	Skipped []*Error
	// MissingDeps are enabled dependencies that are neither vendored
	// under charts/ nor a local file:// chart: rendering needs the
	// network, so the chart was rendered without them.
	MissingDeps []Dependency
	// LocalDeps are the folders of file:// dependencies rendered with it.
	LocalDeps []string
	// CRDs are the files of its crds/ folders (and its enabled
	// dependencies'), which helm install applies as they are before the
	// templates and helm template leaves out.
	CRDs []CRDFile
}

// CRDFile is a file of a chart's crds/ folder.
type CRDFile struct {
	File string
	Data []byte
}

// Error is a chart that cannot be rendered, located where possible.
type Error struct {
	diag.Span
	Msg string
	// NeedsValue: the chart stopped on purpose (required, fail) because
	// a value it has no default for was not given; Msg says how to give
	// it. Not a broken chart: a warning.
	NeedsValue bool
}

func (e *Error) Error() string { return e.Msg }

// IsChart reports whether dir holds a chart (a Chart.yaml).
func IsChart(dir string) bool {
	fi, err := overlay.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && fi.Mode().IsRegular()
}

// overlayBuffers puts an editor's unsaved templates and values.yaml in
// place of what the loader read from disk.
func overlayBuffers(c *chart.Chart, dir string, edited map[string][]byte) error {
	get := func(file string) ([]byte, bool) {
		if data, ok := edited[file]; ok {
			return data, true
		}
		return overlay.Get(file)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for _, t := range c.Templates {
		if data, ok := get(filepath.Join(abs, filepath.FromSlash(t.Name))); ok {
			t.Data = data
		}
	}
	file := filepath.Join(dir, "values.yaml")
	if data, ok := get(filepath.Join(abs, "values.yaml")); ok {
		v, err := common.ReadValues(data)
		if err != nil {
			return &Error{Span: diag.Span{File: file, Line: 1, Column: 1}, Msg: fmt.Sprintf("cannot read values file %s: %v", file, err)}
		}
		c.Values = v
	}
	return nil
}

// Render renders the chart in dir: it loads the chart, merges the values
// given, renders the templates (again, when they generate certificates)
// and keeps each template's output with its source and file.
func Render(dir string, opts Options) (*Chart, error) {
	chartFile := filepath.Join(dir, "Chart.yaml")
	c, localDirs, err := loadChart(dir, chartFile, opts.Edited)
	if err != nil {
		return nil, err
	}
	vals, err := givenValues(opts, chartFile)
	if err != nil {
		return nil, err
	}
	if err := chartutil.ProcessDependencies(c, vals); err != nil {
		return nil, &Error{Span: diag.Span{File: chartFile, Line: 1, Column: 1}, Msg: fmt.Sprintf("chart %s: %v", dir, err)}
	}
	release := releaseOf(opts)
	top, err := util.ToRenderValues(c, vals, release, capabilities(opts.KubeVersion))
	if err != nil {
		if e := schemaError(dir, c.Name(), opts.ValuesFiles, append(slices.Clip(opts.Set), opts.SetString...), err); e != nil {
			return nil, e
		}
		return nil, &Error{Span: diag.Span{File: chartFile, Line: 1, Column: 1}, Msg: fmt.Sprintf("chart %s: %v", dir, err)}
	}
	r, err := renderChart(c, top, dir, release.Namespace)
	if err != nil {
		return nil, err
	}
	res := &Chart{Dir: dir, Name: c.Name(), Skipped: r.skipped, MissingDeps: missingDependencies(c, chartFile)}
	for _, d := range localDirs {
		res.LocalDeps = append(res.LocalDeps, d)
	}
	slices.Sort(res.LocalDeps)
	res.addTemplates(r, localDirs)
	for _, crd := range c.CRDObjects() {
		// A packaged subchart's CRDs have no file to point at.
		if f := fileOf(dir, filepath.ToSlash(crd.Filename), localDirs); crd.File != nil && fileExists(f) && len(crd.File.Data) <= MaxOutput {
			res.CRDs = append(res.CRDs, CRDFile{File: f, Data: crd.File.Data})
		}
	}
	return res, nil
}

// loadChart loads the chart in dir with the editor's buffers over its
// files, and its dependencies vendored as local folders.
func loadChart(dir, chartFile string, edited map[string][]byte) (*chart.Chart, map[string]string, error) {
	overlay.Note(overlay.OpTree, dir) // helm's loader reads the folder whole
	c, err := loader.Load(dir)
	if err != nil {
		return nil, nil, &Error{Span: diag.Span{File: chartFile, Line: 1, Column: 1}, Msg: fmt.Sprintf("cannot load chart %s: %v", dir, err)}
	}
	if err := overlayBuffers(c, dir, edited); err != nil {
		return nil, nil, err
	}
	localDirs, err := loadLocalDependencies(c, dir)
	if err != nil {
		return nil, nil, err
	}
	return c, localDirs, nil
}

// givenValues merges the values given, as helm does: values files, then
// values, then --set and --set-string.
func givenValues(opts Options, chartFile string) (map[string]any, error) {
	vals := map[string]any{}
	for _, f := range opts.ValuesFiles {
		overlay.Note(overlay.OpRead, f)
		v, err := common.ReadValuesFile(f)
		if err != nil {
			return nil, &Error{Span: diag.Span{File: f, Line: 1, Column: 1}, Msg: fmt.Sprintf("cannot read values file %s: %v", f, err)}
		}
		vals = loader.MergeMaps(vals, v)
	}
	for _, v := range opts.Values {
		vals = loader.MergeMaps(vals, v)
	}
	for _, s := range opts.Set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, &Error{Span: diag.Span{File: chartFile, Line: 1, Column: 1}, Msg: fmt.Sprintf("--set %s: %v", s, err)}
		}
	}
	for _, s := range opts.SetString {
		if err := strvals.ParseIntoString(s, vals); err != nil {
			return nil, &Error{Span: diag.Span{File: chartFile, Line: 1, Column: 1}, Msg: fmt.Sprintf("--set-string %s: %v", s, err)}
		}
	}
	return vals, nil
}

// capabilities are helm's defaults at the target Kubernetes version.
func capabilities(kubeVersion string) *common.Capabilities {
	caps := common.DefaultCapabilities.Copy()
	if kubeVersion != "" {
		kv, err := common.ParseKubeVersion(kubeVersion)
		if err == nil {
			caps.KubeVersion = *kv
		}
	}
	return caps
}

// releaseOf is the release the chart is installed as.
func releaseOf(opts Options) common.ReleaseOptions {
	release := common.ReleaseOptions{Name: ReleaseName, Namespace: Namespace, Revision: 1, IsInstall: true}
	if opts.ReleaseName != "" {
		release.Name = opts.ReleaseName
	}
	if opts.Namespace != "" {
		release.Namespace = opts.Namespace
	}
	return release
}

// renders is what rendering a chart gave: each template's output (by
// name), the templates skipped, and when the templates generate
// certificates, a second render (again) and one where lookup finds what
// the first installed (when they look it up).
type renders struct {
	out, again, installed map[string]string
	skipped               []*Error
	sources               map[string][]byte
	lookup                bool
}

// renderChart renders the templates, and again when they generate
// certificates: what only changes between renders is regenerated.
func renderChart(c *chart.Chart, top common.Values, dir, namespace string) (*renders, error) {
	out, skipped, err := renderBounded(c, top, dir, nil)
	if err != nil {
		return nil, err
	}
	r := &renders{out: out, skipped: skipped, sources: map[string][]byte{}}
	collectSources(c, "", r.sources)
	var gen bool
	gen, r.lookup = generatesCertificates(r.sources)
	if gen {
		// The failing templates were removed by the first render.
		r.again, _, _ = renderBounded(c, top, dir, nil)
	}
	if gen && r.lookup {
		r.installed, _, _ = renderBounded(c, top, dir, map[string]any{"lookup": installedLookup(out, namespace)})
	}
	return r, nil
}

// addTemplates keeps the templates that rendered objects, in name order,
// each with its source and the defines of the chart for tracing; output
// over MaxOutput is skipped.
func (res *Chart) addTemplates(r *renders, localDirs map[string]string) {
	dir := res.Dir
	defines := map[string]*define{}
	for _, n := range slices.Sorted(maps.Keys(r.sources)) {
		// A packaged subchart's templates have no file to point at.
		if f := fileOf(dir, n, localDirs); fileExists(f) {
			parseDefines(f, r.sources[n], defines)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(r.out)) {
		base := filepath.Base(n)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" || len(bytes.TrimSpace([]byte(r.out[n]))) == 0 {
			continue
		}
		if len(r.out[n]) > MaxOutput {
			res.Skipped = append(res.Skipped, &Error{Span: diag.Span{File: fileOf(dir, n, localDirs), Line: 1, Column: 1},
				Msg: fmt.Sprintf("template %s renders %d bytes, more than the %d MiB webhooklint reads from one file; not linted", n, len(r.out[n]), MaxOutput>>20)})
			continue
		}
		t := &Template{
			Name: n, File: fileOf(dir, n, localDirs), Rendered: []byte(r.out[n]), Source: r.sources[n], defines: defines,
			Lookup: r.lookup,
		}
		if a, ok := r.again[n]; ok {
			t.Again = []byte(a)
		}
		if a, ok := r.installed[n]; ok {
			t.Installed = []byte(a)
		}
		res.Templates = append(res.Templates, t)
	}
}

var (
	certificateFuncs = lazy.Regexp(`\bgen(CA|CAWithKey|SelfSignedCert|SelfSignedCertWithKey|SignedCert|SignedCertWithKey)\b`)
	lookupFunc       = lazy.Regexp(`\blookup\b`)
)

// generatesCertificates reports whether the chart's templates generate a
// certificate while rendering, and whether some of them call lookup (the
// way a chart reuses the certificate of its installed Secret).
func generatesCertificates(sources map[string][]byte) (gen, lookup bool) {
	for _, src := range sources {
		lookup = lookup || lookupFunc().Match(src)
		gen = gen || certificateFuncs().Match(src)
	}
	return gen, lookup
}

// loadLocalDependencies adds the file:// dependencies Chart.yaml declares
// and charts/ does not hold, read from their folders as `helm dependency
// build` would copy them (offline). It returns their folders by name.
func loadLocalDependencies(c *chart.Chart, dir string) (map[string]string, error) {
	dirs := map[string]string{}
	if c.Metadata == nil {
		return dirs, nil
	}
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	for _, d := range c.Metadata.Dependencies {
		if d == nil || have[d.Name] || !strings.HasPrefix(d.Repository, "file://") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(d.Repository, "file://")))
		overlay.Note(overlay.OpTree, p)
		sub, err := loader.Load(p)
		if err != nil {
			return nil, &Error{Span: diag.Span{File: filepath.Join(dir, "Chart.yaml"), Line: 1, Column: 1},
				Msg: fmt.Sprintf("chart %s: cannot load dependency %s from %s: %v", c.Name(), d.Name, d.Repository, err)}
		}
		c.AddDependency(sub)
		have[d.Name] = true
		dirs[sub.Name()] = p
	}
	return dirs, nil
}

// missingDependencies lists the enabled dependencies that could not be
// loaded offline (ProcessDependencies has removed the disabled ones).
func missingDependencies(c *chart.Chart, chartFile string) []Dependency {
	if c.Metadata == nil {
		return nil
	}
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	// Helm renames an aliased dependency to its alias as it processes
	// them; Chart.yaml, read again, has the name that is its folder.
	written := writtenDependencies(chartFile)
	var out []Dependency
	for i, d := range c.Metadata.Dependencies {
		if d == nil || have[d.Name] {
			continue
		}
		dep := Dependency{Name: d.Name, Repository: d.Repository, Alias: d.Alias}
		if len(written) == len(c.Metadata.Dependencies) && written[i].Name != "" {
			dep.Name, dep.Alias = written[i].Name, written[i].Alias
		}
		dep.Line, dep.Column = dependencyLine(chartFile, dep.Name)
		out = append(out, dep)
	}
	return out
}

// writtenDependencies reads the dependencies of a Chart.yaml as written.
func writtenDependencies(chartFile string) []Dependency {
	data, err := overlay.ReadDiskFile(chartFile)
	if err != nil {
		return nil
	}
	var meta struct {
		Dependencies []Dependency `json:"dependencies"`
	}
	if yaml.Unmarshal(data, &meta) != nil {
		return nil
	}
	return meta.Dependencies
}

// dependencyLine finds the "name: X" line of a dependency in Chart.yaml.
func dependencyLine(chartFile, name string) (line, col int) {
	data, err := overlay.ReadDiskFile(chartFile)
	if err != nil {
		return 0, 0
	}
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimLeft(l, " -")
		if v, ok := strings.CutPrefix(t, "name:"); ok && strings.Trim(strings.TrimSpace(v), `"'`) == name {
			return i + 1, len(l) - len(t) + 1
		}
	}
	return 0, 0
}

// collectSources maps Helm's template names to their text, subcharts
// included (chart/charts/sub/templates/x.yaml).
func collectSources(c *chart.Chart, prefix string, out map[string][]byte) {
	p := prefix + c.Name()
	for _, t := range c.Templates {
		out[p+"/"+t.Name] = t.Data
	}
	for _, d := range c.Dependencies() {
		collectSources(d, p+"/charts/", out)
	}
}

func fileExists(path string) bool {
	fi, err := overlay.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// fileOf maps a template name to its file on disk (for directory charts;
// a packaged subchart's templates have no file of their own).
func fileOf(dir, name string, localDirs map[string]string) string {
	_, rest, ok := strings.Cut(name, "/")
	if !ok {
		return filepath.Join(dir, name)
	}
	if sub, inDep, ok := strings.Cut(strings.TrimPrefix(rest, "charts/"), "/"); ok && strings.HasPrefix(rest, "charts/") && localDirs[sub] != "" {
		return filepath.Join(localDirs[sub], filepath.FromSlash(inDep))
	}
	return filepath.Join(dir, filepath.FromSlash(rest))
}

// maxAttempts bounds how often a render is retried without the
// templates that failed.
const maxAttempts = 8

// renderBounded renders the chart within the limits of budget.go. A
// template that fails (its own error, or a limit) is reported where Helm
// says it failed, removed, and the rest rendered again, so one broken or
// hostile template does not hide the others.
func renderBounded(c *chart.Chart, top common.Values, dir string, funcs map[string]any) (map[string]string, []*Error, error) {
	var skipped []*Error
	// removedBy maps each removed template to the failure that removed it;
	// dependents lists, per failure, the templates removed only because
	// they include one it removed.
	removedBy := map[string]*Error{}
	dependents := map[*Error][]string{}
	for attempt := 0; ; attempt++ {
		out, stuck, err := renderOnce(c, top, dir, funcs)
		if stuck != nil {
			return nil, nil, stuck
		}
		if err == nil {
			return out, restLinted(skipped, dependents), nil
		}
		e, name := templateError(dir, c.Name(), err)
		if name == "" || attempt+1 >= maxAttempts || !removeTemplate(c, name) {
			return nil, nil, e
		}
		// A template that includes one removed above fails only because
		// of that removal (kargo's api/deployment.yaml takes a checksum
		// of api/secret.yaml, which fails without a value): helm template
		// would report the first failure alone, so this one is not
		// another finding.
		if cause := removedBy[missingInclude(err)]; cause != nil {
			removedBy[name] = cause
			dependents[cause] = append(dependents[cause], strings.TrimPrefix(name, c.Name()+"/"))
			continue
		}
		removedBy[name] = e
		skipped = append(skipped, e)
	}
}

// renderOnce renders the chart once within a fresh budget: err is what
// the render returned, stuck the error of a render that did not finish in
// time.
func renderOnce(c *chart.Chart, top common.Values, dir string, funcs map[string]any) (out map[string]string, stuck *Error, err error) {
	b := newBudget()
	eng := engine.Engine{CustomTemplateFuncs: b.funcs()}
	maps.Copy(eng.CustomTemplateFuncs, funcs)
	type result struct {
		out map[string]string
		err error
	}
	// The context lets Helm stop between templates; the wait below
	// still bounds a template that never returns, five seconds after the
	// budget is spent.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		out, err := eng.RenderWithContext(ctx, c, top)
		done <- result{out, err}
	}()
	grace := 5 * time.Second
	wait := time.NewTimer(b.timeout + grace)
	defer wait.Stop()
	for {
		select {
		case r := <-done:
			return r.out, nil, r.err
		case <-wait.C:
			if left := b.cpuLeft(); left > 0 {
				// A busy machine: the render has not had its
				// time yet.
				wait.Reset(left + grace)
				continue
			}
			// A loop that calls no template function cannot be
			// stopped: the render is abandoned (its goroutine ends
			// with the process; the memory watchdog bounds what it
			// takes).
			cancel()
			overlay.Volatile("render budget")
			return nil, &Error{Span: diag.Span{File: filepath.Join(dir, "Chart.yaml"), Line: 1, Column: 1},
				Msg: fmt.Sprintf("cannot render chart %s: rendering did not finish in %s (a template loops without end?)", c.Name(), b.timeout)}, nil
		}
	}
}

// restLinted finishes the messages of the skipped templates: the rest is
// linted, but the templates that include a skipped one.
func restLinted(skipped []*Error, dependents map[*Error][]string) []*Error {
	for _, e := range skipped {
		e.Msg += "; the rest is linted"
		if ds := dependents[e]; len(ds) > 0 {
			verb := "includes"
			if len(ds) > 1 {
				verb = "include"
			}
			e.Msg += fmt.Sprintf(" but %s, which %s it", strings.Join(ds, " and "), verb)
		}
	}
	return skipped
}

// noTemplate is text/template's error for an include of a template the
// chart does not have.
var noTemplate = lazy.Regexp(`no template "([^"]+)" associated with template`)

// missingInclude returns the template that a render failed to include
// because the chart does not have it, or "".
func missingInclude(err error) string {
	if m := noTemplate().FindStringSubmatch(err.Error()); m != nil {
		return m[1]
	}
	return ""
}

// removeTemplate drops the template Helm names name (chart/templates/x
// or chart/charts/sub/templates/x) from the chart.
func removeTemplate(c *chart.Chart, name string) bool {
	rest, ok := strings.CutPrefix(name, c.Name()+"/")
	if !ok {
		return false
	}
	for i, t := range c.Templates {
		if t.Name == rest {
			c.Templates = slices.Delete(c.Templates, i, i+1)
			return true
		}
	}
	if sub, ok := strings.CutPrefix(rest, "charts/"); ok {
		for _, d := range c.Dependencies() {
			if removeTemplate(d, sub) {
				return true
			}
		}
	}
	return false
}

// templateErrPos finds a template location in Helm's error text:
// chart/templates/x.yaml:12:5, or without column in parse errors.
var templateErrPos = lazy.Regexp(`([^\s():"]+/templates/[^\s():"]+):(\d+)(?::(\d+))?`)

// templateError locates a render failure at the template line Helm names:
// the innermost location (the action that failed, inside an included
// helper if that is where). name is the template whose rendering failed,
// the outermost location, or "" when none is named. Helm's multi-line
// trace is joined into one line.
func templateError(dir, chartName string, err error) (*Error, string) {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	e := &Error{Span: diag.Span{File: filepath.Join(dir, "Chart.yaml"), Line: 1, Column: 1}, Msg: "cannot render chart " + chartName + ": " + msg}
	all := templateErrPos().FindAllStringSubmatch(msg, -1)
	if len(all) == 0 {
		if m := regexp.MustCompile(`\(([^\s()]+/templates/[^\s()]+)\)`).FindStringSubmatch(msg); m != nil {
			e.File = fileOf(dir, m[1], nil)
			return e, m[1]
		}
		return e, ""
	}
	m := all[len(all)-1]
	e.File = fileOf(dir, m[1], nil)
	e.Line, _ = strconv.Atoi(m[2])
	e.Column = 1
	if m[3] != "" {
		// Go templates count the byte offset in the line, from 0.
		off, _ := strconv.Atoi(m[3])
		e.Column = columnOf(e.File, e.Line, off)
	}
	if !needsValue(e, msg) {
		e.Msg = "cannot render chart " + chartName + ": " + tidyTemplateMessage(msg)
	}
	return e, all[0][1]
}
