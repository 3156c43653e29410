package gitops

import (
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Options say where entries are looked for and how their sources resolve.
type Options struct {
	// Repo is the repository linted.
	Repo *Repository
	// ChartCache is a folder of unpacked charts (CHART/Chart.yaml or
	// CHART-VERSION/Chart.yaml) that stand in for remote ones.
	ChartCache string
	// Inputs, when set, records what ApplicationSets' Git generators read.
	Inputs *Inputs
}

// Inputs are what ApplicationSets' Git generators read besides the files
// Find is given: the editor server finds its Applications again when one
// changed, which an edit of a linted file does not tell it.
type Inputs struct {
	// Files are the files generators' files (absolute), those that did not
	// parse too: fixing one gives Applications.
	Files []string
	// Globs are the directories generators' patterns (absolute), with what
	// each matched.
	Globs map[string][]string
}

// Moved reports whether a directories generator's pattern matches other
// paths now: a folder was made or removed, which no file event may report
// (a client that watches no files, a folder with no manifest in it).
func (in *Inputs) Moved() bool {
	if in == nil {
		return false
	}
	for pat, was := range in.Globs {
		if now, _ := overlay.Glob(pat); !slices.Equal(now, was) {
			return true
		}
	}
	return false
}

// Find reads the GitOps entries in files (absolute paths). read returns a
// file's text (nil when it cannot be read). Entries are sorted by file and
// line.
func Find(files []string, read func(string) []byte, o Options) []*Entry {
	f := newFinder(files, read, o)
	var out []*Entry
	for _, obj := range f.objs {
		switch {
		case obj.group() == "kustomize.toolkit.fluxcd.io" && obj.kind == "Kustomization":
			if e := f.fluxKustomization(obj); e != nil {
				out = append(out, e)
			}
		case obj.group() == "helm.toolkit.fluxcd.io" && obj.kind == "HelmRelease":
			if e := f.helmRelease(obj); e != nil {
				out = append(out, e)
			}
		case obj.group() == "argoproj.io" && obj.kind == "Application":
			out = append(out, f.application(obj, obj.root)...)
		case obj.group() == "argoproj.io" && obj.kind == "ApplicationSet":
			out = append(out, f.applicationSet(obj)...)
		}
	}
	return out
}

type finder struct {
	o     Options
	objs  []*object
	files []string
	read  func(string) []byte
	// data are the ConfigMaps and Secrets of every file, read on first use.
	data []*object
	// listed caches the files below a repository root (Git files
	// generators).
	listed map[string][]string
}

// newFinder reads the GitOps objects of files: the entries and the
// sources they name.
func newFinder(files []string, read func(string) []byte, o Options) *finder {
	if o.Repo == nil {
		o.Repo = &Repository{}
	}
	var objs []*object
	for _, f := range files {
		data := read(f)
		if data == nil || !MayHold(data) {
			continue
		}
		objs = append(objs, readObjects(f, data)...)
	}
	return &finder{o: o, objs: objs, files: files, read: read}
}

// source finds a Flux source object by kind and name.
func (f *finder) source(kind, namespace, name string) *object {
	for _, o := range f.objs {
		if o.kind == kind && o.name == name && (o.namespace == namespace || o.namespace == "") && strings.HasSuffix(o.group(), "toolkit.fluxcd.io") {
			return o
		}
	}
	return nil
}

// ref reads a sourceRef: kind, namespace (defaulting to the entry's) and
// name.
func ref(n *yaml.Node, ns string) (kind, namespace, name string) {
	kind, namespace, name = str(n, "kind"), str(n, "namespace"), str(n, "name")
	if namespace == "" {
		namespace = ns
	}
	return kind, namespace, name
}

// selfGit reports whether a Flux GitRepository is this checkout: the one
// `flux bootstrap` creates (flux-system), or one whose URL is a remote of
// the repository or a --repo-url, at the branch checked out.
func (f *finder) selfGit(namespace, name string) (bool, string) {
	src := f.source("GitRepository", namespace, name)
	url := ""
	if src != nil {
		url = str(src.spec(), "url")
	}
	if name == "flux-system" {
		return true, url
	}
	if url == "" || !f.o.Repo.Is(url) {
		return false, url
	}
	// Another branch of this repository is another tree (a tenant's, an
	// environment's): this checkout only when it is the branch checked
	// out or the one flux-system syncs, or when neither is known.
	b := str(get(src.spec(), "ref"), "branch")
	if b == "" {
		return true, url
	}
	known := false
	for _, here := range f.fluxSystemBranches() {
		if here == b {
			return true, url
		}
		known = known || here != ""
	}
	if here := f.o.Repo.Branch(); here != "" {
		return here == b, url
	}
	return !known, url
}

// fluxSystemBranches are the branches the flux-system GitRepositories of
// the linted files sync.
func (f *finder) fluxSystemBranches() []string {
	var out []string
	for _, o := range f.objs {
		if o.kind == "GitRepository" && o.name == "flux-system" && strings.HasSuffix(o.group(), "toolkit.fluxcd.io") {
			out = append(out, str(get(o.spec(), "ref"), "branch"))
		}
	}
	return out
}

func (f *finder) base(obj *object, kind string) *Entry {
	return &Entry{Kind: kind, Name: obj.name, Namespace: obj.namespace, At: obj.kindAt}
}

// fluxKustomization reads a kustomize.toolkit.fluxcd.io Kustomization;
// nil for one without a sourceRef kind: a kustomize patch of one (an
// overlay's dev-team-patch.yaml), not an object Flux applies.
func (f *finder) fluxKustomization(obj *object) *Entry {
	spec := obj.spec()
	if str(get(spec, "sourceRef"), "kind") == "" {
		return nil
	}
	e := f.base(obj, "Flux Kustomization")
	e.How = Kustomize
	path := str(spec, "path")
	if path == "" {
		path = "./"
	}
	srcNode := get(spec, "sourceRef")
	kind, ns, name := ref(srcNode, obj.namespace)
	where := e.At
	if srcNode != nil {
		where = at(obj.file, srcNode)
	}
	if self, url := f.selfGit(ns, name); kind != "GitRepository" || !self {
		from := kind + " " + ns + "/" + name
		if url != "" {
			from += " (" + url + ")"
		}
		e.Remote, e.RemoteAt = fmt.Sprintf("%s from %s", path, from), where
		e.RemoteName = remoteFolder(name, path)
		return e
	}
	dir, ok := dirIn(f.o.Repo, obj.file, path)
	if !ok {
		p := e.At
		if n := get(spec, "path"); n != nil {
			p = at(obj.file, n)
		}
		e.Problems = append(e.Problems, errorf(p, "%s: path %s is not a folder of this repository; Flux fails to build it; fix spec.path", e.Label(), path))
		return e
	}
	e.Dir = dir
	fluxKustomizeSettings(&e.Kustomization, obj.file, spec)
	dependsOn(e, obj)
	// Ready only once what it applied is healthy: then, and only then,
	// the entries that depend on it wait for its pods.
	e.Waits = str(spec, "wait") == "true" || len(items(get(spec, "healthChecks"))) > 0
	if pb := get(spec, "postBuild"); pb != nil {
		f.vars(e, obj, pb)
	}
	return e
}

// fluxKustomizeSettings reads what a Flux Kustomization sets over the
// kustomization it builds.
func fluxKustomizeSettings(k *Kustomization, file string, spec *yaml.Node) {
	if n := get(spec, "targetNamespace"); n != nil {
		k.Namespace, k.NamespaceAt = n.Value, at(file, n)
	}
	k.NamePrefix, k.NameSuffix = str(spec, "namePrefix"), str(spec, "nameSuffix")
	for _, p := range items(get(spec, "patches")) {
		if m := decodeMap(p); m != nil {
			k.Patches = append(k.Patches, m)
		}
	}
	for _, im := range items(get(spec, "images")) {
		if m := decodeMap(im); m != nil {
			k.Images = append(k.Images, m)
		}
	}
	for _, c := range items(get(spec, "components")) {
		k.Components = append(k.Components, c.Value)
	}
	if cm := get(spec, "commonMetadata"); cm != nil {
		k.Labels, k.Annotations, k.MetadataOnly = stringMap(get(cm, "labels")), stringMap(get(cm, "annotations")), true
	}
}

// dependsOn reads an entry's dependsOn: entries of its own kind, in its
// namespace unless one is given, and where each is written. Without one,
// DependsOnAt is the spec key, where a dependsOn would be added.
func dependsOn(e *Entry, obj *object) {
	e.DependsOnAt = e.At
	if k := keyNode(obj.root, "spec"); k != nil {
		e.DependsOnAt = at(obj.file, k)
	}
	if k := keyNode(obj.spec(), "dependsOn"); k != nil {
		e.DependsOnAt = at(obj.file, k)
	}
	for _, d := range items(get(obj.spec(), "dependsOn")) {
		ns := str(d, "namespace")
		if ns == "" {
			ns = obj.namespace
		}
		e.DependsOn = append(e.DependsOn, Dependency{Name: ns + "/" + str(d, "name"), At: at(obj.file, d)})
	}
}

// vars reads postBuild: the variables of substituteFrom in order (each
// overriding the earlier), then substitute, which overrides them all, as
// kustomize-controller loads them. Newlines are removed from values, as
// Flux does.
func (f *finder) vars(e *Entry, obj *object, pb *yaml.Node) {
	e.Vars = map[string]Var{}
	for _, r := range items(get(pb, "substituteFrom")) {
		kind, name, optional := str(r, "kind"), str(r, "name"), str(r, "optional") == "true"
		src := f.dataObject(kind, obj.namespace, name)
		if src == nil {
			if !optional {
				e.Problems = append(e.Problems, Problem{At: at(obj.file, r), Warning: true,
					Msg: fmt.Sprintf("%s: substituteFrom %s %s/%s is not in the linted files, so its variables are left as written; lint the folder that holds it, or add it to postBuild.substitute", e.Label(), kind, obj.namespace, name)})
			}
			e.Substitute = true
			continue
		}
		e.Substitute = true
		from := kind + " " + src.namespace + "/" + name
		for key, v := range dataOf(src) {
			e.Vars[key] = Var{Value: strings.ReplaceAll(v.value, "\n", ""), At: v.at, Secret: kind == "Secret", From: from}
		}
	}
	if sub := get(pb, "substitute"); sub != nil && sub.Kind == yaml.MappingNode {
		e.Substitute = true
		for i := 0; i+1 < len(sub.Content); i += 2 {
			k, v := sub.Content[i], sub.Content[i+1]
			e.Vars[k.Value] = Var{Value: strings.ReplaceAll(v.Value, "\n", ""), At: at(obj.file, v), From: "substitute"}
		}
	}
}

// dataObject finds a ConfigMap or Secret by name among the files.
func (f *finder) dataObject(kind, namespace, name string) *object {
	if f.data == nil {
		f.data = []*object{}
		for _, file := range f.files {
			data := f.read(file)
			if data == nil || (!strings.Contains(string(data), "ConfigMap") && !strings.Contains(string(data), "Secret")) {
				continue
			}
			for _, o := range readObjects(file, data) {
				if (o.kind == "ConfigMap" || o.kind == "Secret") && o.apiVersion == "v1" {
					f.data = append(f.data, o)
				}
			}
		}
	}
	for _, o := range f.data {
		if o.kind == kind && o.name == name && (o.namespace == namespace || o.namespace == "") {
			if kind == "Secret" && get(o.root, "sops") != nil {
				return nil // encrypted: its values are not known here
			}
			return o
		}
	}
	return nil
}

type datum struct {
	value string
	at    diag.Span
}

// dataOf returns a ConfigMap's data or a Secret's decoded data and
// stringData, with where each key is written.
func dataOf(o *object) map[string]datum {
	out := map[string]datum{}
	for _, field := range []string{"data", "stringData"} {
		n := get(o.root, field)
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			val := v.Value
			if o.kind == "Secret" && field == "data" {
				b, err := base64.StdEncoding.DecodeString(val)
				if err != nil {
					continue
				}
				val = string(b)
			}
			out[k.Value] = datum{value: val, at: at(o.file, k)}
		}
	}
	return out
}

// helmRelease reads a helm.toolkit.fluxcd.io HelmRelease; nil for one
// that names no chart: a kustomize patch of one (an overlay's values).
func (f *finder) helmRelease(obj *object) *Entry {
	spec := obj.spec()
	if str(get(get(spec, "chart"), "spec"), "chart") == "" && get(spec, "chartRef") == nil {
		return nil
	}
	e := f.base(obj, "Flux HelmRelease")
	e.How = Helm
	c := &e.Chart
	c.Namespace, c.ReleaseName = helmReleaseOf(obj, spec)
	dependsOn(e, obj)
	// helm-controller waits for the release's resources unless told not to.
	e.Waits = str(get(spec, "install"), "disableWait") != "true"
	if !f.helmReleaseChart(e, obj, spec) {
		return e
	}
	for _, vf := range items(get(spec, "valuesFrom")) {
		f.valuesFrom(e, obj, vf)
	}
	if v := get(spec, "values"); v != nil {
		c.Values = append(c.Values, Values{Map: decodeMap(v), From: "HelmRelease values", node: v, file: obj.file})
	}
	c.PostRender = postRenderers(obj.file, get(spec, "postRenderers"))
	return e
}

// helmReleaseOf is the namespace and name helm-controller installs a
// HelmRelease as: targetNamespace, else its own; releaseName, else
// [targetNamespace-]name.
func helmReleaseOf(obj *object, spec *yaml.Node) (namespace, release string) {
	namespace = obj.namespace
	if t := str(spec, "targetNamespace"); t != "" {
		namespace = t
	}
	release = str(spec, "releaseName")
	if release == "" {
		release = obj.name
		if t := str(spec, "targetNamespace"); t != "" {
			release = t + "-" + obj.name
		}
	}
	return namespace, release
}

// helmReleaseChart finds the chart of a HelmRelease: a folder of this
// repository (a GitRepository of it), or a chart of a Helm repository
// from the chart cache. Else the entry is remote, or has a problem
// (false).
func (f *finder) helmReleaseChart(e *Entry, obj *object, spec *yaml.Node) bool {
	chartSpec := get(get(spec, "chart"), "spec")
	chart, version := str(chartSpec, "chart"), str(chartSpec, "version")
	srcNode := get(chartSpec, "sourceRef")
	kind, ns, name := ref(srcNode, obj.namespace)
	if cr := get(spec, "chartRef"); cr != nil {
		srcNode = cr
		kind, ns, name = ref(cr, obj.namespace)
		chart = name
	}
	where := e.At
	if srcNode != nil {
		where = at(obj.file, srcNode)
	}
	if self, _ := f.selfGit(ns, name); kind == "GitRepository" && self {
		dir, ok := dirIn(f.o.Repo, obj.file, chart)
		if !ok || !isChart(dir) {
			e.Problems = append(e.Problems, errorf(where, "%s: chart %s is not a chart folder of this repository; fix spec.chart.spec.chart", e.Label(), chart))
			return false
		}
		e.Dir = dir
		return true
	}
	from := kind + " " + ns + "/" + name
	if src := f.source(kind, ns, name); src != nil && str(src.spec(), "url") != "" {
		from += " (" + str(src.spec(), "url") + ")"
	}
	dir, ok := f.cached(chart, version)
	if !ok {
		e.Remote, e.RemoteAt, e.RemoteName = fmt.Sprintf("chart %s from %s", chart, from), where, chart
		return false
	}
	e.Dir = dir
	return true
}

// postRenderers reads a HelmRelease's postRenderers as kustomize steps,
// one per patch (patches, and v2beta's patchesStrategicMerge and
// patchesJson6902 as patches) and one per renderer's images: each step
// is applied alone so that what it changes can be reported at it.
func postRenderers(file string, n *yaml.Node) []PostRenderStep {
	var steps []PostRenderStep
	for i, pr := range items(n) {
		k := get(pr, "kustomize")
		base := fmt.Sprintf("postRenderers[%d].kustomize.", i)
		for j, p := range items(get(k, "patches")) {
			if m := decodeMap(p); m != nil {
				steps = append(steps, PostRenderStep{Fields: map[string]any{"patches": []any{m}}, At: at(file, p), What: fmt.Sprintf("%spatches[%d]", base, j)})
			}
		}
		for j, p := range items(get(k, "patchesStrategicMerge")) {
			if text, err := yaml.Marshal(p); err == nil && p.Kind == yaml.MappingNode {
				steps = append(steps, PostRenderStep{Fields: map[string]any{"patches": []any{map[string]any{"patch": string(text)}}}, At: at(file, p), What: fmt.Sprintf("%spatchesStrategicMerge[%d]", base, j)})
			}
		}
		for j, p := range items(get(k, "patchesJson6902")) {
			ops, err := yaml.Marshal(get(p, "patch"))
			if target := decodeMap(get(p, "target")); err == nil && target != nil {
				steps = append(steps, PostRenderStep{Fields: map[string]any{"patches": []any{map[string]any{"target": target, "patch": string(ops)}}}, At: at(file, p), What: fmt.Sprintf("%spatchesJson6902[%d]", base, j)})
			}
		}
		if ims := items(get(k, "images")); len(ims) > 0 {
			var list []any
			for _, im := range ims {
				if m := decodeMap(im); m != nil {
					list = append(list, m)
				}
			}
			steps = append(steps, PostRenderStep{Fields: map[string]any{"images": list}, At: at(file, get(k, "images")), What: base + "images"})
		}
	}
	return steps
}

// valuesFrom adds one valuesFrom entry: the valuesKey of a ConfigMap or
// Secret of the repository, as YAML, or one value at targetPath.
func (f *finder) valuesFrom(e *Entry, obj *object, vf *yaml.Node) {
	kind, name, optional := str(vf, "kind"), str(vf, "name"), str(vf, "optional") == "true"
	key, target := str(vf, "valuesKey"), str(vf, "targetPath")
	if key == "" {
		key = "values.yaml"
	}
	src := f.dataObject(kind, obj.namespace, name)
	if src == nil {
		if !optional {
			e.Problems = append(e.Problems, Problem{At: at(obj.file, vf), Warning: true,
				Msg: fmt.Sprintf("%s: valuesFrom %s %s/%s is not in the linted files, so the chart is rendered without it; lint the folder that holds it", e.Label(), kind, obj.namespace, name)})
		}
		return
	}
	d, ok := dataOf(src)[key]
	if !ok {
		return
	}
	from := kind + " " + src.namespace + "/" + name
	if target != "" {
		path := strings.Split(target, ".")
		m := map[string]any{}
		cur := m
		for _, p := range path[:len(path)-1] {
			next := map[string]any{}
			cur[p] = next
			cur = next
		}
		cur[path[len(path)-1]] = d.value
		e.Chart.Values = append(e.Chart.Values, Values{Map: m, From: from})
		return
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(d.value), &doc) != nil || len(doc.Content) == 0 {
		return
	}
	// A Secret's values are not located: their lines would be base64.
	v := Values{Map: decodeMap(doc.Content[0]), From: from}
	e.Chart.Values = append(e.Chart.Values, v)
}

// cached finds a remote chart in the chart cache folder.
func (f *finder) cached(chart, version string) (string, bool) {
	if f.o.ChartCache == "" || chart == "" {
		return "", false
	}
	for _, n := range []string{chart + "-" + version, chart} {
		if d := filepath.Join(f.o.ChartCache, n); isChart(d) {
			return d, true
		}
	}
	return "", false
}

func isChart(dir string) bool {
	fi, err := overlay.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && fi.Mode().IsRegular()
}

// application reads an Argo CD Application (or an ApplicationSet's
// rendered template, root being its Application): one entry per source.
func (f *finder) application(obj *object, root *yaml.Node) []*Entry {
	spec := get(root, "spec")
	name := obj.name
	if md := get(root, "metadata"); md != nil && str(md, "name") != "" {
		name = str(md, "name")
	}
	dest := get(spec, "destination")
	// Argo CD ignores source when sources is set.
	sources := items(get(spec, "sources"))
	if len(sources) == 0 {
		if s := get(spec, "source"); s != nil {
			sources = []*yaml.Node{s}
		}
	}
	refs := f.argoRefs(sources)
	var out []*Entry
	for _, src := range sources {
		e := &Entry{Kind: "Argo CD Application", Name: name, Namespace: obj.namespace, At: obj.kindAt}
		if n := get(dest, "namespace"); n != nil && n.Value != "" {
			e.DefaultNamespace, e.DefaultNamespaceAt = n.Value, at(obj.file, n)
		}
		f.argoSource(e, obj.file, src, refs)
		if e.Dir != "" || e.Remote != "" || len(e.Problems) > 0 {
			out = append(out, e)
		}
	}
	return out
}

// argoRef is a source of a multi-source Application that others name by
// its ref (`$values/...` in valueFiles): the repository it reads.
type argoRef struct {
	repoURL string
	self    bool // this repository: its files are read here
}

// argoRefs indexes the sources that have a ref by it.
func (f *finder) argoRefs(sources []*yaml.Node) map[string]argoRef {
	refs := map[string]argoRef{}
	for _, src := range sources {
		if r := str(src, "ref"); r != "" {
			refs[r] = argoRef{repoURL: str(src, "repoURL"), self: f.o.Repo.Is(str(src, "repoURL"))}
		}
	}
	return refs
}

// argoSource reads one source of an Application: a path of this
// repository (kustomize, helm or directory, as Argo CD detects it when
// the source does not say), or a chart of a Helm repository.
func (f *finder) argoSource(e *Entry, file string, src *yaml.Node, refs map[string]argoRef) {
	if str(src, "ref") != "" && str(src, "path") == "" && str(src, "chart") == "" {
		return // a values-only source, read through $ref by the others
	}
	if !f.argoFolder(e, file, src) {
		return
	}
	switch e.How {
	case Helm:
		f.argoHelm(e, file, get(src, "helm"), refs)
	case Kustomize:
		argoKustomize(e, file, get(src, "kustomize"))
	case Directory:
		e.Kustomization.Recurse = str(get(src, "directory"), "recurse") == "true"
	}
}

// argoFolder finds the folder of a source and how Argo CD builds it: a
// chart of a Helm repository from the chart cache, or a path of this
// repository. A source elsewhere is remote (false), a path that is no
// folder a problem (false).
func (f *finder) argoFolder(e *Entry, file string, src *yaml.Node) bool {
	repoURL, path, chart := str(src, "repoURL"), str(src, "path"), str(src, "chart")
	where := at(file, src)
	if chart != "" {
		dir, ok := f.cached(chart, str(src, "targetRevision"))
		if !ok {
			e.Remote, e.RemoteAt, e.RemoteName = fmt.Sprintf("chart %s from %s", chart, repoURL), where, chart
			return false
		}
		e.Dir, e.How = dir, Helm
		return true
	}
	if !f.o.Repo.Is(repoURL) {
		e.Remote, e.RemoteAt = fmt.Sprintf("%s from %s", path, repoURL), where
		e.RemoteName = remoteFolder(repoName(repoURL), path)
		return false
	}
	dir, ok := dirIn(f.o.Repo, file, path)
	if !ok {
		e.Problems = append(e.Problems, errorf(where, "%s: path %s is not a folder of this repository; fix source.path", e.Label(), path))
		return false
	}
	e.Dir = dir
	// As Argo CD detects the tool when the source does not say.
	switch {
	case get(src, "helm") != nil || (get(src, "kustomize") == nil && get(src, "directory") == nil && isChart(dir)):
		e.How = Helm
	case get(src, "directory") != nil:
		e.How = Directory
	case get(src, "kustomize") != nil || hasKustomization(dir):
		e.How = Kustomize
	default:
		e.How = Directory
	}
	return true
}

// argoHelm reads a source's helm settings: release name, values files
// (a missing one is a problem unless ignored), values and parameters.
func (f *finder) argoHelm(e *Entry, file string, h *yaml.Node, refs map[string]argoRef) {
	c := &e.Chart
	c.ReleaseName, c.Namespace = str(h, "releaseName"), e.DefaultNamespace
	if c.ReleaseName == "" {
		c.ReleaseName = e.Name
	}
	for _, vf := range items(get(h, "valueFiles")) {
		p, where, ok := f.argoValuesFile(e, file, vf, refs)
		if !ok {
			continue
		}
		if _, err := overlay.Stat(p); err != nil {
			if str(h, "ignoreMissingValueFiles") != "true" {
				e.Problems = append(e.Problems, errorf(at(file, vf), "%s: values file %s is not in %s; Argo CD fails to render it", e.Label(), vf.Value, where))
			}
			continue
		}
		c.ValuesFiles = append(c.ValuesFiles, p)
	}
	if v := get(h, "valuesObject"); v != nil {
		c.Values = append(c.Values, Values{Map: decodeMap(v), From: "Application helm.valuesObject", node: v, file: file})
	} else if v := get(h, "values"); v != nil && v.Kind == yaml.ScalarNode {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(v.Value), &doc) == nil && len(doc.Content) > 0 {
			c.Values = append(c.Values, Values{Map: decodeMap(doc.Content[0]), From: "Application helm.values"})
		}
	}
	for _, p := range items(get(h, "parameters")) {
		c.Set = append(c.Set, str(p, "name")+"="+str(p, "value"))
	}
}

// argoKustomize reads a source's kustomize settings, which Argo CD sets
// over the kustomization.
func argoKustomize(e *Entry, file string, k *yaml.Node) {
	ks := &e.Kustomization
	ks.NamePrefix, ks.NameSuffix = str(k, "namePrefix"), str(k, "nameSuffix")
	if n := get(k, "namespace"); n != nil {
		ks.Namespace, ks.NamespaceAt = n.Value, at(file, n)
	}
	ks.Labels, ks.Annotations = stringMap(get(k, "commonLabels")), stringMap(get(k, "commonAnnotations"))
	for _, im := range items(get(k, "images")) {
		ks.Images = append(ks.Images, argoImage(im.Value))
	}
	for _, p := range items(get(k, "patches")) {
		if m := decodeMap(p); m != nil {
			ks.Patches = append(ks.Patches, m)
		}
	}
	for _, c := range items(get(k, "components")) {
		ks.Components = append(ks.Components, c.Value)
	}
}

// argoValuesFile resolves one valueFiles entry: relative to the chart
// folder, or `$ref/path` at the root of the repository of the source
// whose ref is ref. A file of another repository cannot be read offline:
// one note says the chart is rendered without it.
func (f *finder) argoValuesFile(e *Entry, file string, vf *yaml.Node, refs map[string]argoRef) (path, where string, ok bool) {
	name, rest, isRef := strings.Cut(strings.TrimPrefix(vf.Value, "$"), "/")
	if !strings.HasPrefix(vf.Value, "$") || !isRef {
		return filepath.Join(e.Dir, filepath.FromSlash(vf.Value)), "the chart folder", true
	}
	r, known := refs[name]
	switch {
	case !known:
		e.Problems = append(e.Problems, errorf(at(file, vf), "%s: values file %s names no source with ref %s; add ref: %s to the source that holds it", e.Label(), vf.Value, name, name))
		return "", "", false
	case !r.self:
		e.Problems = append(e.Problems, errorf(at(file, vf), "%s: values file %s is in %s, not available offline; the chart is linted without it", e.Label(), vf.Value, r.repoURL))
		return "", "", false
	}
	return fileIn(f.o.Repo, file, rest), "this repository", true
}

// fileIn resolves a file named relative to the repository root, as dirIn
// resolves a folder; when it is nowhere, the path at the root (or next to
// from) is returned for the caller to report.
func fileIn(repo *Repository, from, rel string) string {
	if p, ok := inRepository(repo, from, rel, isFile); ok {
		return p
	}
	rel = filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(rel, "./"), "/"))
	if repo.Root != "" {
		return filepath.Join(repo.Root, rel)
	}
	return filepath.Join(filepath.Dir(from), rel)
}

// argoImage reads Argo CD's image override, `[old=]new[:tag|@digest]`,
// as a kustomize images entry.
func argoImage(s string) map[string]any {
	old, img, hasOld := strings.Cut(s, "=")
	if !hasOld {
		img = old
	}
	m := map[string]any{}
	name, digest, hasDigest := strings.Cut(img, "@")
	tag := ""
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name, tag = name[:i], name[i+1:]
	}
	if hasOld {
		m["name"], m["newName"] = old, name
	} else {
		m["name"] = name
	}
	if tag != "" {
		m["newTag"] = tag
	}
	if hasDigest {
		m["digest"] = digest
	}
	return m
}

func hasKustomization(dir string) bool {
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if fi, err := overlay.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// applicationSet renders an ApplicationSet's template for each parameter
// set of its list and Git directory generators (others are not read
// offline) and reads each result as an Application.
func (f *finder) applicationSet(obj *object) []*Entry {
	spec := obj.spec()
	tmpl := get(spec, "template")
	if tmpl == nil {
		return nil
	}
	text, err := yaml.Marshal(tmpl)
	if err != nil {
		return nil
	}
	goTemplate := str(spec, "goTemplate") == "true"
	var out []*Entry
	for _, g := range items(get(spec, "generators")) {
		for _, params := range f.generate(obj, g, goTemplate) {
			var doc yaml.Node
			if yaml.Unmarshal([]byte(fill(string(text), params, goTemplate)), &doc) != nil || len(doc.Content) == 0 {
				continue
			}
			out = append(out, f.application(obj, doc.Content[0])...)
		}
	}
	// Positions of a rendered template are those of the template text, not
	// of the file: the entries point at the ApplicationSet.
	for _, e := range out {
		e.Kind = "Argo CD ApplicationSet " + obj.name + " Application"
		e.DefaultNamespaceAt, e.RemoteAt, e.Kustomization.NamespaceAt = e.At, e.At, e.At
		for i := range e.Problems {
			e.Problems[i].At = e.At
		}
		for i := range e.Chart.Values {
			e.Chart.Values[i].node = nil
		}
	}
	return out
}

// generate returns the parameter sets of one generator: list, Git
// directories and files of this repository, and matrix and merge over
// those. Generators that need a cluster (clusters, pull requests, SCM
// providers…) give none.
func (f *finder) generate(obj *object, g *yaml.Node, goTemplate bool) []map[string]string {
	return f.generateDepth(obj, g, goTemplate, 0)
}

// maxGeneratorNesting bounds matrix and merge nesting: Argo CD allows two
// levels; a deeper or cyclic-looking tree is read no further.
const maxGeneratorNesting = 3

// maxParamSets bounds the Applications one generator gives: a matrix of
// two long lists must not take the run's memory.
const maxParamSets = 10000

func (f *finder) generateDepth(obj *object, g *yaml.Node, goTemplate bool, depth int) []map[string]string {
	if depth > maxGeneratorNesting {
		return nil
	}
	var out []map[string]string
	if l := get(g, "list"); l != nil {
		for _, el := range items(get(l, "elements")) {
			out = append(out, flatParams(el))
		}
	}
	if gitGen := get(g, "git"); gitGen != nil && f.o.Repo.Is(str(gitGen, "repoURL")) {
		switch {
		case get(gitGen, "directories") != nil:
			out = append(out, f.gitDirectories(obj, gitGen)...)
		case get(gitGen, "files") != nil:
			out = append(out, f.gitFiles(obj, gitGen)...)
		}
		out = withValues(out, get(gitGen, "values"), goTemplate)
	}
	if m := get(g, "matrix"); m != nil {
		out = append(out, f.matrix(obj, items(get(m, "generators")), goTemplate, depth)...)
	}
	if m := get(g, "merge"); m != nil {
		var keys []string
		for _, k := range items(get(m, "mergeKeys")) {
			keys = append(keys, k.Value)
		}
		var sets [][]map[string]string
		for _, child := range items(get(m, "generators")) {
			sets = append(sets, f.generateDepth(obj, child, goTemplate, depth+1))
		}
		out = append(out, mergeParams(sets, keys)...)
	}
	if len(out) > maxParamSets {
		out = out[:maxParamSets]
	}
	return out
}

// gitDirectories are the parameter sets of a Git directory generator:
// the folders of this repository that an include pattern matches and no
// exclude pattern does.
func (f *finder) gitDirectories(obj *object, gitGen *yaml.Node) []map[string]string {
	include, exclude := generatorPaths(gitGen, "directories")
	root := f.o.Repo.Root
	if root == "" {
		root = guessRoot(obj.file, include)
	}
	var out []map[string]string
	seen := map[string]bool{}
	for _, pat := range include {
		abs := filepath.Join(root, filepath.FromSlash(pat))
		matches, _ := overlay.Glob(abs)
		if in := f.o.Inputs; in != nil {
			if in.Globs == nil {
				in.Globs = map[string][]string{}
			}
			in.Globs[abs] = slices.Clone(matches)
		}
		slices.Sort(matches)
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			if err != nil || !isDir(m) || seen[rel] || excluded(filepath.ToSlash(rel), exclude) {
				continue
			}
			seen[rel] = true
			out = append(out, dirParams(filepath.ToSlash(rel)))
		}
	}
	return out
}

// generatorPaths splits a Git generator's directories or files entries
// into the patterns it includes and those it excludes.
func generatorPaths(gitGen *yaml.Node, field string) (include, exclude []string) {
	for _, d := range items(get(gitGen, field)) {
		if str(d, "exclude") == "true" {
			exclude = append(exclude, str(d, "path"))
		} else {
			include = append(include, str(d, "path"))
		}
	}
	return include, exclude
}

// gitFiles are the parameter sets of a Git files generator: each JSON or
// YAML file of this repository that an include pattern matches (`**`
// spans folders) and no exclude pattern does, in path order; a file holds
// one object or a list of them, each flattened to dotted keys beside the
// path parameters, as Argo CD's generator gives them.
func (f *finder) gitFiles(obj *object, gitGen *yaml.Node) []map[string]string {
	include, exclude := generatorPaths(gitGen, "files")
	root := f.o.Repo.Root
	if root == "" {
		root = guessFileRoot(obj.file, include)
	}
	var rels []string
	for _, rel := range f.filesUnder(root) {
		if globMatch(include, rel) && !globMatch(exclude, rel) {
			rels = append(rels, rel)
		}
	}
	var out []map[string]string
	for _, rel := range rels {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if in := f.o.Inputs; in != nil {
			in.Files = append(in.Files, p)
		}
		data := readParamsFile(p)
		var doc yaml.Node
		if data == nil || yaml.Unmarshal(data, &doc) != nil {
			continue // Argo CD fails the whole ApplicationSet; nothing to lint
		}
		var objs []*yaml.Node
		if len(doc.Content) > 0 {
			switch n := doc.Content[0]; n.Kind {
			case yaml.MappingNode:
				objs = []*yaml.Node{n}
			case yaml.SequenceNode:
				objs = n.Content
			}
		} else {
			objs = []*yaml.Node{{Kind: yaml.MappingNode}} // an empty file is one empty object
		}
		for _, o := range objs {
			p := flatParams(o)
			maps.Copy(p, fileParams(rel))
			out = append(out, p)
		}
	}
	return out
}

// filesUnder lists the files below root (repository-relative, slash
// separated, sorted; hidden folders left out), once per run: a matrix
// asks again for each of its first generator's sets.
func (f *finder) filesUnder(root string) []string {
	if rels, ok := f.listed[root]; ok {
		return rels
	}
	var rels []string
	_ = overlay.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case d.Type().IsRegular():
			if rel, err := filepath.Rel(root, p); err == nil {
				rels = append(rels, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	slices.Sort(rels)
	if f.listed == nil {
		f.listed = map[string][]string{}
	}
	f.listed[root] = rels
	return rels
}

// maxParamsFile bounds a Git files generator's file: parameters, not data.
const maxParamsFile = 1 << 20

// readParamsFile reads a Git files generator's file (JSON or YAML, any
// name); nil when it is no regular file or too large to be parameters.
func readParamsFile(p string) []byte {
	fi, err := overlay.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxParamsFile {
		return nil
	}
	data, _ := overlay.ReadFile(p)
	return data
}

// fileParams are the path parameters of a Git files generator's file.
func fileParams(rel string) map[string]string {
	dir := path.Dir(rel)
	name := path.Base(rel)
	p := map[string]string{
		"path": dir, "path.path": dir, "path.basename": path.Base(dir), "path.filename": name,
		"path.basenameNormalized": normalizeName(path.Base(dir)), "path.filenameNormalized": normalizeName(name),
	}
	for i, s := range strings.Split(dir, "/") {
		if s != "" {
			p[fmt.Sprintf("path[%d]", i)] = s
		}
	}
	return p
}

// globMatch matches a repository-relative path against Argo CD's file
// patterns: path.Match per segment, `**` for any number of folders.
func globMatch(patterns []string, rel string) bool {
	name := strings.Split(rel, "/")
	for _, p := range patterns {
		if matchSegments(strings.Split(p, "/"), name) {
			return true
		}
	}
	return false
}

// matchSegments matches segment by segment, remembering which (pattern,
// name) suffixes failed, so that many `**` cost pattern × name steps,
// not a search over every split.
func matchSegments(pat, name []string) bool {
	failed := make(map[[2]int]bool)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if failed[[2]int{i, j}] {
			return false
		}
		ok := false
		switch {
		case i == len(pat):
			ok = j == len(name)
		case pat[i] == "**":
			ok = match(i+1, j) || (j < len(name) && match(i, j+1))
		case j < len(name):
			m, _ := path.Match(pat[i], name[j])
			ok = m && match(i+1, j+1)
		}
		if !ok {
			failed[[2]int{i, j}] = true
		}
		return ok
	}
	return match(0, 0)
}

// guessFileRoot is, without .git, the nearest folder above file where
// the first folder of one of the patterns exists.
func guessFileRoot(file string, patterns []string) string {
	var firsts []string
	for _, p := range patterns {
		if first, _, nested := strings.Cut(p, "/"); nested && first != "**" {
			firsts = append(firsts, first)
		}
	}
	if len(firsts) == 0 {
		return filepath.Dir(file)
	}
	return guessRoot(file, firsts)
}

// matrix combines the parameter sets of its two generators, each of the
// first with each of the second; the second may use the first's
// parameters in its own fields (a Git files path per cluster).
func (f *finder) matrix(obj *object, gens []*yaml.Node, goTemplate bool, depth int) []map[string]string {
	if len(gens) != 2 {
		return nil // Argo CD asks for exactly two
	}
	var out []map[string]string
	for _, a := range f.generateDepth(obj, gens[0], goTemplate, depth+1) {
		second := gens[1]
		if text, err := yaml.Marshal(second); err == nil {
			var doc yaml.Node
			if yaml.Unmarshal([]byte(fill(string(text), a, goTemplate)), &doc) == nil && len(doc.Content) > 0 {
				second = doc.Content[0]
			}
		}
		for _, b := range f.generateDepth(obj, second, goTemplate, depth+1) {
			if len(out) == maxParamSets {
				return out
			}
			p := maps.Clone(a)
			maps.Copy(p, b)
			out = append(out, p)
		}
	}
	return out
}

// mergeParams is the merge generator: the first generator's sets, each
// overridden by the sets of the later ones whose merge keys all equal its.
func mergeParams(sets [][]map[string]string, keys []string) []map[string]string {
	if len(sets) == 0 || len(keys) == 0 {
		return nil
	}
	out := make([]map[string]string, 0, len(sets[0]))
	for _, base := range sets[0] {
		p := maps.Clone(base)
		for _, later := range sets[1:] {
			for _, o := range later {
				if sameKeys(p, o, keys) {
					maps.Copy(p, o)
				}
			}
		}
		out = append(out, p)
	}
	return out
}

func sameKeys(a, b map[string]string, keys []string) bool {
	for _, k := range keys {
		va, okA := a[k]
		vb, okB := b[k]
		if !okA || !okB || va != vb {
			return false
		}
	}
	return true
}

// withValues adds a generator's values (`values.NAME`), themselves
// templates over the set's parameters.
func withValues(sets []map[string]string, values *yaml.Node, goTemplate bool) []map[string]string {
	vs := stringMap(values)
	if len(vs) == 0 {
		return sets
	}
	for _, p := range sets {
		for k, v := range vs {
			p["values."+k] = fill(v, p, goTemplate)
		}
	}
	return sets
}

// flatParams flattens an object to Argo CD's dotted parameter names
// (`cluster.address`); list items are `key.0`, as the flatten library
// Argo CD uses names them.
func flatParams(n *yaml.Node) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, n *yaml.Node, depth int)
	walk = func(prefix string, n *yaml.Node, depth int) {
		if n == nil || depth > 32 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(fieldpath.Field(prefix, n.Content[i].Value), n.Content[i+1], depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(fmt.Sprintf("%s.%d", prefix, i), c, depth+1)
			}
		case yaml.ScalarNode:
			if prefix != "" {
				out[prefix] = n.Value
			}
		case yaml.AliasNode:
			// An alias is read once, as written, not followed: a billion
			// laughs would grow without end.
		}
	}
	walk("", n, 0)
	return out
}

// guessRoot is, without .git, the nearest folder above file where one of
// the patterns matches a folder.
func guessRoot(file string, patterns []string) string {
	for dir := filepath.Dir(file); ; {
		for _, p := range patterns {
			if m, _ := overlay.Glob(filepath.Join(dir, filepath.FromSlash(p))); len(m) > 0 {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Dir(file)
		}
		dir = parent
	}
}

func excluded(rel string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// dirParams are a Git directory generator's parameters for one folder.
func dirParams(rel string) map[string]string {
	base := filepath.Base(rel)
	p := map[string]string{
		"path": rel, "path.path": rel, "path.basename": base,
		"path.basenameNormalized": normalizeName(base),
	}
	for i, s := range strings.Split(rel, "/") {
		p[fmt.Sprintf("path[%d]", i)] = s
	}
	return p
}

// normalizeName is Argo CD's basenameNormalized: a DNS-1123 name.
func normalizeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// fill replaces a template's parameters: {{name}} (fasttemplate) or, with
// goTemplate, {{.name}} and {{.path.basename}}.
func fill(text string, params map[string]string, goTemplate bool) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	// Longer keys first: path.basename before path.
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	for _, k := range keys {
		for _, form := range []string{"{{" + k + "}}", "{{ " + k + " }}"} {
			if goTemplate {
				form = strings.Replace(form, k, "."+k, 1)
			}
			text = strings.ReplaceAll(text, form, params[k])
		}
	}
	return text
}

// remoteFolder names a folder of another repository, short: its source's
// name and the path in it (`podinfo/kustomize`).
func remoteFolder(source, dir string) string {
	dir = strings.Trim(path.Clean("/"+dir), "/")
	if dir == "" {
		return source
	}
	return source + "/" + dir
}

// repoName is a repository URL's last path element without `.git`.
func repoName(url string) string {
	return strings.TrimSuffix(path.Base(strings.TrimRight(url, "/")), ".git")
}
