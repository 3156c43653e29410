// Package lazy makes a package's values on first use rather than when the
// program starts: every run pays for every linked package's initialisation
// whether it needs the value or not, and a run whose units all come from
// the cache, or `--version`, needs none of the expressions that read a
// build's errors or a template's text.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call, and
// returns that same expression on every call.
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
