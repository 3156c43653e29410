// Package gcstart sets the collector's target while the program's packages
// initialize. Their init functions (Kubernetes' API schemes, the JSON
// Schema meta-schemas Helm links, CEL's declarations) allocate about 12 MB
// before main runs; under the runtime's default target that is three
// collections, a third of the start-up time of a run on one small file.
//
// Go initializes a package as soon as its imports are, in import path
// order, so a package that imports only the runtime's own runs before the
// heavy ones: keep it that way (TestStartsBeforeHeavyInits).
package gcstart

import (
	"os"
	"runtime/debug"
)

// Percent is the garbage collector target a run starts with: a lint run
// allocates many short-lived objects and exits, so collecting less often
// saves a third of its CPU time on small inputs. The command line then
// adjusts it to the live heap (cli.tuneGC).
const Percent = 400

func init() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
}
