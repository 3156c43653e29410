package source

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// display shows a path relative to the working folder when it is inside
// it, as paths given on the command line are.
func display(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func skipDir(name string) bool {
	return (strings.HasPrefix(name, ".") && name != "." && name != "..") || name == "vendor" || name == "node_modules"
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

func exists(p string) bool {
	_, err := overlay.Stat(p)
	return err == nil
}

// within reports whether p is dir or below it (both absolute).
func within(p, dir string) bool {
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == filepath.Separator)
}
