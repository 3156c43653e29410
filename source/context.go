package source

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// The context model: every fact a rule uses that depends on how a unit is
// deployed — a chart's release namespace and name, whether a kustomization
// is a base, whether a root is deployed at all, whether a file is applied
// or a missing one is built — has a source. It is stated in the unit (a kustomization's
// namespace:, a Service the build contains), given from outside it (the
// configuration's charts:, a flag, a GitOps entry that installs the unit),
// or assumed by webhooklint because nothing states or gives it. Warnings
// and errors rest on stated or given facts; a finding that holds only
// under an assumption is info and names the assumption and how to state it
// (docs/sources.md, "Deployment context").

// FactSource says where a deployment fact comes from.
type FactSource int

const (
	// Assumed: nothing states or gives the fact; webhooklint uses what
	// `helm template` or `kustomize build` would (namespace "default").
	Assumed FactSource = iota
	// Stated: the unit itself says it.
	Stated
	// Given: the run was told it (the configuration, a flag, a GitOps
	// entry).
	Given
)

// Fact is one deployment fact: its value and where it comes from.
type Fact struct {
	Value  string
	Source FactSource
	// By names what stated or gave the fact (`--namespace`, `charts: in
	// .webhooklint.yaml`, `HelmRelease flux-system/podinfo`) or, for an
	// assumed fact, how to state it (`set charts[].namespace or
	// --namespace`).
	By string
}

// Known reports whether the fact was stated or given, not assumed.
func (f Fact) Known() bool { return f.Source != Assumed }

// Context holds the deployment facts of one unit that findings may rest on.
type Context struct {
	// Namespace is a chart's release namespace (.Release.Namespace).
	Namespace Fact
	// ReleaseName is a chart's release name (.Release.Name).
	ReleaseName Fact
}

// namespaceHow says how to state a chart's release namespace.
const namespaceHow = "set charts[].namespace or --namespace"

// chartContext returns the deployment facts of a chart unit: those its
// settings give (with what gave them), the rest assumed as `helm template`
// assumes them.
func chartContext(c Chart) Context {
	by := c.GivenBy
	if by == "" {
		by = "charts: in .webhooklint.yaml"
	}
	ctx := Context{
		Namespace:   Fact{Value: "default", Source: Assumed, By: namespaceHow},
		ReleaseName: Fact{Value: "release-name", Source: Assumed, By: "set charts[].releaseName in .webhooklint.yaml"},
	}
	if c.Namespace != "" {
		ctx.Namespace = Fact{Value: c.Namespace, Source: Given, By: by}
	}
	if c.ReleaseName != "" {
		ctx.ReleaseName = Fact{Value: c.ReleaseName, Source: Given, By: by}
	}
	return ctx
}

// assumption is the note a finding that holds only under an assumed fact
// ends with: what was assumed and how to state it.
func assumption(what string, f Fact) string {
	return fmt.Sprintf("assuming %s %q: %s", what, f.Value, f.By)
}

// disabledReader finds the kustomization that reads dir in an entry its
// author commented out (kubebuilder's config/default: `#- ../webhook`,
// "uncomment to enable the webhook"): dir is a root only because that
// switch is off, and by its project's own graph a base. It looks in the
// kustomizations of dir's parent folder and of that folder's other
// subfolders, where kubebuilder and operator-sdk keep them, and returns
// why (for the kustomize-base note), or "".
func disabledReader(dir string) string {
	parent := filepath.Dir(dir)
	folders := []string{parent}
	if entries, err := overlay.ReadDir(parent); err == nil {
		for _, e := range entries {
			if p := filepath.Join(parent, e.Name()); e.IsDir() && p != dir {
				folders = append(folders, p)
			}
		}
	}
	for _, f := range folders {
		if file, line := commentedEntry(f, dir); line > 0 {
			return fmt.Sprintf("commented out at %s:%d", display(file), line)
		}
	}
	return ""
}

// disabledFile finds the kustomization that names a loose file only in an
// entry its author commented out (kubebuilder's `#- webhookcainjection_patch.yaml`
// under "[CERTMANAGER] uncomment to enable"): the file is a switch that is
// off, not an object anyone applies (a stated fact of the unit, not a guess
// from its name). kustomize reads files only from below a kustomization's
// folder, so the file's folder and those above it are searched, up to the
// repository root. It returns what disables it (for the findings'
// messages), or "".
func disabledFile(file string) string {
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if kust, line := commentedEntry(dir, file); line > 0 {
			return fmt.Sprintf("commented out at %s:%d", display(kust), line)
		}
		if isRepoRoot(dir) || filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// isRepoRoot reports whether dir is a Git work tree's top folder.
func isRepoRoot(dir string) bool {
	_, err := overlay.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// commentedEntry returns the kustomization file of folder and the line of
// its first commented-out list entry that names target (`#- ../webhook`,
// `# - patch.yaml`, `#- path: patch.yaml`), or line 0. Only whole entries count: a path alone
// after the dash, no words, keys or further comments.
func commentedEntry(folder, target string) (file string, line int) {
	file, ok := kustomize.FileIn(folder)
	if !ok {
		return "", 0
	}
	data, err := overlay.ReadDiskFile(file)
	if err != nil {
		return "", 0
	}
	for n, text := range strings.Split(string(data), "\n") {
		t, commented := strings.CutPrefix(strings.TrimSpace(text), "#")
		if !commented {
			continue
		}
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimLeft(t, "#")), "-"))
		if rest, ok := strings.CutPrefix(t, "path:"); ok {
			t = strings.TrimSpace(rest) // patches: `#- path: webhookcainjection_patch.yaml`
		}
		if t == "" || strings.ContainsAny(t, " :#") || filepath.IsAbs(t) {
			continue
		}
		if filepath.Join(folder, t) == target {
			return file, n + 1
		}
	}
	return "", 0
}

// notApplied lowers the findings of a file that nothing applies to info,
// each saying what disables it: what the file would cause if its entry were
// uncommented is worth knowing, but nothing it holds reaches a cluster.
func notApplied(ds []diag.Diagnostic, by string) {
	for i := range ds {
		ds[i].Severity = diag.Info
		ds[i].Message += " (" + by + ")"
	}
}

// variantGap lowers to info a finding on a replica count that the root
// kustomization's own patch lowers below what its base states (marin3r's
// config/test: `replicas: 1` over config/webhook's 2). The overlay trades
// the availability its base has on purpose, as test and development
// variants do; that it is nevertheless deployed is only assumed, since
// nothing gave it (units.entries, a GitOps entry). The message says so and
// how to state it.
func variantGap(u *unit, b *kustomize.Build, d *diag.Diagnostic) {
	if d.Object == nil || (d.Path != "spec.replicas" && d.Path != "spec.minReplicas") {
		return
	}
	o := b.Find(d.Object.Kind, d.Object.Name, d.Object.Namespace)
	if o == nil {
		return
	}
	ov, ok := b.Overrides(o, d.Path)
	if !ok {
		return
	}
	v, err1 := strconv.Atoi(ov.Value)
	bv, err2 := strconv.Atoi(ov.BaseValue)
	if err1 != nil || err2 != nil || v >= bv {
		return
	}
	field := fieldpath.Name(d.Path)
	d.Severity = diag.Info
	d.DependsOnOverlay = true // a severity override does not raise it again
	// The message says what is assumed; the base's value, where the
	// overlay lowers it and how to state otherwise go with the related
	// location, so the finding stays one line.
	d.Message += "; assumed a test variant, not deployed"
	d.Related = append(d.Related, diag.Related{
		Span:    ov.Base.Span,
		Message: fmt.Sprintf("%s %d in the base; %s lowers it to %d, as test variants do; %s", field, bv, u.shown, v, variantHow),
	})
}

// variantHow says how to state that a variant is deployed after all.
const variantHow = "if it is deployed, name it in units.entries"

// folderTogether says whether the files of a plain folder are one install.
// kubectl apply -f DIR, an Argo CD directory application and Flux's
// generated kustomization install them so, but a folder of unrelated
// examples or test inputs is no install at all: that they belong together
// is given by units.folders or units.entries naming the folder, or by a
// GitOps entry that installs it, and otherwise assumed.
func folderTogether(u *unit, so Options) Fact {
	switch {
	case u.gitops != nil:
		return Fact{Value: u.shown, Source: Given, By: u.gitops.Label()}
	case deployed(u.dir, so.Deployed):
		return Fact{Value: u.shown, Source: Given, By: "units.entries in .webhooklint.yaml"}
	}
	for _, g := range so.Folders {
		if !g.Split && absPath(g.Dir) == u.dir {
			return Fact{Value: u.shown, Source: Given, By: "units.folders in .webhooklint.yaml"}
		}
	}
	return Fact{Value: u.shown, Source: Assumed, By: "list it in units.folders"}
}

// looseAssumption says, for a plain folder whose files are only assumed
// one install, how findings relating two of them name it; nil otherwise.
func looseAssumption(u *unit) *rules.LooseFolder {
	if u.together.Value == "" || u.together.Known() {
		return nil
	}
	return &rules.LooseFolder{Folder: u.together.Value, How: u.together.By}
}
