// Package indexstart starts the check of the discovery index kept in the
// cache (cache.Prefetch) while the binary's other packages initialize: a
// run that names one changed file of a monorepo (pre-commit, the Action)
// otherwise spends its first 15 ms on one CPU in package inits and only
// then stats the index's ten thousand inputs.
//
// The command line has not been parsed yet, so this guesses from it, as
// cheaply as it can, which index the run will look up: that of the
// repository holding the first path named (the working folder when none
// is), in the cache folder --cache-dir or the environment names. A wrong
// guess costs the work of a CPU that would have idled, never a result:
// the lookup uses the prefetched check only for the very entry it asks
// for (cache.LookupInputs).
//
// Go initializes a package as soon as its imports are, in import path
// order, so this one, importing only the standard library and the cache,
// runs before the heavy ones, as internal/gcstart does: keep it that way.
package indexstart

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/internal/cache"
	_ "github.com/webhooklint/webhooklint/internal/gcstart" // the collector's target, before the index is read
)

func init() {
	if dir, root, ok := guess(os.Args[1:]); ok {
		cache.Prefetch(dir, cache.IndexKey(root))
	}
}

// commands are the first arguments that are not a lint of paths; the
// flags that print something and exit need no index either.
var (
	commands = []string{"cluster", "simulate", "server", "help", "completion"}
	exits    = []string{"--version", "--help", "-h", "--list-rules", "--explain", "--init-config"}
)

// guess returns the cache folder and the scope root a lint run of args
// will most likely look the discovery index up in: the repository (the
// folder holding .git) above the first path of args that exists, else
// above the working folder.
func guess(args []string) (dir, root string, ok bool) {
	if len(args) > 0 && slices.Contains(commands, args[0]) {
		return "", "", false
	}
	dirFlag, first := "", ""
	flags := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case flags && a == "--":
			flags = false
		case flags && a == "--no-cache":
			return "", "", false
		case flags && slices.Contains(exits, a), flags && strings.HasPrefix(a, "--explain="):
			return "", "", false
		case flags && a == "--cache-dir" && i+1 < len(args):
			dirFlag = args[i+1]
			i++
		case flags && strings.HasPrefix(a, "--cache-dir="):
			dirFlag = strings.TrimPrefix(a, "--cache-dir=")
		case flags && strings.HasPrefix(a, "-") && a != "-":
			// A flag; its value, if it takes one, is the next argument,
			// which is taken for a path only if it exists.
		case first == "" && a != "-":
			if _, err := os.Stat(a); err == nil {
				first = a
			}
		}
	}
	dir, _, off := cache.Location(dirFlag)
	if off {
		return "", "", false
	}
	if first == "" {
		first = "."
	}
	start, err := filepath.Abs(first)
	if err != nil {
		return "", "", false
	}
	if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
		start = filepath.Dir(start)
	}
	for d := start; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return dir, d, true
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}
