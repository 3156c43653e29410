package source

import (
	"fmt"
	"io/fs"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/helm"
)

// chartUnit is a Helm chart, rendered with its values: once per entry of
// the configuration's charts: that names it, or per GitOps entry that
// installs it.
var chartUnit unitKind = chartKind{}

type chartKind struct{}

func (chartKind) name() string { return "chart" }

// discoverFile: the charts rendered with the chart whose folder holds the
// file. A file of a library chart has none, and is no manifest either.
func (chartKind) discoverFile(d *discovery, _ manifest.Source, abs string) ([]*unit, bool) {
	return d.chartUnitsHolding(filepath.Dir(abs))
}

// discoverEntry: the chart of anything named inside a chart (its values,
// a template, Chart.yaml): a change there changes the whole render.
func (chartKind) discoverEntry(d *discovery, p askedPath) ([]*unit, bool) {
	return d.chartUnitsHolding(p.folder())
}

// chartUnitsHolding returns the units of the chart that holds dir, if one
// does.
func (d *discovery) chartUnitsHolding(dir string) ([]*unit, bool) {
	c, ok := d.chartHolding(dir)
	if !ok {
		return nil, false
	}
	var units []*unit
	for _, root := range d.chartRoots(c) {
		units = append(units, d.chartUnits(root)...)
	}
	return units, true
}

func (chartKind) key(u *unit) string {
	c := u.chart
	return strings.Join([]string{"c", u.dir, strings.Join(c.ValuesFiles, ","), strings.Join(c.Set, ","),
		strings.Join(c.SetString, ","), c.ReleaseName, c.Namespace}, "\x00")
}

// label is the helm command that renders the unit.
func (chartKind) label(u *unit) string {
	s := "helm template " + display(u.dir)
	for _, v := range u.chart.ValuesFiles {
		s += " --values " + display(v)
	}
	for _, v := range u.chart.Set {
		s += " --set " + v
	}
	for _, v := range u.chart.SetString {
		s += " --set-string " + v
	}
	if u.chart.ReleaseName != "" {
		s += " (release " + u.chart.ReleaseName + ")"
	}
	if u.chart.Namespace != "" {
		s += " --namespace " + u.chart.Namespace
	}
	return s
}

// covers: a chart reads every file of its folder and of its file://
// dependencies'.
func (chartKind) covers(u *unit, abs string) bool {
	for _, d := range u.readDirs {
		if within(abs, d) {
			return true
		}
	}
	return false
}

func (chartKind) reads(*unit) (iter.Seq[string], bool) { return nil, false }

func (chartKind) lint(u *unit, in *lintInput) *unitResult { return lintChart(u, in.lo) }

func (chartKind) load(u *unit, _ *loadInput) Unit {
	out := Unit{Label: u.label()}
	c, err := renderChart(u, "") // simulate's --kube-version is the API server's, not the chart's
	if err != nil {
		out.Problem = err
		return out
	}
	for _, t := range c.Templates {
		out.Files = append(out.Files, manifest.Parse(t.File, t.Rendered))
	}
	return out
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

// chartInfo is what discovery reads of a Chart.yaml.
type chartInfo struct {
	dir     string
	library bool
	// local are the folders of its file:// dependencies.
	local []string
}

func (d *discovery) chart(dir string) *chartInfo {
	if c, ok := d.charts[dir]; ok {
		return c
	}
	c := &chartInfo{dir: dir}
	d.charts[dir] = c
	data, err := overlay.ReadDiskFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return c
	}
	var meta struct {
		Type         string `yaml:"type"`
		Dependencies []struct {
			Repository string `yaml:"repository"`
		} `yaml:"dependencies"`
	}
	if yaml.Unmarshal(data, &meta) != nil {
		return c
	}
	c.library = meta.Type == "library"
	for _, dep := range meta.Dependencies {
		if rest, ok := strings.CutPrefix(dep.Repository, "file://"); ok {
			c.local = append(c.local, filepath.Clean(filepath.Join(dir, filepath.FromSlash(rest))))
		}
	}
	return c
}

// chartHolding finds the chart a folder belongs to: the nearest folder
// with a Chart.yaml at or above it, and, for a subchart vendored under
// another chart's charts/, that chart.
func (d *discovery) chartHolding(dir string) (string, bool) {
	// Asked once per file: a folder of thousands of files stats the
	// Chart.yaml of each ancestor once, not once per file.
	if c, ok := d.holders[dir]; ok {
		return c, c != ""
	}
	c, ok := d.findChartHolding(dir)
	d.holders[dir] = c
	return c, ok
}

func (d *discovery) findChartHolding(dir string) (string, bool) {
	found := ""
	for _, a := range d.ancestors(dir) {
		if helm.IsChart(a) {
			found = a
			break
		}
	}
	if found == "" {
		return "", false
	}
	for {
		parent := filepath.Dir(found)
		if filepath.Base(parent) != "charts" || !helm.IsChart(filepath.Dir(parent)) {
			return found, true
		}
		found = filepath.Dir(parent)
	}
}

// chartRoots returns the charts rendered with chart c: c itself, unless
// another chart of the scope uses it as a file:// dependency (linkerd's
// partials), or it is a library chart.
func (d *discovery) chartRoots(c string) []string {
	var dependents []string
	for _, other := range d.chartsInScope(c) {
		if other != c && slices.Contains(d.chart(other).local, c) {
			dependents = append(dependents, other)
		}
	}
	if len(dependents) == 0 {
		if d.chart(c).library {
			return nil
		}
		return []string{c}
	}
	var out []string
	for _, dep := range dependents {
		for _, r := range d.chartRoots(dep) {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (d *discovery) chartsInScope(c string) []string {
	root := d.scopeRoot(c)
	if cs, ok := d.chartScope[root]; ok {
		return cs
	}
	var cs []string
	_ = overlay.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		if p != root && (skipDir(e.Name()) || e.Name() == "templates") {
			return filepath.SkipDir
		}
		if helm.IsChart(p) {
			cs = append(cs, p)
		}
		return nil
	})
	d.chartScope[root] = cs
	return cs
}

// chartUnits returns the units of a chart folder: one per chart entry of
// the options that names it (each with its own values), else one with the
// run's values.
func (d *discovery) chartUnits(dir string) []*unit {
	if us := d.gitopsCharts[dir]; len(us) > 0 {
		return us
	}
	var out []*unit
	for _, c := range d.so.ChartConfigs {
		if absPath(c.Dir) == dir {
			out = append(out, d.newChartUnit(dir, c))
		}
	}
	if len(out) == 0 {
		out = append(out, d.newChartUnit(dir, Chart{Dir: dir}))
	}
	return out
}

func (d *discovery) newChartUnit(dir string, c Chart) *unit {
	c.Dir = dir
	c.ValuesFiles = append(slices.Clip(c.ValuesFiles), d.so.ValuesFiles...)
	c.Set = append(slices.Clip(c.Set), d.so.Set...)
	c.SetString = append(slices.Clip(c.SetString), d.so.SetString...)
	if c.Namespace == "" && d.so.Namespace != "" {
		c.Namespace, c.GivenBy = d.so.Namespace, "--namespace"
	}
	u := &unit{kind: chartUnit, dir: dir, chart: c}
	var add func(string)
	add = func(p string) {
		if slices.Contains(u.readDirs, p) {
			return
		}
		u.readDirs = append(u.readDirs, p)
		for _, l := range d.chart(p).local {
			add(l)
		}
	}
	add(dir)
	return u
}
