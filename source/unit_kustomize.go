package source

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// kustomizeUnit is a root kustomization, built as kustomize builds it:
// one no other kustomization of its repository reads, one the user named,
// or one a GitOps entry builds.
var kustomizeUnit unitKind = kustomizeKind{}

type kustomizeKind struct{}

func (kustomizeKind) name() string { return "kustomize" }

// discoverFile: the root kustomizations whose builds read the file,
// directly or through bases, components and patches.
func (kustomizeKind) discoverFile(d *discovery, _ manifest.Source, abs string) ([]*unit, bool) {
	if d.so.NoKustomize {
		return nil, false
	}
	var units []*unit
	for _, k := range d.kustomizationsReading(abs) {
		units = append(units, d.kustScope(k.Dir).rootsUsing(k.Dir)...)
	}
	return units, len(units) > 0
}

// discoverEntry: the kustomization of a folder named, built as named even
// when an overlay uses it, or the roots that read a kustomization file
// named (a change there changes their builds). A named kustomization that
// cannot build offline brings the kustomizations it reads that can, as
// bases, so that its local files are still linted together.
func (kustomizeKind) discoverEntry(d *discovery, p askedPath) ([]*unit, bool) {
	dir := p.folder()
	if d.so.NoKustomize || (!p.dir && !slices.Contains(kustomize.FileNames, filepath.Base(p.abs))) {
		return nil, false
	}
	r := d.refs(dir)
	if r == nil || (d.skip != nil && d.skip(r.File)) {
		return nil, false
	}
	s := d.kustScope(dir)
	if !p.dir {
		// A changed kustomization file changes the builds that read it.
		return s.rootsUsing(dir), true
	}
	u := s.unit(dir)
	// Built as named, but a kustomization that another one reads is a
	// base: that one deploys it, changed.
	if !u.base && u.cycle == nil && !s.isRoot(dir) {
		u.base, u.baseBy = true, "read by "+s.readersOf(dir)
	}
	out := []*unit{u}
	if s.broken(dir, map[string]bool{}) {
		for _, b := range s.buildableReads(dir) {
			u := s.unit(b)
			u.base, u.baseBy = true, "read by "+display(dir)+", which does not build offline"
			out = append(out, u)
		}
	}
	return out, true
}

func (kustomizeKind) key(u *unit) string { return "k\x00" + u.dir }

func (kustomizeKind) label(u *unit) string { return "kustomize build " + display(u.dir) }

func (kustomizeKind) covers(u *unit, abs string) bool { return u.reads[abs] }

func (kustomizeKind) reads(u *unit) (iter.Seq[string], bool) { return maps.Keys(u.reads), true }

func (kustomizeKind) lint(u *unit, in *lintInput) *unitResult {
	return lintKustomization(u, in.lo, in.origins)
}

func (kustomizeKind) load(u *unit, in *loadInput) Unit {
	out := Unit{Label: u.label()}
	if u.cycle != nil {
		out.Problem = fmt.Errorf("%s", cycleError(u).Message)
		return out
	}
	_, _, f, _, err := buildKustomization(u, in.jobs, false)
	if err != nil {
		out.Problem = err
		return out
	}
	out.Files = []*manifest.File{f}
	return out
}

// lintKustomization builds a root kustomization and lints the objects it
// builds together (cross-object rules see the build's Services and
// workloads, and nothing else), then moves every finding to the patch or
// resource line that wrote its field.
func lintKustomization(u *unit, lo lint.Options, origins *kustomize.Origins) *unitResult {
	defer origins.Done(u.reads)
	if u.cycle != nil {
		return &unitResult{failed: true, diags: []diag.Diagnostic{cycleError(u)}}
	}
	b, built, f, uses, err := buildKustomization(u, lo.Workers(), true)
	if err != nil {
		ds := kustomizeErrors(u.dir, b, err)
		if u.gitops != nil {
			onEntry(u.gitops, ds)
		}
		if u.base {
			baseVars(u, ds)
		}
		return &unitResult{failed: true, diags: ds}
	}
	b.Origins = origins
	name := f.Name
	files := []*manifest.File{f}
	waves := argoWaveFindings(u, files) // before the rules drop the positions
	lu := lint.Unit{Files: files, Base: u.base, Applied: u.deployed.Known(), KustomizeBuild: true}
	var fixes *kustFixes
	if u.gitops == nil {
		// A GitOps entry's build is substituted after kustomize built it:
		// its fields are not all the files' own.
		fixes = newKustFixes(b)
		lu.Edits = fixes.edits
	}
	res := lint.LintUnit(lu, lo)
	if fixes != nil {
		fixes.verify(res.Diagnostics)
	}
	res.Diagnostics = append(res.Diagnostics, waves...)
	origin := u.label()
	locateKustomized(u, b, built, name, origin, res.Diagnostics)
	// kustomize's own warnings (deprecated fields) are findings on the
	// kustomization that has them, at info: the build still works.
	for _, w := range b.Warnings {
		res.Diagnostics = append(res.Diagnostics, diag.Diagnostic{
			Span:     w.Span,
			Severity: diag.Info, Rule: rules.KustomizeBuildRule, Message: w.Message, Origin: origin,
		})
	}
	r := &unitResult{diags: res.Diagnostics, base: u.base, configs: res.Configs, policies: res.Policies, crds: res.CRDs, internal: res.Internal}
	if u.gitops != nil {
		relocateGitops(u, b, uses, res.Diagnostics)
		if fluxEntry(u) {
			r.applied = appliedBy(files, "default")
		}
	}
	return r
}

// locateKustomized moves the findings of the built output to the files
// and lines that wrote each field (a resource, a patch), naming the unit
// and what wrote it as their origin.
func locateKustomized(u *unit, b *kustomize.Build, built []byte, name, origin string, ds []diag.Diagnostic) {
	for i := range ds {
		d := &ds[i]
		if d.File != name {
			continue
		}
		// An assumption (lint.inContext) names no object: it is on the
		// webhook related beside it, where the finding was before it
		// moved to its cause, or else on the finding's own.
		owners := make([]*diag.Object, len(d.Related))
		for j, r := range d.Related {
			owners[j] = r.Object
			for _, o := range d.Related {
				if owners[j] == nil && r.File == name && o.Object != nil && o.Span == r.Span {
					owners[j] = o.Object
				}
			}
			if owners[j] == nil && r.File == name {
				owners[j] = d.Object
			}
		}
		for j := range d.Related {
			if owners[j] != nil {
				d.Related[j].Span = locateBuilt(b, owners[j], d.Related[j].Path, false).Span
			}
		}
		at := locateBuilt(b, d.Object, d.Path, isAtKey(built, *d))
		d.Span = at.Span
		d.Origin = origin
		if at.by != "" {
			d.Origin += " (" + at.by + ")"
		}
		if at.by == "patch" && d.Severity > diag.Info && !u.deployed.Known() {
			variantGap(u, b, d)
		}
	}
}

// buildKustomization builds a kustomize unit and parses its output as one
// file: the objects kubectl would receive, in kustomize's order. With
// alone, a build with no judged object is parsed alone
// (manifest.Options.Alone): nothing reads its objects' cross-object data.
//
// A GitOps entry's unit is built as its controller builds it (gitopsRoot,
// applyGitops); uses are then the postBuild variables each object read.
func buildKustomization(u *unit, jobs int, alone bool) (b *kustomize.Build, built []byte, f *manifest.File, uses map[string][]gitops.Use, err error) {
	if p := u.prebuilt; p != nil {
		// Built during discovery for the HelmReleases it outputs.
		b, uses, u.prebuilt = p.b, p.uses, nil
	} else if b, uses, err = buildGitops(u); err != nil {
		return b, nil, nil, nil, err
	}
	var buf bytes.Buffer
	for _, o := range b.Objects {
		buf.WriteString("---\n")
		buf.Write(o.YAML)
	}
	built = buf.Bytes()
	return b, built, manifest.ParseWith(b.File+" (built)", built, manifest.Options{Jobs: jobs, Alone: alone}), uses, nil
}

// buildGitops builds a kustomize unit, as its GitOps entry's controller
// does when it has one (gitopsRoot, applyGitops).
func buildGitops(u *unit) (b *kustomize.Build, uses map[string][]gitops.Use, err error) {
	var root *kustomize.Root
	if u.gitops != nil {
		if root, err = gitopsRoot(u); err != nil {
			return nil, nil, err
		}
	}
	b, err = kustomize.RunAs(u.shown, root) // as the error message shows it
	if err != nil {
		return b, nil, err
	}
	if u.gitops != nil {
		if uses, err = applyGitops(u.gitops, b); err != nil {
			return b, nil, err
		}
	}
	return b, uses, nil
}

// locateBuilt maps a field of a built object to the line that wrote it;
// an object the build does not hold stays on the kustomization file.
func locateBuilt(b *kustomize.Build, obj *diag.Object, path string, atKey bool) writtenAt {
	if obj != nil {
		if o := b.Find(obj.Kind, obj.Name, obj.Namespace); o != nil {
			at := b.Locate(o, path, atKey)
			return writtenAt{Span: at.Span, by: at.By}
		}
	}
	return writtenAt{Span: diag.Point(b.File, 1, 1)}
}

// unmappedVar is kustomize's error on a var whose object is not among the
// resources built.
var unmappedVar = lazy.Regexp(`^var '[^']*' cannot be mapped to a field in the set of known resources`)

// baseVars makes info the build error of a base whose var names an object
// it does not hold: vars are resolved over what the overlay builds
// (kubebuilder's config/certmanager names the Service of ../webhook, both
// read by config/default), so building the base alone, which its project
// never does, is what fails.
func baseVars(u *unit, ds []diag.Diagnostic) {
	for i := range ds {
		d := &ds[i]
		if d.Rule == rules.KustomizeBuildRule && d.Severity == diag.Error && unmappedVar().MatchString(d.Message) {
			d.Severity = diag.Info
			d.Message = strings.Replace(d.Message, kustomizeNotBuilt, "; a base ("+u.baseBy+"): its overlay resolves vars"+kustomizeNotBuilt, 1)
		}
	}
}

// kustomizeNotBuilt ends the message of a kustomization that was not built.
const kustomizeNotBuilt = "; its files are linted alone"

// kustomizeErrors reports a kustomization that was not built. The files
// it would have read are then linted one by one (when no other unit uses
// them), and the message says so.
func kustomizeErrors(dir string, b *kustomize.Build, err error) []diag.Diagnostic {
	const after = kustomizeNotBuilt
	mk := func(at diag.Span, msg string) diag.Diagnostic {
		file := at.File
		sev := rules.MustLookup(rules.KustomizeBuildRule).Severity
		if by := missingGenerated(filepath.Dir(file), msg); by != "" {
			// Not built yet, not wrong: the project makes the file.
			sev, msg = diag.Info, msg+"; "+by
		} else if missingFileIn().MatchString(msg) && !inRepository(filepath.Dir(absPath(file))) {
			// Broken only if nothing the input leaves out makes it.
			sev, msg = diag.Info, msg+"; "+outsideRepository
		}
		return diag.Diagnostic{
			Span:     at.In(absPath(file)),
			Severity: sev, Rule: rules.KustomizeBuildRule,
			Message: msg + after,
		}
	}
	var ps kustomize.Problems
	if errors.As(err, &ps) {
		out := make([]diag.Diagnostic, 0, len(ps))
		for _, p := range ps {
			d := mk(p.Span, p.Msg)
			if p.Remote {
				// Offline by design: the build is not wrong, only not linted,
				// and nothing in the tree is to fix (raiseUnchecked).
				d.Severity = diag.Info
				d.Unchecked = &diag.Unchecked{Noun: "remote reference", Name: kustomize.RemoteName(p.Ref), Source: fmt.Sprintf("remote reference %q", p.Ref)}
			}
			out = append(out, d)
		}
		return out
	}
	var se *kustomize.SyntaxError
	if errors.As(err, &se) {
		// Where and what as the YAML parser's error is reported for any
		// manifest; the file linted one by one then does not say it again
		// (dropSyntaxRestated).
		if d, ok := syntaxError(se.File); ok {
			return []diag.Diagnostic{mk(d.In(se.File), d.Message)}
		}
	}
	file, line, msg := filepath.Join(dir, "kustomization.yaml"), 1, err.Error()
	if f, ok := kustomize.FailedIn(err); ok {
		file = f // the base's, when the base is what fails
		msg, _ = kustomize.Cause(err)
	} else if b != nil {
		file = b.File
	} else if f, ok := kustomize.FileIn(dir); ok {
		file = f
	}
	col, endCol := 1, 2
	if l, c, ok := kustomize.EntryLine(file, msg); ok {
		line, col, endCol = l, c, c+1
	}
	return []diag.Diagnostic{mk(diag.LineSpan(file, line, col, endCol), msg)}
}

// syntaxError is the first YAML syntax error of a file, as the parser of
// manifests positions it.
func syntaxError(file string) (diag.Diagnostic, bool) {
	data, err := overlay.ReadFile(file)
	if err != nil {
		return diag.Diagnostic{}, false
	}
	for _, d := range manifest.Parse(file, data).Diagnostics {
		if d.Rule == rules.YAMLSyntaxRule {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}

// cycleError reports a kustomization that includes itself, at its entry
// that starts the cycle. It is not built: kustomize would fail, and its
// files are linted one by one like those of any failed build.
func cycleError(u *unit) diag.Diagnostic {
	at := u.cycleAt
	if at.Line == 0 {
		at = diag.Point(at.File, 1, 1)
	}
	names := []string{display(at.File)}
	for _, d := range u.cycle[1:] {
		names = append(names, display(d))
	}
	return diag.Diagnostic{
		Span:     diag.LineSpan(at.File, at.Line, at.Column, at.EndColumn),
		Severity: rules.MustLookup(rules.KustomizeBuildRule).Severity, Rule: rules.KustomizeBuildRule,
		Message: "kustomization cycle " + strings.Join(names, " -> ") +
			": kustomize cannot build it; remove one of these references" + kustomizeNotBuilt,
	}
}

// isAtKey reports whether a diagnostic on rendered text points at its
// field's key (an unknown or duplicate field) rather than its value.
func isAtKey(data []byte, d diag.Diagnostic) bool {
	lines := bytes.Split(data, []byte{'\n'})
	if d.Line < 1 || d.Line > len(lines) || d.Path == "" {
		return false
	}
	r := []rune(string(lines[d.Line-1]))
	if d.Column < 1 || d.Column > len(r) {
		return false
	}
	rest := string(r[d.Column-1:])
	key := fieldpath.Name(d.Path)
	return strings.HasPrefix(rest, key+":") || strings.HasPrefix(rest, `"`+key+`":`) || strings.HasPrefix(rest, "'"+key+"':")
}

// sharedOrigins shares between kustomize units the files several of them
// read, so that a base under many overlays is parsed for positions once.
func sharedOrigins(units []*unit) *kustomize.Origins {
	readers := map[string]int{}
	for _, u := range units {
		if u.kind == kustomizeUnit {
			for abs := range u.reads {
				readers[abs]++
			}
		}
	}
	return kustomize.NewOrigins(readers)
}
