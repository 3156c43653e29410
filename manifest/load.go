package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Extensions of files picked up when a folder is linted.
var Extensions = []string{".yaml", ".yml", ".json"}

// Source is one input to read: a file path, or stdin under a display name.
type Source struct {
	Name  string
	Stdin bool
}

// Expand turns command-line arguments into the files to lint: files as
// given, folders walked recursively for Extensions (skipping hidden
// folders and vendor/node_modules), glob patterns expanded, and "-" for
// stdin. No argument means the current folder. The result is sorted and
// de-duplicated; a path that does not exist is an error.
func Expand(args []string, stdinName string) ([]Source, error) {
	if len(args) == 0 {
		args = []string{"."}
	}
	seen := map[string]bool{}
	var out []Source
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, Source{Name: p})
		}
	}
	var stdin []Source
	for _, a := range args {
		if a == "-" {
			name := stdinName
			if name == "" {
				name = "<stdin>"
			}
			stdin = append(stdin[:0], Source{Name: name, Stdin: true})
			continue
		}
		matches := []string{a}
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("bad pattern %q: %w", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no files match", a)
			}
			matches = m
		}
		for _, p := range matches {
			info, err := os.Stat(p)
			if err != nil {
				return nil, pathError(err)
			}
			if !info.IsDir() {
				add(p)
				continue
			}
			err = filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if e.IsDir() {
					if path != p && skipDir(e.Name()) {
						return filepath.SkipDir
					}
					return nil
				}
				if slices.Contains(Extensions, strings.ToLower(filepath.Ext(path))) {
					add(path)
				}
				return nil
			})
			if err != nil {
				return nil, pathError(err)
			}
		}
	}
	slices.SortFunc(out, func(a, b Source) int { return strings.Compare(a.Name, b.Name) })
	return append(out, stdin...), nil
}

func skipDir(name string) bool {
	return (strings.HasPrefix(name, ".") && name != "." && name != "..") || name == "vendor" || name == "node_modules"
}

func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return fmt.Errorf("%s: no such file or folder", pe.Path)
		}
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// Read loads one source. Reading stops at MaxFileSize+1 bytes so an
// oversized input is reported, not buffered whole.
func Read(s Source, stdin io.Reader) ([]byte, error) {
	r := stdin
	if !s.Stdin {
		f, err := os.Open(s.Name)
		if err != nil {
			return nil, pathError(err)
		}
		defer func() { _ = f.Close() }() // read-only: a close error loses nothing
		r = f
	}
	return io.ReadAll(io.LimitReader(r, MaxFileSize+1))
}
