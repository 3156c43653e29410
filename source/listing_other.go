//go:build !linux

package source

import (
	"os"
	"path/filepath"
)

// folder is a folder and its listing.
type folder struct {
	dir     string
	entries []folderEntry
}

func openFolder(dir string) (*folder, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil && len(entries) == 0 {
		return nil, false
	}
	f := &folder{dir: dir, entries: make([]folderEntry, len(entries))}
	for i, e := range entries {
		f.entries[i] = folderEntry{name: e.Name(), mode: e.Type()}
	}
	return f, true
}

func (f *folder) close() {}

func (f *folder) read(name string) ([]byte, error) { return os.ReadFile(filepath.Join(f.dir, name)) }
