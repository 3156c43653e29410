package source

import (
	"iter"
	"slices"

	"github.com/webhooklint/webhooklint/manifest"
)

// noteUnit is a GitOps entry with nothing to lint here (its source is
// not in this repository, or names something missing): its notes only.
// Discovery makes it from the entry (discovery.gitopsUnit), never from a
// file or a path.
var noteUnit unitKind = noteKind{}

type noteKind struct{}

func (noteKind) name() string { return "note" }

func (noteKind) discoverFile(*discovery, manifest.Source, string) ([]*unit, bool) { return nil, false }

func (noteKind) discoverEntry(*discovery, askedPath) ([]*unit, bool) { return nil, false }

// key and label are the entry's (unit.key, unit.label): a note unit
// always has one.
func (noteKind) key(u *unit) string { return "n\x00" + u.gitops.At.File }

func (noteKind) label(u *unit) string { return u.gitops.Label() }

func (noteKind) covers(u *unit, abs string) bool { return abs == u.gitops.At.File }

func (noteKind) reads(u *unit) (iter.Seq[string], bool) {
	return slices.Values([]string{u.gitops.At.File}), true
}

// lint finds nothing: lintUnits adds the unit's notes.
func (noteKind) lint(*unit, *lintInput) *unitResult { return &unitResult{} }

func (noteKind) load(u *unit, _ *loadInput) Unit { return Unit{Label: u.label()} }
