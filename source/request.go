package source

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/webhooklint/webhooklint/manifest"
)

// request is what the user asked about: the files to find units for, and
// the paths whose findings are reported, as the user spelled them.
type request struct {
	sources []manifest.Source
	paths   []askedPath
	skip    func(string) bool
	// exact indexes paths by abs (the first of each), dirs lists the
	// folders: pre-commit passes thousands of files, and display runs for
	// every finding.
	exact map[string]int
	dirs  []int
	// fluxEntries are the Flux entries found (`Kustomization ns/name`),
	// units or not (a folder ignored, say): what a dependsOn may name.
	fluxEntries map[string]bool
	// workspace is the editor's folder, whose every entry was read.
	workspace *Workspace
}

type askedPath struct {
	abs, typed string
	dir        bool
}

// folder is the folder named, or the folder of the file named.
func (p askedPath) folder() string {
	if p.dir {
		return p.abs
	}
	return filepath.Dir(p.abs)
}

func newRequest(args []string, stdinName string, skip func(string) bool) (*request, error) {
	sources, err := manifest.Expand(args, stdinName)
	if err != nil {
		return nil, err
	}
	r := &request{skip: skip}
	for _, s := range sources {
		if s.Stdin || skip == nil || !skip(s.Name) {
			r.sources = append(r.sources, s)
		}
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		matches := []string{a}
		if strings.ContainsAny(a, "*?[") {
			matches, _ = manifest.Glob(a)
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil {
				continue
			}
			r.paths = append(r.paths, askedPath{abs: absPath(m), typed: filepath.Clean(m), dir: fi.IsDir()})
		}
	}
	r.exact = map[string]int{}
	for i, p := range r.paths {
		if _, seen := r.exact[p.abs]; !seen {
			r.exact[p.abs] = i
		}
		if p.dir {
			r.dirs = append(r.dirs, i)
		}
	}
	return r, nil
}

// display returns the name under which a file (absolute) is reported, and
// whether it was asked about: as typed, or joined to the folder typed.
func (r *request) display(abs string) (string, bool) {
	// The longest path that holds abs wins: abs itself when it was asked
	// about, else the innermost folder.
	best, ok := r.exact[abs]
	if !ok {
		best = -1
		for _, i := range r.dirs {
			if p := r.paths[i]; within(abs, p.abs) && (best < 0 || len(p.abs) > len(r.paths[best].abs)) {
				best = i
			}
		}
	}
	if best < 0 {
		return "", false
	}
	p := r.paths[best]
	name := p.typed
	if p.dir {
		rel, err := filepath.Rel(p.abs, abs)
		if err != nil {
			return "", false
		}
		name = filepath.Join(p.typed, rel)
	}
	if r.skip != nil && r.skip(name) {
		return "", false
	}
	return name, true
}

// name is how messages show a file or folder (absolute): as the user
// typed it when it is below a path given, else relative to the working
// folder when below it.
func (r *request) name(abs string) string {
	if abs == "" {
		return ""
	}
	for _, p := range r.paths {
		if p.dir && within(abs, p.abs) {
			if rel, err := filepath.Rel(p.abs, abs); err == nil {
				return filepath.Join(p.typed, rel)
			}
		}
	}
	return display(abs)
}
