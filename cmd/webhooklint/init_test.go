package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The collector's start-up target only pays if it is set before the
// package inits that allocate most, and the prefetch of the discovery
// index only if it starts while they run: one heavy import added to
// gcstart, or to indexstart and the cache, would move them after.
func TestStartsBeforeHeavyInits(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "webhooklint")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(withoutGOGC(os.Environ()), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("webhooklint --version: %v\n%s", err, out)
	}
	// init PACKAGE @T ms, C ms clock, B bytes, A allocs
	line := regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes`)
	const heavy = 256 << 10
	for _, early := range []string{"github.com/webhooklint/webhooklint/internal/gcstart", "github.com/webhooklint/webhooklint/internal/indexstart"} {
		seen := false
		for _, m := range line.FindAllStringSubmatch(string(out), -1) {
			if m[1] == early {
				seen = true
				break
			}
			if b, _ := strconv.Atoi(m[2]); b >= heavy {
				t.Fatalf("%s allocates %s bytes in its init before %s", m[1], m[2], early)
			}
		}
		if !seen {
			t.Fatalf("no init trace of %s in:\n%s", early, out)
		}
	}
}

func withoutGOGC(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "GOGC=") {
			out = append(out, e)
		}
	}
	return out
}
