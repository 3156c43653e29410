package report

import (
	"bytes"
	"os"
	"sync"
)

// Sources gives formatters the text of linted files, for snippets and
// whole-file regions. A formatter without Sources still works; it only
// prints less.
type Sources interface {
	// Source returns the content of file, or false when it is unknown.
	Source(file string) ([]byte, bool)
}

// SourceCache serves file contents from memory, reading a file from disk
// the first time it is asked for. Inputs that are not on disk (stdin)
// are added with Put.
type SourceCache struct {
	mu    sync.Mutex
	files map[string][]byte
}

// NewSourceCache returns an empty cache.
func NewSourceCache() *SourceCache { return &SourceCache{files: map[string][]byte{}} }

// Put records the content of a file that cannot be read again (stdin) or
// that the loader already holds.
func (c *SourceCache) Put(file string, content []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files[file] = content
}

// Source implements Sources. A file that cannot be read is remembered as
// missing so each diagnostic does not retry the disk.
func (c *SourceCache) Source(file string) ([]byte, bool) {
	if c == nil || file == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.files[file]; ok {
		return b, b != nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		c.files[file] = nil
		return nil, false
	}
	c.files[file] = b
	return b, true
}

// sourceLine returns line n (1-based) of src without its line ending.
func sourceLine(src []byte, n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return string(bytes.TrimSuffix(src, []byte("\r"))), true
}

// lastPosition is the line count of src and the column just past the end
// of its last non-empty line, in code points; a region of a whole file
// ends there.
func lastPosition(src []byte) (line, column int) {
	trimmed := bytes.TrimRight(src, "\r\n")
	if len(trimmed) == 0 {
		return 1, 1
	}
	line = bytes.Count(trimmed, []byte("\n")) + 1
	last := trimmed[bytes.LastIndexByte(trimmed, '\n')+1:]
	return line, len([]rune(string(last))) + 1
}
