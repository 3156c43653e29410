//go:build unix

package helm

import (
	"syscall"
	"time"
)

// osProcessCPU is the CPU time the process has used (user and system).
func osProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
