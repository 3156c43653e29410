package source

import (
	"io"
	"iter"
	"slices"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// fileUnit is a loose manifest file on its own: stdin, a file of a split
// folder, a file no other kind claims, a file linted alone because the
// build that reads it failed.
var fileUnit unitKind = fileKind{}

type fileKind struct{}

func (fileKind) name() string { return "file" }

// discoverFile claims every file: it is the last kind asked.
func (fileKind) discoverFile(_ *discovery, s manifest.Source, _ string) ([]*unit, bool) {
	return []*unit{{kind: fileUnit, file: s}}, true
}

func (fileKind) discoverEntry(*discovery, askedPath) ([]*unit, bool) { return nil, false }

func (fileKind) key(u *unit) string { return "f\x00" + u.file.Name }

func (fileKind) label(u *unit) string { return u.file.Name }

func (fileKind) covers(u *unit, abs string) bool {
	if u.file.Stdin {
		return false
	}
	return u.absFile() == abs
}

func (fileKind) reads(u *unit) (iter.Seq[string], bool) {
	if u.file.Stdin {
		return slices.Values([]string(nil)), true
	}
	return slices.Values([]string{u.absFile()}), true
}

func (fileKind) lint(u *unit, in *lintInput) *unitResult {
	return lintFile(u.file, in.stdin, u.deployed.Known(), in.lo, in.patches) // Read takes stdin only for "-"
}

func (fileKind) load(u *unit, in *loadInput) Unit {
	return loadLooseFiles(Unit{Label: u.label()}, []manifest.Source{u.file}, in)
}

// lintFile lints a loose file on its own: unrendered templates are
// recognized, and partial objects (kustomize patches) are checked only for
// what they state. applied says it is given as applied as written.
func lintFile(s manifest.Source, stdin io.Reader, applied bool, lo lint.Options, patches *kustomize.PatchIndex) *unitResult {
	l := loadLoose(s, stdin, lo.Workers(), patches, true, nil)
	r := lintLoose([]*looseFile{l}, lint.Unit{Applied: applied}, lo)
	if s.Stdin {
		r.stdin = l.data // the report shows snippets from it
	}
	return r
}
