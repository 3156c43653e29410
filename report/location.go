package report

import (
	"net/url"
	"path/filepath"
	"strings"
)

// relativeTo rewrites a diagnostic's file name relative to base, with
// forward slashes, when the file lies under base. ok is false for files
// outside base (they keep their absolute path) and for names that are not
// files (stdin "-", the empty name of a live object).
func relativeTo(base, file string) (rel string, ok bool) {
	if base == "" || file == "" || file == "-" {
		return filepath.ToSlash(file), false
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.ToSlash(file), false
	}
	absBase, err := filepath.Abs(base)
	if err != nil {
		return filepath.ToSlash(file), false
	}
	r, err := filepath.Rel(absBase, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs), false
	}
	return filepath.ToSlash(r), true
}

// fileURI turns an absolute directory or file path into a file:// URI;
// dir adds the trailing slash SARIF requires of a base URI.
func fileURI(abs string, dir bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive letters: file:///C:/...
	}
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// relativeURI escapes a slash-separated relative path as a URI reference.
// A first segment containing a colon would read as a scheme, so it is
// prefixed with "./".
func relativeURI(rel string) string {
	if first, _, _ := strings.Cut(rel, "/"); strings.Contains(first, ":") {
		rel = "./" + rel
	}
	return (&url.URL{Path: rel}).EscapedPath()
}
