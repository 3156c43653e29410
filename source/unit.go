package source

import (
	"fmt"
	"iter"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/gitops"
)

// A unitKind is how one kind of unit is found, named, loaded, linted and
// located: a root kustomization, a chart, a plain folder, a loose file, a
// GitOps entry with notes only. Each kind is one file (unit_<kind>.go) and
// one line of unitKinds. A kind holds no data: what discovery decided of a
// unit is in the unit's fields.
type unitKind interface {
	// name names the kind in the unit's cache key.
	name() string
	// discoverFile returns the units of this kind that a file (absolute
	// abs) is linted through; claimed says that this kind decides for the
	// file, even with no unit (a file of a library chart).
	discoverFile(d *discovery, s manifest.Source, abs string) (units []*unit, claimed bool)
	// discoverEntry returns the units of this kind that a path the user
	// named stands for (a kustomization or chart folder, a file in one),
	// claimed as for a file.
	discoverEntry(d *discovery, p askedPath) (units []*unit, claimed bool)
	// key identifies the unit among those of its kind, and label names it
	// in findings, when no GitOps entry builds it (unit.key, unit.label).
	key(u *unit) string
	label(u *unit) string
	// covers reports whether the unit reads a file (absolute path).
	covers(u *unit, abs string) bool
	// reads lists the files the unit reads, for the index of their
	// readers; byName is false when it reads whole folders, which covers
	// is then asked about file by file.
	reads(u *unit) (files iter.Seq[string], byName bool)
	// lint loads the unit, lints its objects together and locates every
	// finding at the file and line that wrote it (files absolute, stdin by
	// its name).
	lint(u *unit, in *lintInput) *unitResult
	// load loads the unit's objects as installed, for commands that read
	// them rather than lint them (simulate).
	load(u *unit, in *loadInput) Unit
}

// unitKinds are the kinds of unit, in the order discovery asks them about
// a file or a named path: the first that claims it decides. A chart holds
// its files whatever else reads them; the builds of the kustomizations
// that read a file come before the folder kubectl would apply.
var unitKinds = []unitKind{chartUnit, kustomizeUnit, folderUnit, fileUnit, noteUnit}

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
	// peer is set, in an editor's workspace, on a Flux entry's unit kept
	// for the ordering step alone: it is linted only when that step
	// compares what it applies (peers.go).
	peer bool
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
	// archivedBy says, for a loose file in a version folder of an OLM
	// package manifest that every channel has moved past, why (olm.go):
	// nothing installs it, so its findings are info.
	archivedBy string
	// deployed says whether the unit is deployed, and who said so: given
	// when a GitOps entry installs it or units.entries names it; otherwise
	// a root is only assumed deployed (the zero Fact; context.go).
	deployed Fact
	// together says, for a plain folder of several files, whether they
	// are one install: given by units.folders, units.entries or a GitOps
	// entry, otherwise assumed (kubectl apply -f DIR; context.go).
	together Fact
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
	cycleAt diag.Span
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
	return u.kind.key(u)
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
	return u.kind.label(u)
}

// covers reports whether the unit reads the file (absolute path).
func (u *unit) covers(abs string) bool { return u.kind.covers(u, abs) }

// absFile is a file unit's file, absolute.
func (u *unit) absFile() string {
	if u.fileAbs == "" {
		u.fileAbs = absPath(u.file.Name)
	}
	return u.fileAbs
}
