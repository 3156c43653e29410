package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Inputs listed by the caller are checked by stat while they are settled
// and by content otherwise: a change of content at the same size and
// modification time, a file added to a folder listed, and an editor's
// buffer are each seen; an entry found valid is written again with the
// fingerprints of inputs settled since.
func TestInputsCheckedByStat(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 50 * time.Millisecond
	dir, src := t.TempDir(), t.TempDir()
	file := filepath.Join(src, "kustomization.yaml")
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(file, "resources: [a.yaml]\n")
	key := []byte("index")
	store := func() {
		t.Helper()
		c := Open(dir, true, nil, os.Stderr)
		defer c.Close()
		began := time.Now()
		c.StoreInputs(key, began, []Input{
			{Op: overlay.OpRead, Path: file, Sig: overlay.Sign(overlay.OpRead, file)},
			{Op: overlay.OpEntries, Path: src, Sig: overlay.Sign(overlay.OpEntries, src)},
		}, []byte("the index"))
	}
	lookup := func() bool {
		t.Helper()
		c := Open(dir, true, nil, os.Stderr)
		defer c.Close()
		got, ok := c.LookupInputs(key)
		if ok && string(got) != "the index" {
			t.Fatalf("result %q", got)
		}
		return ok
	}
	stats := func() int { t.Helper(); return fingerprints(t, dir, key) }

	// Just written: racy, so no fingerprint is kept.
	store()
	if n := stats(); n != 0 {
		t.Errorf("%d fingerprints of inputs changed during the run, want 0", n)
	}
	if !lookup() {
		t.Fatal("miss on unchanged inputs")
	}
	time.Sleep(2 * racyWindow)
	if !lookup() {
		t.Fatal("miss on unchanged inputs")
	}
	if n := stats(); n != 2 {
		t.Errorf("%d fingerprints once settled, want 2", n)
	}
	if !lookup() {
		t.Fatal("miss on unchanged inputs, checked by stat")
	}

	// Same size and modification time, other content: the change time
	// tells.
	fi, _ := os.Stat(file)
	write(file, "resources: [b.yaml]\n")
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if lookup() {
		t.Error("hit after the content changed")
	}
	write(file, "resources: [a.yaml]\n")
	if !lookup() {
		t.Error("miss after the content came back")
	}

	// A file added to the folder.
	time.Sleep(2 * racyWindow)
	store()
	time.Sleep(2 * racyWindow)
	lookup()
	if n := stats(); n != 2 {
		t.Fatalf("%d fingerprints, want 2", n)
	}
	write(filepath.Join(src, "b.yaml"), "")
	if lookup() {
		t.Error("hit after a file was added to a folder listed")
	}
	if err := os.Remove(filepath.Join(src, "b.yaml")); err != nil {
		t.Fatal(err)
	}

	// An editor's buffer stands in for the file: its disk stat says
	// nothing of it.
	if !lookup() {
		t.Fatal("miss on inputs as they were")
	}
	overlay.Set(file, []byte("resources: [c.yaml]\n"))
	defer overlay.Delete(file)
	if lookup() {
		t.Error("hit with a buffer of other content open on an input")
	}
}

// A memory store keeps entries between runs within its bound, dropping
// the entries used least recently.
func TestMemoryStore(t *testing.T) {
	m := NewMemory(3 << 10)
	big := make([]byte, 1<<10)
	for i := range 5 {
		c := OpenMemory(m, []byte("config"))
		w := c.Begin()
		c.Store([]byte{byte(i)}, w, big)
		c.Close()
	}
	if m.Size() > 3<<10 {
		t.Errorf("%d bytes held, bound 3 KiB", m.Size())
	}
	c := OpenMemory(m, []byte("config"))
	defer c.Close()
	if _, ok := c.Lookup([]byte{4}); !ok {
		t.Error("the newest entry was dropped")
	}
	if _, ok := c.Lookup([]byte{0}); ok {
		t.Error("the oldest entry was kept past the bound")
	}
	if other := OpenMemory(m, []byte("other config")); other != nil {
		defer other.Close()
		if _, ok := other.Lookup([]byte{4}); ok {
			t.Error("hit with another configuration")
		}
	}
}

// The entries LookupInputs checks are the tree's, not the run's: another
// configuration finds the same one.
func TestInputsEntriesIgnoreTheConfiguration(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	key := []byte("index")
	c := Open(dir, true, []byte("--kube-version 1.36"), os.Stderr)
	c.StoreInputs(key, time.Now(), []Input{{Op: overlay.OpEntries, Path: src, Sig: overlay.Sign(overlay.OpEntries, src)}}, []byte("the index"))
	c.Close()
	c = Open(dir, true, []byte("--kube-version 1.37"), os.Stderr)
	defer c.Close()
	if _, ok := c.LookupInputs(key); !ok {
		t.Error("miss with another configuration")
	}
}

// fingerprints counts the inputs of key's entry in the cache folder dir
// (LookupInputs's) that have a stat fingerprint.
func fingerprints(t *testing.T, dir string, key []byte) (n int) {
	t.Helper()
	c := Open(dir, true, nil, os.Stderr)
	defer c.Close()
	e, ok := c.read(entryName(c.inputsSalt, key))
	if !ok {
		t.Fatal("no entry")
	}
	for _, in := range e.Inputs {
		if in.Stat != "" {
			n++
		}
	}
	return n
}
