package cli

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/internal/cache"
	"github.com/webhooklint/webhooklint/internal/cliflag"
)

// cacheFlags say where the results kept between runs are (docs/cache.md).
type cacheFlags struct {
	dir string
	off bool
}

func (c *cacheFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.dir, "cache-dir", "", "keep each unit's findings between runs in `DIR` (default: $"+cache.EnvVar+", else webhooklint in the user's cache folder)")
	cliflag.File(fs, "cache-dir")
	fs.BoolVar(&c.off, "no-cache", false, "neither use nor keep findings between runs (also "+cache.EnvVar+"=off)")
}

// statsEnv, when set, makes a run print its cache hits and misses on
// stderr (tests, and a user wondering whether the cache works).
const statsEnv = "WEBHOOKLINT_CACHE_STATS"

// resultNeutral are the flags that change how findings are printed or
// what the exit status is, not what they are: a run that differs only in
// them uses the same entries.
var resultNeutral = map[string]bool{
	"format": true, "output": true, "color": true, "jobs": true, "fail-on": true,
	"cache-dir": true, "no-cache": true,
}

// open opens the run's cache, or returns nil when it is off or cannot be
// used. Its key holds all a unit's findings depend on besides the unit:
// the working folder (messages name folders relative to it), the
// configuration file's path and text, and every flag given except those
// above and the paths (which choose units, each keyed by itself).
func (c *cacheFlags) open(rc *runContext, fs *pflag.FlagSet) *cache.Cache {
	if c.off {
		return nil
	}
	dir, given, off := cache.Location(c.dir)
	if off {
		return nil
	}
	h := sha256.New()
	wd, _ := os.Getwd()
	fmt.Fprintf(h, "cwd %q\n", wd)
	if rc.configFile != "" {
		abs, _ := filepath.Abs(rc.configFile)
		fmt.Fprintf(h, "config %q %q\n", abs, rc.configText)
	}
	fs.Visit(func(f *pflag.Flag) {
		if !resultNeutral[f.Name] {
			v := f.Value.String()
			if r, ok := f.Value.(*keptValues); ok {
				v = fmt.Sprintf("%q", r.values)
			}
			fmt.Fprintf(h, "flag %q %q\n", f.Name, v)
		}
	})
	return cache.Open(dir, given, h.Sum(nil), rc.stderr)
}

// printStats says how the cache did, when asked with statsEnv.
func printStats(c *cache.Cache, rc *runContext) {
	if c == nil || os.Getenv(statsEnv) == "" {
		return
	}
	hits, misses := c.Stats()
	fmt.Fprintf(rc.stderr, "webhooklint: cache: %d hits, %d misses\n", hits, misses)
	if hits, misses := c.InputStats(); hits+misses > 0 {
		fmt.Fprintf(rc.stderr, "webhooklint: cache: discovery index: %d hits, %d misses\n", hits, misses)
	}
}

// keptValues keeps what a flag defined with FlagSet.Func was given, which
// its Value's String does not say.
type keptValues struct {
	pflag.Value
	values []string
}

func (k *keptValues) Set(v string) error {
	k.values = append(k.values, v)
	return k.Value.Set(v)
}

// keepFuncValues makes every Func flag of fs keep its values, for the
// cache's key.
func keepFuncValues(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "func" {
			f.Value = &keptValues{Value: f.Value}
		}
	})
}
