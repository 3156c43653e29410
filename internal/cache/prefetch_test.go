package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/internal/testkit"
)

// A prefetched check is the lookup's: the lookup of its entry in its
// folder takes it and answers as it would have alone (a hit on unchanged
// inputs, a miss on any changed before the check, the settled
// fingerprints written back); a lookup of another entry, or in another
// folder, leaves it and checks on its own.
func TestPrefetchIsTheLookupsCheck(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 50 * time.Millisecond
	if toolID() == "" {
		t.Skip("this test binary has no Go build ID")
	}
	defer pending.Store(nil)
	dir, other, src := t.TempDir(), t.TempDir(), t.TempDir()
	file := filepath.Join(src, "kustomization.yaml")
	write := func(p, text string) { testkit.WriteFile(t, p, text) }
	// Enough inputs for several chunks, so that both goroutines check some.
	inputs := []Input{{Op: overlay.OpRead, Path: file}}
	for i := range 3 * checkChunk {
		sub := filepath.Join(src, "d", string(rune('a'+i%26)), filepath.Base(t.Name())+string(rune('0'+i/26%10))+string(rune('0'+i/260)))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Op: overlay.OpEntries, Path: sub})
	}
	write(file, "resources: [a.yaml]\n")
	key := []byte("discovery index\x00" + src)
	store := func() {
		t.Helper()
		for i := range inputs {
			inputs[i].Sig = overlay.Sign(inputs[i].Op, inputs[i].Path)
		}
		c := Open(dir, true, nil, os.Stderr)
		defer c.Close()
		c.StoreInputs(key, time.Now(), inputs, []byte("the index"))
	}
	// lookup prefetches key in folder from, then looks it up in dir.
	lookup := func(from string, prefetchKey []byte) (hit, taken bool) {
		t.Helper()
		Prefetch(from, prefetchKey)
		c := Open(dir, true, []byte("any configuration"), os.Stderr)
		defer c.Close()
		got, ok := c.LookupInputs(key)
		if ok && string(got) != "the index" {
			t.Fatalf("result %q", got)
		}
		taken = pending.Load() == nil
		pending.Store(nil)
		return ok, taken
	}
	store()
	time.Sleep(2 * racyWindow)
	if hit, taken := lookup(dir, key); !hit || !taken {
		t.Fatalf("prefetched, unchanged: hit %v, taken %v; want both", hit, taken)
	}
	if n := fingerprints(t, dir, key); n != len(inputs) {
		t.Errorf("%d fingerprints written back after a prefetched check, want %d", n, len(inputs))
	}
	if hit, taken := lookup(dir, key); !hit || !taken {
		t.Fatalf("prefetched, checked by stat: hit %v, taken %v; want both", hit, taken)
	}

	// Same size and modification time, other content: the prefetched
	// check sees it as the lookup's own does.
	fi, _ := os.Stat(file)
	write(file, "resources: [b.yaml]\n")
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if hit, taken := lookup(dir, key); hit || !taken {
		t.Errorf("prefetched after an edit in place: hit %v, taken %v; want a miss, taken", hit, taken)
	}
	write(file, "resources: [a.yaml]\n")

	// A folder listed gains an entry.
	write(filepath.Join(inputs[len(inputs)-1].Path, "kustomization.yaml"), "")
	if hit, _ := lookup(dir, key); hit {
		t.Error("prefetched after a file was added to a folder listed: hit")
	}
	if err := os.Remove(filepath.Join(inputs[len(inputs)-1].Path, "kustomization.yaml")); err != nil {
		t.Fatal(err)
	}

	// Another entry, another folder: not taken, and the lookup is its own.
	if hit, taken := lookup(dir, []byte("discovery index\x00/elsewhere")); !hit || taken {
		t.Errorf("another entry prefetched: hit %v, taken %v; want a hit, not taken", hit, taken)
	}
	if hit, taken := lookup(other, key); !hit || taken {
		t.Errorf("prefetched in another folder: hit %v, taken %v; want a hit, not taken", hit, taken)
	}
	// Nothing stored under that name: the lookup reads it again itself.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if hit, taken := lookup(dir, key); hit || !taken {
		t.Errorf("no entry: hit %v, taken %v; want a miss, taken", hit, taken)
	}
}
