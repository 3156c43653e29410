// Package overlay lets a long-running caller lint text that is not on
// disk yet: the language server puts the unsaved buffers of an editor
// here, and every reader of source files asks ReadFile and Open, which
// return the buffer when there is one and the disk's content otherwise.
//
// It is a process-wide table because the readers sit deep in the loaders
// (a manifest, a kustomization, a patch kustomize opens); threading a file
// system through every one of them would change a hundred signatures for
// one caller. The command line never sets anything, and then each read
// costs one atomic load more than os.ReadFile.
package overlay

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

var (
	mu    sync.RWMutex
	files = map[string][]byte{}
	// active is len(files) > 0, read without the lock.
	active atomic.Bool
)

// Set makes data the content of the file at path (absolute) until Delete.
// The slice is kept: the caller must not change it afterwards.
func Set(path string, data []byte) {
	mu.Lock()
	defer mu.Unlock()
	files[filepath.Clean(path)] = data
	active.Store(true)
}

// Delete reverts path to the disk's content.
func Delete(path string) {
	mu.Lock()
	defer mu.Unlock()
	delete(files, filepath.Clean(path))
	active.Store(len(files) > 0)
}

// Get returns the buffer standing in for path, if any.
func Get(path string) ([]byte, bool) {
	if !active.Load() {
		return nil, false
	}
	if !filepath.IsAbs(path) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, false
		}
		path = abs
	}
	mu.RLock()
	defer mu.RUnlock()
	data, ok := files[filepath.Clean(path)]
	return data, ok
}

// ReadFile is os.ReadFile, seeing the buffers set (and recorded, see
// AddRecorder).
func ReadFile(path string) ([]byte, error) {
	data, err := readFile(path)
	if err == nil {
		noteData(path, data)
	} else if r, ok := recording(); ok {
		r(OpRead, absolute(path), "error")
	}
	return data, err
}

func readFile(path string) ([]byte, error) {
	if data, ok := Get(path); ok {
		return bytes.Clone(data), nil
	}
	return os.ReadFile(path)
}

// Open is os.Open for reading, seeing the buffers set. size is the
// content's length when it is known in advance (a buffer or a regular
// file), else -1.
func Open(path string) (r io.ReadCloser, size int64, err error) {
	r, size, err = open(path)
	if rec, ok := recording(); ok {
		if err != nil {
			rec(OpRead, absolute(path), "error")
		} else {
			r = &hashingReader{ReadCloser: r, path: absolute(path), h: sha256.New(), r: rec}
		}
	}
	return r, size, err
}

func open(path string) (r io.ReadCloser, size int64, err error) {
	if data, ok := Get(path); ok {
		return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	size = -1
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return f, size, nil
}
