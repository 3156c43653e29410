package manifest

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Glob expands a command-line pattern as the configuration file's paths
// are matched: '*', '?' and '[...]' within a path segment, as
// filepath.Glob, and '**' for any number of folders (none included), so
// deploy/**/webhook*.yaml finds deploy/webhook.yaml and
// deploy/a/b/webhook-patch.yaml. Walking for '**' skips the folders a
// folder walk skips (hidden ones, vendor, node_modules), and a pattern
// ending in '**' matches only the files a folder walk would lint. The
// matches are sorted.
func Glob(pattern string) ([]string, error) {
	if !strings.Contains(pattern, "**") {
		return filepath.Glob(pattern)
	}
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	for _, s := range segs {
		if strings.Contains(s, "**") && s != "**" {
			return nil, fmt.Errorf("** must be a whole path segment: %w", filepath.ErrBadPattern)
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, err
		}
	}
	// The folder to walk: the segments before the first pattern.
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], `*?[\`) {
		i++
	}
	root := strings.Join(segs[:i], "/")
	switch {
	case root == "" && strings.HasPrefix(pattern, "/"):
		root = "/"
	case root == "":
		root = "."
	}
	pat := segs[i:]
	var out []string
	err := filepath.WalkDir(filepath.FromSlash(root), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == filepath.FromSlash(root) {
				return fs.SkipAll // no such folder: no match, as filepath.Glob
			}
			return nil
		}
		rel, _ := filepath.Rel(filepath.FromSlash(root), p)
		if e.IsDir() && rel != "." && skipDir(e.Name()) {
			return filepath.SkipDir
		}
		var relSegs []string
		if rel != "." {
			relSegs = strings.Split(filepath.ToSlash(rel), "/")
		}
		// A pattern ending in ** is a folder walk: only manifests.
		if !e.IsDir() && pat[len(pat)-1] == "**" && !slices.Contains(Extensions, strings.ToLower(filepath.Ext(p))) {
			return nil
		}
		if MatchSegments(pat, relSegs) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// MatchSegments matches path segments against pattern segments, '**'
// standing for any number of them.
func MatchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for k := 0; k <= len(segs); k++ {
				if MatchSegments(pat, segs[k:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
