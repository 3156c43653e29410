//go:build !unix

package helm

import "time"

// osProcessCPU is unknown here: the render budget is wall-clock time alone.
func osProcessCPU() (time.Duration, bool) { return 0, false }
