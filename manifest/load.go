package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/rules"
)

// Extensions of files picked up when a folder is linted.
var Extensions = []string{".yaml", ".yml", ".json"}

// Source is one input to read: a file path, or stdin under a display name.
type Source struct {
	Name  string
	Stdin bool
	// Problem, when set, is why the path is not read (a named pipe met in
	// a folder, a symbolic link loop): reading it gives this error, and
	// Unreadable turns it into the file's one finding.
	Problem error
}

// RuleInputFile names the finding on a path that cannot be read as a file.
const RuleInputFile = rules.InputFileRule

// Unreadable is the file of a source that could not be read: no
// documents, one finding that says why, so the run goes on with the other
// files instead of stopping.
func Unreadable(name string, err error) *File {
	return &File{Name: name, Diagnostics: []diag.Diagnostic{
		// The finding names the path already.
		fileDiag(name, 1, 1, RuleInputFile, strings.TrimPrefix(err.Error(), name+": ")+"; nothing in it was linted"),
	}}
}

// Expand turns command-line arguments into the files to lint: files as
// given, folders walked recursively for Extensions (skipping hidden
// folders and vendor/node_modules), glob patterns expanded, and "-" for
// stdin. No argument means the current folder. The result is sorted and
// de-duplicated; a path that does not exist is an error. A path that
// exists but cannot be read as a file is a Source with a Problem.
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
	addProblem := func(p string, err error) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, Source{Name: p, Problem: err})
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
			m, err := Glob(a)
			if err != nil {
				return nil, fmt.Errorf("bad pattern %q: %w", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no files match", a)
			}
			matches = m
		}
		found := len(out)
		for _, p := range matches {
			info, err := os.Stat(p)
			switch {
			case err != nil && errors.Is(err, fs.ErrNotExist):
				return nil, pathError(err)
			case err != nil:
				// A symbolic link loop, a permission error: one finding
				// on that path, the other paths are linted.
				addProblem(p, pathError(err))
			case info.IsDir():
				walkFolder(p, add, addProblem)
			case p == a || info.Mode().IsRegular():
				// Named explicitly, even a pipe is read: that is how
				// `webhooklint <(kustomize build)` passes its input.
				add(p)
			default:
				// Matched by a pattern: never opened, as in a folder.
				addProblem(p, fmt.Errorf("%s: is %s, not a regular file; skipped without opening it", p, describeMode(info.Mode().Type())))
			}
		}
		// A folder (or a pattern matching only folders) with nothing to
		// lint is a mistake, as a missing path is, not a clean run.
		if len(out) == found && !slices.ContainsFunc(out, func(s Source) bool { return within(s.Name, matches) }) {
			return nil, &NoManifestsError{Path: a}
		}
	}
	slices.SortFunc(out, func(a, b Source) int { return strings.Compare(a.Name, b.Name) })
	return append(out, stdin...), nil
}

// NoManifestsError is Expand's error for a folder or pattern that holds no
// file to lint.
type NoManifestsError struct{ Path string }

func (e *NoManifestsError) Error() string {
	return fmt.Sprintf("no manifests found under %s (no %s or %s file)", e.Path, strings.Join(Extensions[:len(Extensions)-1], ", "), Extensions[len(Extensions)-1])
}

// within reports whether the file name is one of paths or under one of them.
func within(name string, paths []string) bool {
	for _, p := range paths {
		p = filepath.Clean(p)
		if p == "." {
			if !filepath.IsAbs(name) && name != ".." && !strings.HasPrefix(name, ".."+string(filepath.Separator)) {
				return true
			}
			continue
		}
		if name == p || strings.HasPrefix(name, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// walkFolder adds the files of folder root with a linted extension. A root that
// is a symbolic link is followed (WalkDir would report the link itself and
// find nothing under it); links met inside are not followed into folders,
// as find and git do not. What cannot be read as a regular file — a named
// pipe, a socket, a device (opening a pipe would block the run), a link
// that loops or points nowhere, a folder that cannot be listed — is a
// source with a Problem, never opened.
func walkFolder(root string, add func(string), addProblem func(string, error)) {
	WalkFolder(root, nil, add, addProblem)
}

// WalkFolder is how a folder is listed for linting (Expand's folder walk),
// for those who group its files: enter, when set, decides whether to go
// into each folder below root (hidden folders, vendor and node_modules are
// never entered); add receives each file with a linted extension that is
// a regular file, addProblem what cannot be read as one.
func WalkFolder(root string, enter func(dir string) bool, add func(string), addProblem func(string, error)) {
	start := root
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		start = root + string(filepath.Separator)
	}
	_ = filepath.WalkDir(start, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			addProblem(path, pathError(err))
			if e != nil && e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			if filepath.Clean(path) != filepath.Clean(root) && (skipDir(e.Name()) || enter != nil && !enter(filepath.Clean(path))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains(Extensions, strings.ToLower(filepath.Ext(path))) {
			return nil
		}
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			fi, err := os.Stat(path)
			if err != nil {
				addProblem(path, pathError(err))
				return nil
			}
			if fi.IsDir() {
				return nil // a folder by another name: links are not followed
			}
			mode = fi.Mode().Type()
		}
		if mode.IsRegular() {
			add(path)
			return nil
		}
		addProblem(path, fmt.Errorf("%s: is %s, not a regular file; skipped without opening it", path, describeMode(mode)))
		return nil
	})
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
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
		if errors.Is(pe.Err, syscall.ELOOP) {
			return fmt.Errorf("%s: symbolic link loop", pe.Path)
		}
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// Read loads one source. Reading stops at MaxFileSize+1 bytes so an
// oversized input is reported, not buffered whole.
func Read(s Source, stdin io.Reader) ([]byte, error) {
	if s.Problem != nil {
		return nil, s.Problem
	}
	r := stdin
	size := 0
	if !s.Stdin {
		f, n, err := overlay.Open(s.Name) // an editor's unsaved buffer, or the disk
		if err != nil {
			return nil, pathError(err)
		}
		defer func() { _ = f.Close() }() // read-only: a close error loses nothing
		r = f
		if n >= 0 {
			size = int(min(n, MaxFileSize))
		}
	}
	// Read into a buffer of the file's size (one more byte to see the end,
	// or that it is over the limit) instead of growing one from 512 bytes;
	// pipes and stdin, whose size is unknown, grow as before.
	buf := bytes.NewBuffer(make([]byte, 0, size+1+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxFileSize+1)); err != nil {
		return nil, pathError(err)
	}
	return buf.Bytes(), nil
}
