package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/webhooklint/webhooklint/manifest"
)

// Find looks for a configuration file in the folder of each linted path
// and then in every folder above it, and returns the nearest one, or ""
// when there is none. Paths that are globs or stdin ("-") are looked up
// from the current folder. Linted paths whose nearest files differ are an
// error: one run uses one configuration.
func Find(paths []string) (string, error) {
	starts := map[string]bool{}
	if len(paths) == 0 {
		starts["."] = true
	}
	for _, p := range paths {
		starts[searchStart(p)] = true
	}
	found := ""
	for start := range starts {
		f, err := findUp(start)
		if err != nil {
			return "", err
		}
		if found != "" && f != found {
			a, b := found, f
			if b < a {
				a, b = b, a
			}
			if a == "" {
				a = "(none)"
			}
			return "", fmt.Errorf("the linted paths fall under different configuration files, %s and %s: lint them separately or choose one with --config", a, b)
		}
		if found == "" {
			found = f
		}
	}
	return found, nil
}

// searchStart is the folder a path's configuration is looked up from.
func searchStart(p string) string {
	if p == "-" || strings.ContainsAny(p, "*?[") {
		return "."
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return p
	}
	return filepath.Dir(p)
}

func findUp(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		var hits []string
		for _, name := range []string{FileName, FileNameAlt} {
			f := filepath.Join(dir, name)
			if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
				hits = append(hits, f)
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
		}
		if len(hits) > 1 {
			return "", fmt.Errorf("both %s and %s exist; keep one", hits[0], hits[1])
		}
		if len(hits) == 1 {
			return relIfBelowCwd(hits[0]), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// relIfBelowCwd keeps messages short: files under the current folder are
// named relative to it.
func relIfBelowCwd(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// Ignored reports whether a linted file matches one of the ignore globs.
// Globs are relative to the configuration file's folder, use '/', and
// support '*', '?', '[...]' within a path segment and '**' for any number
// of segments; a glob that names a folder ignores everything below it.
func (c *Config) Ignored(file string) bool {
	if c == nil || len(c.Ignore) == 0 || file == "" || file == "-" {
		return false
	}
	absFile, err1 := filepath.Abs(file)
	absDir, err2 := filepath.Abs(c.Dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(absDir, absFile)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	segs := strings.Split(filepath.ToSlash(rel), "/")
	for _, g := range c.Ignore {
		pat := strings.Split(strings.Trim(path.Clean(g), "/"), "/")
		// A folder glob covers its contents: "vendor" is "vendor/**".
		if manifest.MatchSegments(append(pat, "**"), segs) {
			return true
		}
	}
	return false
}

func checkGlob(g string) error {
	if strings.TrimSpace(g) == "" {
		return errors.New("empty glob")
	}
	if path.IsAbs(g) || strings.HasPrefix(path.Clean(g), "..") {
		return fmt.Errorf("%q: globs are relative to the configuration file's folder and stay below it", g)
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == "**" {
			continue
		}
		if strings.Contains(seg, "**") {
			return fmt.Errorf("%q: ** must be a whole path segment", g)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("%q: %w", g, err)
		}
	}
	return nil
}
