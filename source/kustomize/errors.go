package kustomize

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/webhooklint/webhooklint/internal/lazy"
)

// buildError is a failed kustomize build, its message made one line with
// relative paths (tidy) about the innermost kustomization that failed: an
// overlay fails because its base does, and the base's error is the one to
// fix. The original error stays in the chain.
type buildError struct {
	dir string // the root kustomization's folder, as given
	// file is the kustomization file of the innermost failing build
	// (absolute, spelled under the folder given), name its folder as
	// messages show it, cause what is wrong there.
	file, name, cause string
	err               error
}

func newBuildError(dir, abs string, err error) *buildError {
	e := &buildError{dir: dir, name: dir, err: err}
	un := unlinker(abs)
	msg, in := err.Error(), abs
	if m := recursed().FindAllStringSubmatchIndex(msg, -1); m != nil {
		last := m[len(m)-1]
		if p := un(msg[last[2]:last[3]]); p != abs {
			in, e.name = p, shortPath(p, ".")
		}
		msg = msg[last[1]:]
	}
	e.file = filepath.Join(in, "kustomization.yaml")
	if f, ok := FileIn(in); ok {
		e.file = f
	}
	e.cause = tidy(absPathIn().ReplaceAllStringFunc(msg, func(m string) string {
		i := strings.Index(m, "/")
		return m[:i] + un(m[i:])
	}), in)
	return e
}

func (e *buildError) Error() string {
	return "kustomize build " + e.name + ": " + e.cause
}

func (e *buildError) Unwrap() error { return e.err }

// Cause is what a build error says went wrong, without the "kustomize
// build DIR: " in front: a finding located in the failed kustomization
// names its folder already.
func Cause(err error) (string, bool) {
	var e *buildError
	if errors.As(err, &e) {
		return e.cause, true
	}
	return "", false
}

// FailedIn returns the kustomization file whose build a build error is
// about: an overlay's, or the base's that made it fail.
func FailedIn(err error) (string, bool) {
	var e *buildError
	if errors.As(err, &e) {
		return e.file, true
	}
	return "", false
}

// recursed is kustomize's prefix for an error in a base or component it
// builds for another kustomization, naming its folder (absolute).
var recursed = lazy.Regexp(`(?:recursed accumulation of path|couldn't make target for path) '([^']+)': `)

// unlinker maps the paths kustomize reports, whose symbolic links it has
// resolved, back to their spelling under abs (a checkout reached through
// a link), so that they can be shown relative to the folders given.
func unlinker(abs string) func(string) string {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil || real == abs {
		return func(p string) string { return p }
	}
	// The folders above the link: what both spellings end with is the same.
	top, realTop := abs, real
	for filepath.Base(top) == filepath.Base(realTop) && filepath.Dir(top) != top && filepath.Dir(realTop) != realTop {
		top, realTop = filepath.Dir(top), filepath.Dir(realTop)
	}
	return func(p string) string {
		if rel, err := filepath.Rel(realTop, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.Join(top, rel)
		}
		return p
	}
}

// absPathIn finds absolute paths in kustomize's messages: after a quote,
// a space or the start, up to a quote, a space or a colon.
var absPathIn = lazy.Regexp(`(^|[\s'"(=])(/[^\s'":]+)`)

// Kustomize's phrasings of its common failures.
var (
	// accumulating resources: accumulation err='accumulating resources
	// from 'X': CAUSE': must build at directory: … (X tried as a folder).
	accumulation = lazy.Regexp(`accumulating resources: accumulation err='accumulating resources from '([^']+)': (.*)': must build at directory: .*$`)
	// the same when only the folder attempt is reported
	accumulationDir = lazy.Regexp(`accumulating resources: accumulation err='accumulating resources from '([^']+)': (.*)'$`)
	// evalsymlink failure on 'P' : lstat P: no such file or directory
	missingFile = lazy.Regexp(`evalsymlink failure on '([^']+)' : lstat [^:]+: no such file or directory`)
	// trouble configuring builtin XTransformer with config: `…`: CAUSE
	builtinConfig = lazy.Regexp("(?s)trouble configuring builtin (\\w+) with config: `.*?`: ")
	// failed to get the patch file from path(P): 'P' does not exist (the
	// cause says it again)
	patchFile = lazy.Regexp(`failed to get the patch file from path\([^)]*\): `)
	// accumulating resources from 'P': MalformedYAMLError: yaml: line N:
	// CAUSE in File: P (the line is the parser's, often one off; the
	// file's own finding has it right)
	malformed = lazy.Regexp(`accumulating resources: accumulating resources from '([^']+)': MalformedYAMLError: yaml: (?:line \d+: )?(.*) in File: \S+`)
	// security; file 'P' is not in or below 'D'
	outsideRoot = lazy.Regexp(`security; file '([^']+)' is not in or below '([^']+)'`)
)

// transformerField names the kustomization field of a builtin transformer.
var transformerField = map[string]string{
	"PatchStrategicMergeTransformer": "patchesStrategicMerge",
	"PatchJson6902Transformer":       "patchesJson6902",
	"PatchTransformer":               "patches",
	"ReplacementTransformer":         "replacements",
}

// tidy rewrites a kustomize error into one line: paths relative to the
// kustomization's folder dir (or else the current folder), kustomize's
// nested retries (a resource tried as a file, then as a folder) reduced
// to the first cause, in plain words.
func tidy(msg, dir string) string {
	msg = absPathIn().ReplaceAllStringFunc(msg, func(m string) string {
		i := strings.Index(m, "/")
		return m[:i] + shortPath(m[i:], dir)
	})
	msg = builtinConfig().ReplaceAllStringFunc(msg, func(m string) string {
		name := builtinConfig().FindStringSubmatch(m)[1]
		if f, ok := transformerField[name]; ok {
			return f + ": "
		}
		return name + ": "
	})
	if m := accumulation().FindStringSubmatch(msg); m != nil {
		msg = strings.Replace(msg, m[0], "resource '"+m[1]+"': "+m[2], 1)
	} else if m := accumulationDir().FindStringSubmatch(msg); m != nil {
		msg = strings.Replace(msg, m[0], "resource '"+m[1]+"': "+m[2], 1)
	}
	msg = missingFile().ReplaceAllString(msg, "'$1' does not exist")
	msg = patchFile().ReplaceAllString(msg, "")
	msg = malformed().ReplaceAllString(msg, "resource '$1' is not valid YAML: $2")
	msg = outsideRoot().ReplaceAllString(msg, "'$1' is outside the kustomization's folder, and kustomize reads files only in or below it; refer to a folder with its own kustomization.yaml instead")
	// resource 'x.yaml': 'x.yaml' does not exist → resource 'x.yaml' does not exist
	msg = restated().ReplaceAllStringFunc(msg, func(m string) string {
		p := restated().FindStringSubmatch(m)
		if sameShownPath(filepath.Join(dir, p[1]), p[2], dir) {
			return "'" + p[1] + "' " + p[3]
		}
		return m
	})
	return strings.Join(strings.Fields(msg), " ")
}

// restated is an entry followed by the same path and what is wrong with it.
var restated = lazy.Regexp(`'([^']+)': '([^']+)' (does not exist|is outside)`)

// sameShownPath reports whether entry (joined to the kustomization's folder)
// is the path shortPath wrote, relative to that folder or the current one.
func sameShownPath(entry, shown, dir string) bool {
	a, err := filepath.Abs(entry)
	if err != nil {
		return false
	}
	if filepath.IsAbs(shown) {
		return a == filepath.Clean(shown)
	}
	b, _ := filepath.Abs(shown)
	c, _ := filepath.Abs(filepath.Join(dir, shown))
	return a == b || a == c
}

// shortPath names an absolute path relative to the kustomization's folder
// when it is in it, else to the current folder when it is in that, else
// as it is.
func shortPath(p, dir string) string {
	for _, base := range []string{dir, "."} {
		abs, err := filepath.Abs(base)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(abs, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return p
}
