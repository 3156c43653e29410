package overlay

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Op is what a reader learned about a path: what must stay the same for
// a result computed from it to hold.
type Op uint8

const (
	// OpRead is a file's content.
	OpRead Op = iota + 1
	// OpStat is whether a path exists, and as what (a folder, a file of
	// some size).
	OpStat
	// OpList is a folder's entries: their names and whether each is a
	// folder.
	OpList
	// OpTree is a folder's every file, content included, at any depth
	// (what a Helm chart loader reads).
	OpTree
	// OpVolatile is an input that cannot be checked again: a time or
	// memory budget that ran out. What depends on it is never reused.
	OpVolatile
	// OpClock is the time of the run, with until when what was computed
	// from it holds (Clock).
	OpClock
	// OpEntries is a folder's entries: their names and what each is (a
	// folder, a regular file, a link or something else). A walk that
	// treats a link unlike a file depends on more than OpList.
	OpEntries
)

// A Recorder is told, while Recording, of every read of the process: the
// path (absolute) and its signature (Sign). The signature is taken no
// later than the read itself, so a change made during a run shows as a
// mismatch on the next one, never as a stale match.
type Recorder interface {
	Recording() bool
	Record(op Op, path, sig string)
}

var (
	recordersMu sync.Mutex
	// recorders is the list of recorders installed, replaced whole on
	// every change so that reads load it without the lock.
	recorders atomic.Pointer[[]Recorder]
)

// AddRecorder installs r until remove is called. The readers of source
// files all go through this package, so r sees every input of what runs
// while it is installed (several may be: each sees every read).
func AddRecorder(r Recorder) (remove func()) {
	recordersMu.Lock()
	defer recordersMu.Unlock()
	var list []Recorder
	if old := recorders.Load(); old != nil {
		list = slices.Clone(*old)
	}
	list = append(list, r)
	recorders.Store(&list)
	return func() {
		recordersMu.Lock()
		defer recordersMu.Unlock()
		list := slices.DeleteFunc(slices.Clone(*recorders.Load()), func(x Recorder) bool { return x == r })
		recorders.Store(&list)
	}
}

// recording returns what to call for a read, if any recorder records.
func recording() (func(op Op, path, sig string), bool) {
	list := recorders.Load()
	if list == nil || len(*list) == 0 {
		return nil, false
	}
	var on []Recorder
	for _, r := range *list {
		if r.Recording() {
			on = append(on, r)
		}
	}
	switch len(on) {
	case 0:
		return nil, false
	case 1:
		return on[0].Record, true
	}
	return func(op Op, path, sig string) {
		for _, r := range on {
			r.Record(op, path, sig)
		}
	}, true
}

// Note tells the recorder of a read made by code that does not read
// through this package (a library's loader): call it before that read.
func Note(op Op, path string) {
	if r, ok := recording(); ok {
		path = absolute(path)
		r(op, path, Sign(op, path))
	}
}

// Volatile tells the recorder that what is being computed depends on
// something no later run can check (why: "clock", "render budget").
func Volatile(why string) {
	if r, ok := recording(); ok {
		r(OpVolatile, why, "volatile")
	}
}

// Clock tells the recorder that what is being computed depends on the
// time: it holds from now until until (excluded). The signature is
// "now until" in Unix nanoseconds (ClockSpan reads it back).
func Clock(now, until time.Time) {
	if r, ok := recording(); ok {
		r(OpClock, "clock", strconv.FormatInt(now.UnixNano(), 10)+" "+strconv.FormatInt(until.UnixNano(), 10))
	}
}

// ClockSpan reads a signature of Clock.
func ClockSpan(sig string) (from, until time.Time, ok bool) {
	a, b, found := strings.Cut(sig, " ")
	f, err1 := strconv.ParseInt(a, 10, 64)
	u, err2 := strconv.ParseInt(b, 10, 64)
	if !found || err1 != nil || err2 != nil {
		return time.Time{}, time.Time{}, false
	}
	return time.Unix(0, f), time.Unix(0, u), true
}

func noteData(path string, data []byte) {
	if r, ok := recording(); ok {
		r(OpRead, absolute(path), sum(data))
	}
}

func absolute(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// Sign returns the signature of path for op now, as the recorder was
// given it: equal signatures mean a reader would learn the same.
func Sign(op Op, path string) string {
	switch op {
	case OpRead:
		data, err := readFile(path)
		if err != nil {
			return "error"
		}
		return sum(data)
	case OpStat:
		// Where it leads too: a link moved to another folder changes
		// what the files below the path are, read by their real paths.
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			real = "unresolved"
		}
		return statSig(os.Stat(path)) + " at " + real
	case OpList:
		entries, err := os.ReadDir(path)
		if err != nil {
			return "error"
		}
		return listSig(entries)
	case OpEntries:
		entries, err := os.ReadDir(path)
		if err != nil {
			return "error"
		}
		names := make([]string, len(entries))
		types := make([]fs.FileMode, len(entries))
		for i, e := range entries {
			names[i], types[i] = e.Name(), e.Type()
		}
		return EntriesSig(names, types)
	case OpTree:
		h := sha256.New()
		tree(h, path, 0)
		return hex.EncodeToString(h.Sum(nil))
	case OpVolatile:
		return "changed" // never what was recorded
	}
	return "unknown"
}

// Sum is the OpRead signature of a file with this content.
func Sum(data []byte) string { return sum(data) }

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func statSig(fi fs.FileInfo, err error) string {
	switch {
	case err != nil:
		return "missing"
	case fi.IsDir():
		return "dir"
	case fi.Mode().IsRegular():
		return "file " + strconv.FormatInt(fi.Size(), 10)
	}
	return "other " + fi.Mode().Type().String()
}

func listSig(entries []fs.DirEntry) string {
	h := sha256.New()
	for _, e := range entries {
		put(h, e.Name())
		if e.IsDir() {
			put(h, "/")
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EntriesSig is the OpEntries signature of a folder whose entries have
// these names and types (fs.FileMode type bits), in any order: a caller
// that lists folders itself records what Sign would.
func EntriesSig(names []string, types []fs.FileMode) string {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	h := sha256.New()
	for _, i := range order {
		class := "o"
		switch t := types[i].Type(); {
		case t.IsDir():
			class = "d"
		case t.IsRegular():
			class = "f"
		case t&fs.ModeSymlink != 0:
			class = "l"
		}
		put(h, names[i]+"\x00"+class+"\x00")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// put writes s to a hash, which never fails.
func put(h hash.Hash, s string) { _, _ = io.WriteString(h, s) }

// tree writes every name under dir and every file's content to h,
// following symbolic links as a chart loader does (to a bounded depth:
// a link to a parent folder would never end).
func tree(h hash.Hash, dir string, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil || depth > 32 {
		put(h, "\x00error\x00")
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		put(h, e.Name()+"\x00"+statSig(fi, err)+"\x00")
		switch {
		case err != nil:
		case fi.IsDir():
			tree(h, p, depth+1)
		case fi.Mode().IsRegular():
			if data, err := readFile(p); err == nil {
				put(h, sum(data))
			}
		}
	}
	put(h, "\x00end\x00")
}

// Stat is os.Stat, recorded.
func Stat(path string) (fs.FileInfo, error) {
	if r, ok := recording(); ok {
		r(OpStat, absolute(path), Sign(OpStat, path)) // before the stat
	}
	return os.Stat(path)
}

// ReadDir is os.ReadDir, recorded.
func ReadDir(path string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(path)
	if r, ok := recording(); ok {
		sig := "error"
		if err == nil {
			sig = listSig(entries)
		}
		r(OpList, absolute(path), sig)
	}
	return entries, err
}

// WalkDir is filepath.WalkDir, recording each folder it lists (those fn
// skips are not listed, so what they hold does not matter).
func WalkDir(root string, fn fs.WalkDirFunc) error {
	if _, ok := recording(); !ok {
		return filepath.WalkDir(root, fn)
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			Note(OpList, p)
		} else if err == nil && p == root {
			Note(OpStat, p)
		}
		return fn(p, d, err)
	})
}

// ReadDiskFile is os.ReadFile, recorded: for readers that must not see
// an editor's buffers.
func ReadDiskFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if r, ok := recording(); ok {
		// What was read; with a buffer open on path, Sign sees the buffer
		// instead, so a later check misses unless both are the same.
		sig := "error"
		if err == nil {
			sig = sum(data)
		}
		r(OpRead, absolute(path), sig)
	}
	return data, err
}

// Glob is filepath.Glob, recorded (NoteGlob).
func Glob(pattern string) ([]string, error) {
	NoteGlob(pattern)
	return filepath.Glob(pattern)
}

// NoteGlob records what a glob of pattern depends on: whether the path
// exists when it has no metacharacter; else the names of the folder it
// lists; else (metacharacters in folder names too) the folder above them
// whole.
func NoteGlob(pattern string) {
	if _, ok := recording(); !ok {
		return
	}
	const meta = "*?["
	dir := filepath.Dir(pattern)
	switch {
	case !strings.ContainsAny(pattern, meta):
		Note(OpStat, pattern)
	case !strings.ContainsAny(dir, meta):
		Note(OpList, dir)
	default:
		for strings.ContainsAny(dir, meta) && dir != filepath.Dir(dir) {
			dir = filepath.Dir(dir)
		}
		Note(OpTree, dir)
	}
}

// hashingReader records the content of a file opened with Open once it
// has been read to the end; one read only partly records a signature no
// content has, so what depends on it is never reused.
type hashingReader struct {
	io.ReadCloser
	path string
	h    hash.Hash
	eof  bool
	r    func(op Op, path, sig string)
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.ReadCloser.Read(p)
	h.h.Write(p[:n])
	if err == io.EOF {
		h.eof = true
	}
	return n, err
}

func (h *hashingReader) Close() error {
	sig := "partial read"
	if h.eof {
		sig = hex.EncodeToString(h.h.Sum(nil))
	}
	h.r(OpRead, h.path, sig)
	return h.ReadCloser.Close()
}
