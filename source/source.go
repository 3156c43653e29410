// Package source lints manifests as people keep them, not only as complete
// YAML files: a folder with a kustomization is built with kustomize and
// linted as built, a Helm chart is rendered and linted as rendered, and
// findings on the output are reported at the file and line that wrote the
// field (a patch, a resource file, a template). Files that are partial
// objects (kustomize patches) are checked only for what they state, and
// unrendered templates get one clear finding instead of syntax errors.
//
// It sits between the CLI and the lint engine: Lint takes the command
// line's paths and lints each deployment unit they hold.
package source

import (
	"fmt"
	"io"
	"slices"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// Options are the source-specific settings of a run.
type Options struct {
	// Charts are chart folders to render and lint (--helm), in addition to
	// the charts that hold linted files.
	Charts []string
	// ChartConfigs say how to render particular charts (the configuration
	// file's charts:); a chart with two entries is rendered twice.
	ChartConfigs []Chart
	// ValuesFiles, Set and SetString apply to every rendered chart, after
	// its own settings (--values, --set, --set-string).
	ValuesFiles, Set, SetString []string
	// NoKustomize lints kustomization folders file by file instead of
	// building them.
	NoKustomize bool
	// Folders say how loose manifests group into units (the
	// configuration's units.folders); by default the loose manifests of
	// one folder are one unit.
	Folders []FolderUnits
	// Deployed are the entries that are deployed (units.entries: root
	// kustomization and chart folders); when set, the other roots are
	// linted as bases, their findings that an overlay changes at info.
	Deployed []string
	// NoGitOps turns off the discovery of GitOps entries (Flux
	// Kustomizations and HelmReleases, Argo CD Applications) among the
	// files linted; GitOpsFiles are files of entries read in every run
	// (gitops.entries), whatever is linted.
	NoGitOps    bool
	GitOpsFiles []string
	// RepoURLs are URLs that name the repository linted, besides its Git
	// remotes (--repo-url): sources with one of them are read here.
	RepoURLs []string
	// ChartCache is a folder of unpacked charts standing in for the
	// remote charts GitOps entries name (--chart-cache).
	ChartCache string
	// Namespace is the release namespace of every rendered chart whose
	// own settings give none (--namespace).
	Namespace string
	// WholeUnits reports every finding of the units of the files named,
	// wherever located, as for an entry: the language server shows the
	// findings an edit moves to another file of the same build.
	WholeUnits bool
	// Workspace, when set, is the folder the editor server lints file by
	// file: its GitOps entries are read in every run, kept between runs,
	// and the files named are linted with those that apply them
	// (gitops_workspace.go).
	Workspace *Workspace
	// Suppress drops the findings the configuration suppresses (and
	// reports its unused suppressions). The report applies it before it
	// folds findings, so what is suppressed leaves their count.
	Suppress func([]diag.Diagnostic) []diag.Diagnostic
	// Cache, when set, keeps each unit's findings between runs (cache.go);
	// it must have been opened for this run's configuration.
	Cache *cache.Cache
	// Watched, when set, keeps the discovery index between runs and trusts
	// the changes it is told of under its folders (kustindex_watched.go):
	// the editor server's, when its client watches the files.
	Watched *Watched
}

// FolderUnits says how the loose manifests under Dir are applied.
type FolderUnits struct {
	Dir string
	// Recursive makes Dir and every folder below it one unit (kubectl
	// apply -R, Argo CD's directory.recurse, a Flux Kustomization over a
	// tree without kustomization files).
	Recursive bool
	// Split lints each file of Dir on its own (unrelated examples).
	Split bool
}

// Chart is how to render one chart: what `helm template` would be given.
type Chart struct {
	Dir                         string
	ValuesFiles, Set, SetString []string
	ReleaseName, Namespace      string
	// Values are merged after the values files, in order (a GitOps
	// entry's values).
	Values []map[string]any
	// GivenBy names what gave these settings, as findings name it
	// (`charts: in .webhooklint.yaml`, `--namespace`, a GitOps entry such
	// as `HelmRelease flux-system/podinfo`); see Context.
	GivenBy string
}

// Lint lints args as they are deployed, in five steps, each one file
// (the request, what the user asked about, is request.go):
//
//  1. discover units (units.go): for every file named (or found in a
//     named folder), the units it belongs to: the chart whose folder holds
//     it, else the root kustomizations that use it, else its folder, else
//     the file alone (unitKinds, one kind a file: unit_<kind>.go);
//  2. load each unit: build the kustomization, render the chart, read the
//     files (lint.go, through the unit's kind);
//  3. lint each unit on its own, so cross-object rules compare objects
//     that are installed together and nothing else;
//  4. locate each finding at the file and line that wrote the field (a
//     patch, a resource file, a template);
//  5. report the findings located in the files asked about, once each,
//     naming the unit when not every unit using that file has it
//     (report.go).
//
// A file's findings are therefore the same whether it is linted with its
// folder, with every file of the repository, or alone.
func Lint(args []string, stdin io.Reader, stdinName string, lo lint.Options, so Options) (*lint.Result, error) {
	for _, c := range so.Charts {
		if !helm.IsChart(c) {
			return nil, fmt.Errorf("--helm %s: no Chart.yaml in that folder", c)
		}
	}
	if len(args) == 0 && len(so.Charts) == 0 {
		args = []string{"."}
	}
	// kustomize's first build sets it up; on a CPU the walk leaves idle,
	// that is done by the time a run that names one file builds its root.
	// With the cache, only a walk that the discovery index does not spare
	// starts it (scopeFolders): a run the cache answers builds nothing.
	if lo.Workers() > 1 && so.Cache == nil {
		go kustomize.Warm()
	}
	req, err := newRequest(append(slices.Clip(args), so.Charts...), stdinName, lo.Skip)
	if err != nil {
		return nil, err
	}
	req.workspace = so.Workspace
	units, unitsOf := discover(req, so, lo.Skip, lo.Workers())
	if len(so.ValuesFiles)+len(so.Set)+len(so.SetString) > 0 && !slices.ContainsFunc(units, func(u *unit) bool { return u.kind == chartUnit }) {
		return nil, fmt.Errorf("--values and --set need a chart: name it with --helm CHART, or lint a folder that has a Chart.yaml")
	}
	patches := kustomize.NewPatchIndex()
	origins := sharedOrigins(units)
	if so.Cache != nil {
		// What units share is read in the first one's window: each unit
		// reads its own, so that its cache entry holds all it depends on.
		patches, origins = nil, nil
		// Findings that depend on the day (a certificate's expiry) are
		// kept only as long as they hold.
		s := rules.DefaultSettings()
		if lo.Settings != nil {
			copied := *lo.Settings
			s = &copied
		}
		s.OnClock = overlay.Clock
		lo.Settings = s
	}
	results := lintUnits(units, stdin, lo, patches, origins, so.Cache)
	alone := aloneUnits(req, units, unitsOf, results)
	aloneResults := lintUnits(alone, stdin, lo, patches, nil, so.Cache)
	dropSyntaxRestated(results, aloneResults)
	lintPeers(units, results, func(us []*unit) []*unitResult { return lintUnits(us, stdin, lo, patches, origins, so.Cache) })
	orderFindings(req, units, results)
	units = append(units, alone...)
	results = append(results, aloneResults...)
	return reportUnits(req, units, results, &lo, so), nil
}
