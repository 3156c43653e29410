package cache

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

func TestLocation(t *testing.T) {
	t.Setenv(EnvVar, "")
	if dir, given, off := Location("/x"); dir != "/x" || !given || off {
		t.Errorf("--cache-dir /x: %q, given %v, off %v", dir, given, off)
	}
	if dir, given, off := Location(""); off || given || filepath.Base(dir) != "webhooklint" {
		t.Errorf("default: %q, given %v, off %v; want the user's cache folder", dir, given, off)
	}
	t.Setenv(EnvVar, "/env")
	if dir, given, off := Location(""); dir != "/env" || !given || off {
		t.Errorf("$%s=/env: %q, given %v, off %v", EnvVar, dir, given, off)
	}
	if dir, _, _ := Location("/flag"); dir != "/flag" {
		t.Errorf("--cache-dir over $%s: %q", EnvVar, dir)
	}
	for _, v := range []string{"off", "OFF", "0", "false", "no"} {
		t.Setenv(EnvVar, v)
		if _, _, off := Location(""); !off {
			t.Errorf("$%s=%s does not turn the cache off", EnvVar, v)
		}
	}
}

// The test binary, as go build's, go run's and the linter's own, has a
// Go build ID: the cache's key changes with the code.
func TestToolID(t *testing.T) {
	if id := toolID(); !strings.HasPrefix(id, "buildid ") || len(id) < 20 {
		t.Errorf("toolID() = %q; want the Go build ID", id)
	}
	dir := t.TempDir()
	a, b := exeHash(dir), exeHash(dir)
	if len(a) != 64 || a != b {
		t.Errorf("exeHash: %q then %q; want the same SHA-256 twice (remembered)", a, b)
	}
}

// lint stands for a unit's linting: it reads file through overlay.
func lint(t *testing.T, c *Cache, key, file string) []byte {
	t.Helper()
	if got, ok := c.Lookup([]byte(key)); ok {
		return got
	}
	w := c.Begin()
	data, err := overlay.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	result := append([]byte("result of "), data...)
	c.Store([]byte(key), w, result)
	return result
}

func TestLookupChecksInputs(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	file := filepath.Join(src, "a.yaml")
	write := func(text string) {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	run := func(want string, hits, misses int64) {
		t.Helper()
		c := Open(dir, true, []byte("config"), os.Stderr)
		defer c.Close()
		if got := lint(t, c, "unit", file); string(got) != want {
			t.Errorf("result %q, want %q", got, want)
		}
		if h, m := c.Stats(); h != hits || m != misses {
			t.Errorf("%d hits, %d misses; want %d, %d", h, m, hits, misses)
		}
	}
	run("result of one", 0, 1)
	run("result of one", 1, 0)
	write("two")
	run("result of two", 0, 1)
	run("result of two", 1, 0)

	// Another configuration is another entry.
	c := Open(dir, true, []byte("other config"), os.Stderr)
	if _, ok := c.Lookup([]byte("unit")); ok {
		t.Error("hit with another configuration")
	}
	c.Close()

	// Entries cut short or changed are misses, without a warning.
	var entries []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, entrySuffix) {
			entries = append(entries, p)
		}
		return nil
	})
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	data, _ := os.ReadFile(entries[0])
	for _, damaged := range [][]byte{nil, data[:10], data[:len(data)-1], bytes.Replace(data, []byte("result"), []byte("resulT"), 1)} {
		if err := os.WriteFile(entries[0], damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		var warned bytes.Buffer
		c := Open(dir, true, []byte("config"), &warned)
		if got, ok := c.Lookup([]byte("unit")); ok {
			t.Errorf("damaged entry %q: hit %q", damaged, got)
		}
		c.Close()
		if warned.Len() > 0 {
			t.Errorf("damaged entry: warned %q", warned.String())
		}
	}
}

// A path read twice with two contents in one unit (changed while it was
// linted) leaves no entry.
func TestChangedDuringLintIsNotStored(t *testing.T) {
	dir, file := t.TempDir(), filepath.Join(t.TempDir(), "a.yaml")
	c := Open(dir, true, nil, os.Stderr)
	defer c.Close()
	w := c.Begin()
	for _, text := range []string{"one", "two"} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := overlay.ReadFile(file); err != nil {
			t.Fatal(err)
		}
	}
	c.Store([]byte("unit"), w, []byte("result"))
	if _, ok := c.Lookup([]byte("unit")); ok {
		t.Error("stored a result whose input changed while it was computed")
	}
}

// A folder that cannot be created is no cache, and a warning when it was
// named; the nil cache misses and stores nothing.
func TestUnusableFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var warned bytes.Buffer
	c := Open(filepath.Join(file, "cache"), true, nil, &warned)
	if c != nil || !strings.Contains(warned.String(), "warning: cache:") {
		t.Errorf("Open under a file: %v, warned %q", c, warned.String())
	}
	warned.Reset()
	if c := Open(filepath.Join(file, "cache"), false, nil, &warned); c != nil || warned.Len() > 0 {
		t.Errorf("default folder unusable: %v, warned %q; want no cache, silently", c, warned.String())
	}
	var none *Cache
	w := none.Begin()
	none.Store([]byte("k"), w, []byte("r"))
	if _, ok := none.Lookup([]byte("k")); ok {
		t.Error("the nil cache hit")
	}
	none.Close()
}

// Runs at once share the folder: every result read is one a run stored.
func TestConcurrentRuns(t *testing.T) {
	dir, file := t.TempDir(), filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(file, []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c := Open(dir, true, nil, os.Stderr)
			for range 20 {
				if got := lint(t, c, "unit", file); string(got) != "result of same" {
					t.Errorf("result %q", got)
				}
			}
			c.Close()
		})
	}
	wg.Wait()
}

// Past MaxBytes, the entries used least recently go.
func TestEviction(t *testing.T) {
	defer func(m int64) { MaxBytes = m }(MaxBytes)
	MaxBytes = 4 << 10
	dir := t.TempDir()
	c := Open(dir, true, nil, os.Stderr)
	big := bytes.Repeat([]byte("x"), 1<<10)
	for i := range 10 {
		w := c.Begin()
		c.Store([]byte{byte(i)}, w, big)
	}
	c.Close()
	var total int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, entrySuffix) {
			fi, _ := d.Info()
			total += fi.Size()
		}
		return nil
	})
	if total > MaxBytes || total == 0 {
		t.Errorf("%d bytes of entries after eviction; want some, at most %d", total, MaxBytes)
	}
}

// Findings made from the clock are used only until the instant they
// could change, and not before the instant they were made.
func TestClockBoundsEntries(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i, span := range []struct {
		from, until time.Time
		hit         bool
	}{
		{now.Add(-time.Hour), now.Add(time.Hour), true},
		{now.Add(-time.Hour), now.Add(-time.Minute), false},
		{now.Add(time.Hour), now.Add(2 * time.Hour), false},
	} {
		c := Open(dir, true, nil, os.Stderr)
		key := []byte{byte(i)}
		w := c.Begin()
		overlay.Clock(span.from, span.until)
		c.Store(key, w, []byte("result"))
		if _, ok := c.Lookup(key); ok != span.hit {
			t.Errorf("findings holding from %v until %v: hit %v, want %v", span.from, span.until, ok, span.hit)
		}
		c.Close()
	}
	// A budget that ran out is never kept.
	c := Open(dir, true, nil, os.Stderr)
	defer c.Close()
	w := c.Begin()
	overlay.Volatile("render budget")
	c.Store([]byte("volatile"), w, []byte("result"))
	if _, ok := c.Lookup([]byte("volatile")); ok {
		t.Error("a result computed with a volatile input was kept")
	}
}

// The reads of a window taken before the unit's own (a build made during
// discovery) are inputs of its entry: changing what they read is a miss.
func TestEarlierReadsAreInputs(t *testing.T) {
	dir, file := t.TempDir(), filepath.Join(t.TempDir(), "patch.yaml")
	write := func(text string) {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	c := Open(dir, true, nil, os.Stderr)
	defer c.Close()
	early := c.Begin()
	if _, err := overlay.ReadFile(file); err != nil {
		t.Fatal(err)
	}
	reads := early.Take()
	if c.Recording() {
		t.Fatal("still recording after Take")
	}
	c.Store([]byte("unit"), c.Begin(), []byte("result"), reads)
	if _, ok := c.Lookup([]byte("unit")); !ok {
		t.Fatal("no hit with the earlier read unchanged")
	}
	write("two")
	c2 := Open(dir, true, nil, os.Stderr)
	defer c2.Close()
	if _, ok := c2.Lookup([]byte("unit")); ok {
		t.Error("hit after the file read before the unit's window changed")
	}
}
