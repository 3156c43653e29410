package source

import (
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/parallel"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// aloneUnits are the files linted one by one because no build that reads
// them worked, as the build error says: a file asked about whose every
// kustomization failed, and the local files a failed entry reads (the
// base of an overlay named, when the base is what fails to build) that
// no unit that loaded reads.
func aloneUnits(req *request, units []*unit, unitsOf [][]*unit, results []*unitResult) []*unit {
	var alone []*unit
	named := map[string]bool{}
	for i, s := range req.sources {
		if !s.Stdin {
			named[absPath(s.Name)] = true
		}
		us := unitsOf[i]
		if len(us) == 0 || !slices.ContainsFunc(us, func(u *unit) bool { return u.kind == kustomizeUnit }) {
			continue
		}
		failed := true
		for _, u := range us {
			failed = failed && results[slices.Index(units, u)].failed
		}
		if failed {
			alone = append(alone, &unit{kind: fileUnit, file: s})
		}
	}
	read := newReaderIndex(units, results)
	for i, u := range units {
		if u.kind != kustomizeUnit || !u.entry || !results[i].failed {
			continue
		}
		for _, f := range slices.Sorted(maps.Keys(u.reads)) {
			if named[f] || len(read.of(f)) > 0 || !slices.Contains(manifest.Extensions, strings.ToLower(filepath.Ext(f))) ||
				(req.skip != nil && req.skip(f)) {
				continue
			}
			named[f] = true
			alone = append(alone, &unit{kind: fileUnit, file: manifest.Source{Name: f}, entry: true})
		}
	}
	return alone
}

// unitResult is what linting one unit leaves: located findings (files
// absolute, stdin by its name) and nothing of its objects.
type unitResult struct {
	diags []diag.Diagnostic
	// failed is set when the unit could not be loaded; diags say why.
	failed   bool
	base     bool
	configs  int
	policies int
	crds     int
	internal []*lint.InternalError
	stdin    []byte
	// chart is a rendered chart's name (Chart.yaml), the release name its
	// install docs usually give.
	chart string
	// applied is what a Flux entry's unit applies (order.go).
	applied *applied
}

// lintInput is what a unit kind's lint reads besides the unit: the run's
// options (one job when units are the parallel work), stdin, and what
// units share (the kustomizations above loose files, the positions of
// files several builds read).
type lintInput struct {
	lo      lint.Options
	stdin   io.Reader
	patches *kustomize.PatchIndex
	origins *kustomize.Origins
}

// lintUnits loads, lints and locates every unit, several at a time, or
// takes its findings from the cache when it has them. Each unit's objects
// are dropped once its findings are located. Without patches, each unit
// reads the kustomizations above its files itself.
func lintUnits(units []*unit, stdin io.Reader, lo lint.Options, patches *kustomize.PatchIndex, origins *kustomize.Origins, c *cache.Cache) []*unitResult {
	inner := lo
	if len(units) > 1 {
		inner.Jobs = 1 // units are the parallel work
	}
	out := make([]*unitResult, len(units))
	parallel.For(len(units), lo.Workers(), func(i int) {
		if units[i].peer {
			out[i] = &unitResult{} // lintPeers lints it if the ordering step needs it
			return
		}
		out[i] = cachedLint(c, units[i], func() *unitResult {
			patches := patches
			if patches == nil {
				patches = kustomize.NewPatchIndex()
			}
			r := units[i].kind.lint(units[i], &lintInput{lo: inner, stdin: stdin, patches: patches, origins: origins})
			if by := units[i].disabledBy; by != "" {
				notApplied(r.diags, by)
			}
			if by := units[i].archivedBy; by != "" {
				r.diags = archived(r.diags, by)
			}
			r.diags = append(r.diags, units[i].notes...)
			return r
		})
	})
	return out
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
