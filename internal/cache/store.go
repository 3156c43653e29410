package cache

import (
	"container/list"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// A backend keeps entries by name: the user's cache folder for the
// command line, the process's memory for the editor server. Everything
// else (keys, recorded inputs, their checks) is the same code.
type backend interface {
	get(name string) ([]byte, error) // fs.ErrNotExist when there is none
	put(name string, data []byte) error
	trim() // keeps the backend within its bound, after a run that stored
}

// entrySuffix ends an entry's file name; a folder holds nothing else but
// temporary files and stamps.
const entrySuffix = ".entry"

// disk keeps one file per entry, under the first two hex digits of its
// name.
type disk struct{ dir string }

func (d *disk) path(name string) string {
	return filepath.Join(d.dir, name[:2], name[2:]+entrySuffix)
}

func (d *disk) get(name string) ([]byte, error) {
	p := d.path(name)
	data, err := os.ReadFile(p)
	if err == nil {
		// Used: the eviction removes the entries used least recently.
		now := time.Now()
		_ = os.Chtimes(p, now, now)
	}
	return data, err
}

func (d *disk) put(name string, data []byte) error {
	p := d.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeAtomic(p, data)
}

// A Memory keeps entries in the process, for a caller that lints again
// and again (the editor server): at most its bound in bytes, the entries
// used least recently dropped first. One Memory serves any number of
// runs (OpenMemory), one after another or at once.
type Memory struct {
	mu     sync.Mutex
	max    int64
	size   int64
	order  *list.List // of *memEntry, most recently used first
	byName map[string]*list.Element
}

type memEntry struct {
	name string
	data []byte
}

// NewMemory returns an empty store of at most max bytes of entries.
func NewMemory(max int64) *Memory {
	return &Memory{max: max, order: list.New(), byName: map[string]*list.Element{}}
}

// OpenMemory returns the cache of one run whose configuration is config,
// keeping its entries in m. Close ends the run.
func OpenMemory(m *Memory, config []byte) *Cache {
	c := &Cache{store: m, salt: append([]byte("webhooklint memory cache\x00"), config...),
		inputsSalt: []byte("webhooklint memory cache, inputs listed\x00"), quiet: true, oneAtATime: true}
	c.unrecord = overlay.AddRecorder(c)
	return c
}

func (m *Memory) get(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.byName[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	m.order.MoveToFront(el)
	return el.Value.(*memEntry).data, nil
}

func (m *Memory) put(name string, data []byte) error {
	if int64(len(data)) > m.max {
		return errors.New("entry larger than the memory cache")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byName[name]; ok {
		m.size -= int64(len(el.Value.(*memEntry).data))
		m.order.Remove(el)
	}
	m.byName[name] = m.order.PushFront(&memEntry{name: name, data: data})
	m.size += int64(len(data))
	for m.size > m.max {
		last := m.order.Back()
		e := last.Value.(*memEntry)
		m.order.Remove(last)
		delete(m.byName, e.name)
		m.size -= int64(len(e.data))
	}
	return nil
}

// Size is how many bytes of entries m holds.
func (m *Memory) Size() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}

func (m *Memory) trim() {} // put keeps the bound

// writeAtomic writes data to p through a temporary file renamed over it:
// a reader sees the old entry or the new one, never part of one, and two
// runs writing the same entry leave one of them whole.
func writeAtomic(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}

// evictEvery is how often the folder's size is measured: it costs a stat
// of every entry.
const evictEvery = time.Hour

// trim removes the entries used least recently while the folder holds
// more than MaxBytes, down to three quarters of it. Runs that meet here
// at once may both remove entries: each removal is of a whole file, and
// a removed entry is only a miss.
func (d *disk) trim() {
	stamp := filepath.Join(d.dir, "evicted")
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < evictEvery {
		return
	}
	_ = writeAtomic(stamp, nil)
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	_ = filepath.WalkDir(d.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		// Temporary files of a run that died are removed after a day.
		if strings.HasPrefix(d.Name(), ".tmp-") && time.Since(fi.ModTime()) > 24*time.Hour {
			_ = os.Remove(p)
			return nil
		}
		if strings.HasSuffix(d.Name(), entrySuffix) {
			files = append(files, file{p, fi.Size(), fi.ModTime()})
			total += fi.Size()
		}
		return nil
	})
	if total <= MaxBytes {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if total <= MaxBytes*3/4 {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}
