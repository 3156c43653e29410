// Package cache keeps a run's per-unit results between runs, as
// golangci-lint, ESLint's --cache and Ruff keep theirs: in the user's
// cache folder, one file per unit.
//
// An entry is found by a key made of everything the caller knows before
// linting a unit (the tool's build, the run's configuration, the unit's
// description) and holds, beside the result, every input the unit read
// while it was linted, with its signature: a file's content hash, a
// folder's names, whether a path exists (internal/overlay records them
// all). An entry is used only when every input still has its signature,
// so a stale result cannot be reused, whatever changed and however. What
// the inputs are is known only once a unit has been linted, which is why
// they are kept in the entry rather than in its key.
//
// Units are linted in parallel and a read does not say which unit made
// it, so a unit's inputs are every read the process made between its
// start and its end: its own and some of the units linted beside it.
// That is more than it needs (an entry may be invalidated by a file that
// did not matter to it), never less.
//
// Nothing here fails a run: an entry that cannot be read, decoded or
// written is a miss, and the first such error is printed once.
package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// EnvVar names the cache folder, or turns the cache off with off, 0,
// false or no.
const EnvVar = "WEBHOOKLINT_CACHE"

// MaxBytes bounds the cache folder: past it, the entries used least
// recently are removed until it holds three quarters of it.
var MaxBytes int64 = 512 << 20

// format is the entries' layout version, a folder of the cache: an
// older webhooklint's entries are another folder's, never misread.
const format = "v2"

// Location returns the cache folder a run uses: dirFlag (--cache-dir)
// when set, else $WEBHOOKLINT_CACHE, else webhooklint's folder in the
// user's cache folder; off is set when the cache is turned off. given
// says the folder was named by the user (so a failure to use it is worth
// a warning; the default folder may be read-only, as in a container).
func Location(dirFlag string) (dir string, given, off bool) {
	if dirFlag != "" {
		return dirFlag, true, false
	}
	if env := os.Getenv(EnvVar); env != "" {
		switch strings.ToLower(env) {
		case "off", "0", "false", "no":
			return "", false, true
		}
		return env, true, false
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", false, true
	}
	return filepath.Join(base, "webhooklint"), false, false
}

// A Cache is the cache of one run. The nil Cache keeps nothing: every
// lookup misses and nothing is stored.
type Cache struct {
	store backend
	salt  []byte // tool build and run configuration
	// inputsSalt names the entries whose caller lists their inputs
	// (LookupInputs): the tool's build alone, not the run's configuration.
	inputsSalt []byte

	mu      sync.Mutex
	log     []record
	windows atomic.Int32 // units being linted: reads are recorded
	sigs    sync.Map     // record key -> signature now, for lookups

	hits, misses, stored   atomic.Int64
	inputHits, inputMisses atomic.Int64
	unrecord               func() // removes the cache from overlay's recorders

	// oneAtATime makes units that miss be linted one at a time, so that
	// each entry's inputs are its unit's own reads and no other's: the
	// editor server lints a few units per edit, and an input of a unit
	// linted beside another would make an edit to it re-lint both.
	oneAtATime bool
	serial     sync.Mutex

	warnOnce sync.Once
	warnTo   io.Writer
	quiet    bool
}

type record struct {
	Op   overlay.Op
	Path string
	Sig  string
	// Stat is the path's stat fingerprint taken before it was read, when
	// the caller took one and it was not racy (inputs.go): an unchanged
	// fingerprint vouches for the signature without reading the path.
	Stat string
}

// Open returns the cache in dir for a run whose configuration is config
// (the bytes of everything the caller's results depend on besides the
// units: flags, the configuration file), or nil when dir cannot be used.
// Warnings go to warn (once); given says the user named dir. Close ends
// the run.
func Open(dir string, given bool, config []byte, warn io.Writer) *Cache {
	c := &Cache{warnTo: warn, quiet: !given}
	root := filepath.Join(dir, format)
	if err := os.MkdirAll(root, 0o755); err != nil {
		c.warn(err)
		return nil
	}
	id := toolID()
	if id == "" {
		id = "sha256 " + exeHash(root)
	}
	if id == "sha256 " {
		c.warn(errors.New("cannot identify the running binary"))
		return nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "webhooklint cache %s\x00%s\x00", format, id)
	h.Write(config)
	c.store, c.salt, c.inputsSalt = &disk{dir: root}, h.Sum(nil), inputsSalt(id)
	c.unrecord = overlay.AddRecorder(c)
	return c
}

// Close stops recording and keeps the folder within MaxBytes.
func (c *Cache) Close() {
	if c == nil {
		return
	}
	c.unrecord()
	if c.stored.Load() > 0 {
		c.store.trim()
	}
}

// Stats are the run's lookups that found a valid entry and those that
// did not.
func (c *Cache) Stats() (hits, misses int64) {
	if c == nil {
		return 0, 0
	}
	return c.hits.Load(), c.misses.Load()
}

func (c *Cache) warn(err error) {
	if c.quiet || c.warnTo == nil {
		return
	}
	c.warnOnce.Do(func() { fmt.Fprintf(c.warnTo, "webhooklint: warning: cache: %v (the run goes on without it)\n", err) })
}

// Recording and Record make the cache one of overlay's recorders: reads
// are logged while a unit is being linted.
func (c *Cache) Recording() bool { return c.windows.Load() > 0 }

func (c *Cache) Record(op overlay.Op, path, sig string) {
	c.mu.Lock()
	c.log = append(c.log, record{Op: op, Path: path, Sig: sig})
	c.mu.Unlock()
}

// A Window is the linting of one unit: the reads it covers are the
// unit's inputs.
type Window struct {
	c     *Cache
	start int
}

// Begin starts a unit's linting; Store ends it.
func (c *Cache) Begin() Window {
	if c == nil {
		return Window{}
	}
	if c.oneAtATime {
		c.serial.Lock() // until Store or End
	}
	c.windows.Add(1) // before the start is taken: no read is missed
	c.mu.Lock()
	defer c.mu.Unlock()
	return Window{c: c, start: len(c.log)}
}

// endWindow ends a window.
func (c *Cache) endWindow() {
	c.windows.Add(-1)
	if c.oneAtATime {
		c.serial.Unlock()
	}
}

// entryName names the entry of key.
func (c *Cache) entryName(key []byte) string { return entryName(c.salt, key) }

func entryName(salt, key []byte) string {
	h := sha256.New()
	h.Write(salt)
	h.Write(key)
	return hex.EncodeToString(h.Sum(nil))
}

// entry is a unit's file: its inputs and the caller's result.
type entry struct {
	Inputs []record
	Result []byte
}

// magic starts every entry, with the checksum of the rest after it: a
// file cut short or damaged is a miss. The checksum is CRC-32C, which the
// CPU computes: it guards against damage, not against a writer of the
// folder (who could write a matching SHA-256 as well), and a warm run
// checks the 2.5 MB discovery index before its first stat.
const magic = "webhooklint-cache crc32c\n"

// checksum is an entry's checksum of body, as written after magic.
func checksum(body []byte) [8]byte {
	var b [8]byte
	hex.Encode(b[:], binary.BigEndian.AppendUint32(nil, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli))))
	return b
}

// Lookup returns the result stored for key if every input it was
// computed from is as it was then.
func (c *Cache) Lookup(key []byte) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	e, ok := c.read(c.entryName(key))
	if !ok || !c.valid(e.Inputs) {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	return e.Result, true
}

func (c *Cache) read(name string) (*entry, bool) { return readEntry(c.store, name, c.warn) }

// readEntry reads the entry name from store, telling warn of a failure
// other than its absence.
func readEntry(store backend, name string, warn func(error)) (*entry, bool) {
	data, err := store.get(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(err)
		}
		return nil, false
	}
	body, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok || len(body) < 9 || body[8] != '\n' {
		return nil, false
	}
	if sum := checksum(body[9:]); string(sum[:]) != string(body[:8]) {
		return nil, false
	}
	e, ok := decodeEntry(body[9:])
	if !ok || len(e.Result) == 0 {
		return nil, false
	}
	return e, true
}

// valid reports whether every input has its signature now. Inputs that
// many units share (a base, a chart's values) are signed once a run.
func (c *Cache) valid(inputs []record) bool {
	for _, in := range inputs {
		if in.Op == overlay.OpClock {
			// Findings on certificates: valid between the time they were
			// made and the first instant they could change.
			from, until, ok := overlay.ClockSpan(in.Sig)
			if now := time.Now(); !ok || now.Before(from) || !now.Before(until) {
				return false
			}
			continue
		}
		k := string(rune(in.Op)) + in.Path
		sig, ok := c.sigs.Load(k)
		if !ok {
			sig, _ = c.sigs.LoadOrStore(k, overlay.Sign(in.Op, in.Path))
		}
		if sig.(string) != in.Sig {
			return false
		}
	}
	return true
}

// Reads are the reads of a window that ended before its unit's linting
// began (a build made during discovery), stored with the unit's own.
type Reads []record

// Take ends w and returns the reads made during it, for Store.
func (w Window) Take() Reads {
	if w.c == nil {
		return nil
	}
	w.c.mu.Lock()
	reads := slices.Clone(w.c.log[w.start:])
	w.c.mu.Unlock()
	w.c.endWindow()
	return reads
}

// Store ends w and writes result as key's entry, with the reads made
// during w, and the earlier ones taken from other windows, as its inputs.
// A path read twice with two signatures (changed during the run) leaves
// no entry.
func (c *Cache) Store(key []byte, w Window, result []byte, earlier ...Reads) {
	if c == nil || w.c != c {
		return
	}
	c.mu.Lock()
	reads := slices.Clone(c.log[w.start:])
	c.mu.Unlock()
	c.endWindow()
	for _, e := range earlier {
		reads = append(reads, e...)
	}
	if result == nil {
		return
	}
	slices.SortFunc(reads, func(a, b record) int {
		if a.Path != b.Path {
			return strings.Compare(a.Path, b.Path)
		}
		return int(a.Op) - int(b.Op)
	})
	// The time the findings hold for is the narrowest of those given.
	var from, until time.Time
	inputs := reads[:0]
	for _, r := range reads {
		switch r.Op {
		case overlay.OpVolatile:
			return
		case overlay.OpClock:
			f, u, ok := overlay.ClockSpan(r.Sig)
			if !ok {
				return
			}
			if from.IsZero() || f.After(from) {
				from = f
			}
			if until.IsZero() || u.Before(until) {
				until = u
			}
			continue
		}
		if n := len(inputs); n > 0 && inputs[n-1].Op == r.Op && inputs[n-1].Path == r.Path {
			if inputs[n-1].Sig != r.Sig {
				return
			}
			continue
		}
		inputs = append(inputs, r)
	}
	if !from.IsZero() {
		if !from.Before(until) {
			return
		}
		inputs = append(inputs, record{Op: overlay.OpClock, Path: "clock",
			Sig: fmt.Sprintf("%d %d", from.UnixNano(), until.UnixNano())})
	}
	c.write(key, &entry{Inputs: inputs, Result: result})
}

// write stores e as key's entry.
func (c *Cache) write(key []byte, e *entry) { c.writeName(c.entryName(key), e) }

// writeName stores e as the entry name.
func (c *Cache) writeName(name string, e *entry) {
	body := encodeEntry(e)
	sum := checksum(body)
	data := make([]byte, 0, len(magic)+9+len(body))
	data = append(data, magic...)
	data = append(data, sum[:]...)
	data = append(data, '\n')
	data = append(data, body...)
	if err := c.store.put(name, data); err != nil {
		c.warn(err)
		return
	}
	c.stored.Add(1)
}

// End ends a window whose unit is not stored (it cannot be: it read
// stdin, or it failed in a way that must be seen again).
func (w Window) End() {
	if w.c != nil {
		w.c.endWindow()
	}
}
