//go:build !unix

package lsp

import "time"

// cpuTime is unknown here: the CPU metric reads 0.
func cpuTime() time.Duration { return 0 }
