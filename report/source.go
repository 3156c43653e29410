package report

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// FileSource returns a Run.Source that serves the texts held in memory
// (stdin, rendered templates) and reads every other file from disk when a
// report first asks for it: the linter does not keep files' bytes alive
// until the report. Reports ask file by file (diagnostics are sorted), so
// only the last file read is kept. Files larger than limit bytes are not
// read (their findings print without a snippet).
func FileSource(inMemory map[string][]byte, limit int64) func(string) []byte {
	var mu sync.Mutex
	var lastName string
	var last []byte
	return func(name string) []byte {
		if data, ok := inMemory[name]; ok {
			return data
		}
		mu.Lock()
		defer mu.Unlock()
		if name != lastName {
			lastName, last = name, readLimited(name, limit)
		}
		return last
	}
}

func readLimited(name string, limit int64) []byte {
	// Stat before opening: opening a named pipe blocks until a writer
	// comes, so checking the open file would be too late.
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }() // read-only
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil // never block on a FIFO or a device, nor read a huge file, for a snippet
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(data)) > limit {
		return nil
	}
	return data
}

// lineIndex finds lines of one text quickly: a report on a large file
// with many findings must not scan the file from the start per finding.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of each line's start
}

func newLineIndex(src []byte) *lineIndex {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{src: src, starts: starts}
}

// line returns line n (1-based) without its line ending.
func (x *lineIndex) line(n int) (string, bool) {
	if n < 1 || n > len(x.starts) {
		return "", false
	}
	end := len(x.src)
	if n < len(x.starts) {
		end = x.starts[n] - 1
	}
	return string(bytes.TrimSuffix(x.src[x.starts[n-1]:end], []byte("\r"))), true
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
