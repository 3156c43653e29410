package source

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	gitignore "github.com/monochromegane/go-gitignore"

	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// A file a kustomization names may be missing because the project builds
// it (gatekeeper's config/overlays/dev/manager_image_patch.yaml, which
// `make patch-image` writes): the tree is not wrong, it is not built yet.
// That is a fact of the repository, stated by its .gitignore or by a
// Makefile or script that writes the file, never guessed from the name.

// generatedBy says how the repository marks a missing file as generated:
// the Makefile target or script that writes it (and how to run it), else
// the .gitignore that keeps it out of git; "" when nothing does. It looks
// in the file's folder and each one above it up to the repository root.
func generatedBy(file string) string {
	ignored := ""
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if by := writtenBy(dir, file); by != "" {
			return by
		}
		if ignored == "" {
			ignored = ignoredBy(dir, file)
		}
		if isRepoRoot(dir) || filepath.Dir(dir) == dir {
			break
		}
	}
	if ignored != "" {
		return "it is generated (" + ignored + " keeps it out of git): build it, then lint again"
	}
	return ""
}

// outsideRepository is said of a missing file when no repository root
// (.git) is above the kustomization: the Makefiles, scripts and .gitignore
// that would say the project makes the file are not in the input (a copy
// of a repository's config folder), so "it is missing" is all that is
// known, not that the tree is broken.
const outsideRepository = "not in a repository: lint the checkout"

// inRepository reports whether dir or a folder above it is a repository
// root.
func inRepository(dir string) bool {
	for ; ; dir = filepath.Dir(dir) {
		if isRepoRoot(dir) {
			return true
		}
		if filepath.Dir(dir) == dir {
			return false
		}
	}
}

// missingFileIn is the path of a build error's missing file, as tidy
// writes it: relative to the kustomization's folder.
var missingFileIn = lazy.Regexp(`'([^']+)' does not exist`)

// missingGenerated says, for a build error on a missing file that the
// repository generates, how it is made; "" for any other error.
func missingGenerated(dir, msg string) string {
	m := missingFileIn().FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	file := m[1]
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return generatedBy(absPath(file))
}

// ignoredBy names the .gitignore of dir that ignores file, or "".
func ignoredBy(dir, file string) string {
	name := filepath.Join(dir, ".gitignore")
	m, err := gitignore.NewGitIgnore(name, dir)
	if err != nil || !m.Match(file, false) {
		return ""
	}
	return display(name)
}

// makeTarget is a Makefile rule's first line: `target: prerequisites`
// (not a `VAR := value` assignment).
var makeTarget = lazy.Regexp(`^([A-Za-z0-9_.$()/-]+)\s*:([^=]|$)`)

// writtenBy finds, among the Makefiles and shell scripts of dir (and of
// its hack/ and scripts/ folders, where projects keep build scripts), one
// that writes file, and says how to run it.
func writtenBy(dir, file string) string {
	var scripts []string
	for _, pattern := range []string{"Makefile", "GNUmakefile", "makefile", "*.mk", "*.sh", "hack/*.sh", "scripts/*.sh"} {
		found, _ := overlay.Glob(filepath.Join(dir, pattern))
		scripts = append(scripts, found...)
	}
	for _, s := range scripts {
		// A script of hack/ or scripts/ runs from dir as often as from its
		// own folder (`${REPO_ROOT}/test/…`): a path from either is the file.
		rels := []string{}
		for _, from := range []string{filepath.Dir(s), dir} {
			if rel, err := filepath.Rel(from, file); err == nil && !strings.HasPrefix(rel, "..") && !slices.Contains(rels, rel) {
				rels = append(rels, rel)
			}
		}
		if len(rels) == 0 {
			continue
		}
		data, err := overlay.ReadDiskFile(s)
		if err != nil {
			continue
		}
		target := ""
		isMake := !strings.HasSuffix(s, ".sh")
		for n, line := range strings.Split(string(data), "\n") {
			if isMake && !strings.HasPrefix(line, "\t") {
				if m := makeTarget().FindStringSubmatch(line); m != nil {
					target = m[1]
				}
			}
			if !slices.ContainsFunc(rels, func(rel string) bool {
				return writes(line, filepath.ToSlash(rel)) || controllerGenWrites(line, filepath.ToSlash(rel))
			}) {
				continue
			}
			at := fmt.Sprintf("%s:%d", display(s), n+1)
			if isMake && target != "" {
				return fmt.Sprintf("`make %s` writes it (%s): run it, then lint again", target, at)
			}
			return fmt.Sprintf("%s writes it: run it, then lint again", at)
		}
	}
	return ""
}

// writes reports whether a Makefile or script line writes rel: a shell
// redirect (`> rel`, `>> ./rel`), `tee rel`, `-o rel` or `--output rel`,
// or, in a Makefile, a rule whose target is rel.
func writes(line, rel string) bool {
	for rest := line; ; {
		i := strings.Index(rest, rel)
		if i < 0 {
			return false
		}
		before := strings.TrimRight(rest[:i], " \t")
		before = strings.TrimSuffix(before, "./")
		before = strings.TrimRight(trimVarPrefix(before), " \t")
		after := rest[i+len(rel):]
		if ends := after == "" || strings.ContainsAny(after[:1], " \t;'\"|)&:"); ends {
			switch {
			case strings.HasSuffix(before, ">"), strings.HasSuffix(before, " tee"), strings.HasSuffix(before, " -o"),
				strings.HasSuffix(before, "--output"), strings.HasSuffix(before, "--output="):
				return true
			case before == "" && strings.HasPrefix(after, ":") && !strings.HasPrefix(after, ":="):
				return true // a Makefile rule that builds it
			}
		}
		rest = after
	}
}

// trimVarPrefix drops a folder written as a variable before a path
// (`$(shell pwd)/`, `${ROOT}/`, `"${REPO_ROOT}"/`), which stands for the
// script's folder or the one it runs from.
func trimVarPrefix(s string) string {
	if !strings.HasSuffix(s, "/") {
		return s
	}
	s = strings.TrimSuffix(s, "/")
	if q := strings.TrimSuffix(s, `"`); q != s && strings.HasSuffix(q, "}") {
		if i := strings.LastIndex(q, `"${`); i >= 0 {
			return q[:i]
		}
	}
	for _, open := range []string{"$(", "${"} {
		if i := strings.LastIndex(s, open); i >= 0 && strings.HasSuffix(s, map[string]string{"$(": ")", "${": "}"}[open]) {
			return s[:i]
		}
	}
	return s + "/"
}

// controllerGenArtifacts is where a controller-gen command writes webhook
// configurations (`output:webhook:artifacts:config=DIR`), after the
// folder its recipe line changes to (`cd pkg/sdk && …`).
var (
	controllerGenArtifacts = lazy.Regexp(`output:webhook:artifacts:config=["']?([^\s"']+)`)
	recipeCd               = lazy.Regexp(`^\s*cd\s+([^\s;&]+)\s*&&`)
)

// controllerGenWrites reports whether a Makefile or script line runs
// controller-gen so that it writes rel: it writes the webhook
// configurations it generates to manifests.yaml in its webhook artifacts
// folder (logging-operator's config/webhook/manifests.yaml, not in git).
func controllerGenWrites(line, rel string) bool {
	m := controllerGenArtifacts().FindStringSubmatch(line)
	if m == nil || path.Base(rel) != "manifests.yaml" {
		return false
	}
	dir := m[1]
	if cd := recipeCd().FindStringSubmatch(line); cd != nil && !path.IsAbs(dir) {
		dir = path.Join(cd[1], dir)
	}
	return path.Join(dir, "manifests.yaml") == path.Clean(rel)
}
