package source

import (
	"fmt"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// unitKind says how a unit is loaded.
type unitKind int

const (
	kustomizeUnit unitKind = iota + 1 // a root kustomization, built
	chartUnit                         // a chart, rendered with its values
	folderUnit                        // the loose manifests of a folder, applied together
	fileUnit                          // a loose manifest file on its own (stdin, a split folder)
	noteUnit                          // a GitOps entry with nothing to lint here: its notes only
)

// A unit is what is installed together, and so what cross-object rules
// compare: the build of a root kustomization (one no other kustomization
// in the repository consumes), a chart rendered with its values, or the
// loose manifests of a folder (what `kubectl apply -f DIR`, an Argo CD
// directory application or Flux's generated kustomization installs).
type unit struct {
	kind unitKind
	// dir is the kustomization, chart or plain folder (absolute).
	dir string
	// files are a folder unit's manifests (absolute), sorted; recursive
	// says they were gathered from the folders below dir too.
	files     []manifest.Source
	recursive bool
	// entry is set on the units the user named (a kustomization or chart
	// folder, a folder holding them, a kustomization file, a chart's
	// values): every finding of theirs is reported, wherever it is located.
	entry bool
	// base is set on a unit linted as a base rather than as deployed: a
	// kustomization read by an entry that does not build offline, or a
	// root the configuration does not name as deployed (units.entries).
	// Findings that depend on an overlay are shown at info.
	base bool
	// baseBy says what makes it a base (context model: a fact of the
	// graph or the configuration, never of names), as its note says it.
	baseBy string
	// disabledBy says, for a loose file that a kustomization names only in
	// a commented-out entry, which one: the file is not applied, so its
	// findings are info and say why.
	disabledBy string
	// deployed says whether the unit is deployed, and who said so: given
	// when a GitOps entry installs it or units.entries names it; otherwise
	// a root is only assumed deployed (the zero Fact; context.go).
	deployed Fact
	// chart holds the render settings of a chart unit.
	chart Chart
	// file is the loose file.
	file manifest.Source
	// shown is the unit's folder as messages name it: relative to the
	// working folder (not to the paths typed, so that a finding reads the
	// same however the file was named).
	shown string
	// reads are the files (absolute) a kustomize unit is built from;
	// readDirs the folders whose every file a chart unit reads (the chart
	// and its file:// dependencies).
	reads    map[string]bool
	readDirs []string
	// cycle is set on a kustomization that includes itself through its
	// references: its folder, the folders the cycle goes through, and its
	// folder again. cycleAt is its entry that starts the cycle.
	cycle   []string
	cycleAt kustomize.Pos
	// gitops is the GitOps entry the unit is built as (a Flux
	// Kustomization, an Argo CD Application…), and notes what is said
	// about the entry itself (a source not available offline).
	gitops *gitops.Entry
	notes  []diag.Diagnostic
	// prebuilt is a GitOps entry's build made during discovery (to read
	// the HelmReleases it outputs), linted instead of building it again.
	prebuilt *prebuilt
	// fileAbs is file's absolute path, once computed (covers is asked for
	// every finding and unit: filepath.Abs each time was most of a run).
	fileAbs string
}

// key identifies a unit: the same chart rendered with other values is
// another unit.
func (u *unit) key() string {
	if u.gitops != nil {
		e := u.gitops
		by := ""
		if e.AppliedBy != nil { // one base's HelmRelease, built by two clusters' overlays
			by = e.AppliedBy.At.File
		}
		return fmt.Sprintf("g\x00%s\x00%s\x00%d\x00%s\x00%s", e.At.File, e.Label(), e.At.Line, u.dir, by)
	}
	switch u.kind {
	case kustomizeUnit:
		return "k\x00" + u.dir
	case chartUnit:
		c := u.chart
		return strings.Join([]string{"c", u.dir, strings.Join(c.ValuesFiles, ","), strings.Join(c.Set, ","),
			strings.Join(c.SetString, ","), c.ReleaseName, c.Namespace}, "\x00")
	case folderUnit:
		return "d\x00" + u.dir
	}
	return "f\x00" + u.file.Name
}

// label names the unit in findings that not every unit using a file shares.
func (u *unit) label() string {
	if u.gitops != nil {
		if by := u.gitops.AppliedBy; by != nil {
			// One base's HelmRelease, built by two clusters' overlays.
			return u.gitops.Label() + " (built by " + display(by.At.File) + ")"
		}
		return u.gitops.Label()
	}
	switch u.kind {
	case kustomizeUnit:
		return "kustomize build " + display(u.dir)
	case chartUnit:
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
	case folderUnit:
		if u.recursive {
			return "kubectl apply -R -f " + display(u.dir)
		}
		return "kubectl apply -f " + display(u.dir)
	}
	return u.file.Name
}

// covers reports whether the unit reads the file (absolute path).
func (u *unit) covers(abs string) bool {
	switch u.kind {
	case kustomizeUnit:
		return u.reads[abs]
	case chartUnit:
		for _, d := range u.readDirs {
			if within(abs, d) {
				return true
			}
		}
		return false
	case noteUnit:
		return abs == u.gitops.At.File
	case folderUnit:
		_, found := slices.BinarySearchFunc(u.files, abs, func(s manifest.Source, abs string) int { return strings.Compare(s.Name, abs) })
		return found
	}
	if u.file.Stdin {
		return false
	}
	return u.absFile() == abs
}

// absFile is a file unit's file, absolute.
func (u *unit) absFile() string {
	if u.fileAbs == "" {
		u.fileAbs = absPath(u.file.Name)
	}
	return u.fileAbs
}
