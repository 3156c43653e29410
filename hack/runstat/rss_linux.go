//go:build devtools

package main

import "syscall"

// maxRSSKiB is the peak RSS of a child: Linux counts ru_maxrss in KiB.
func maxRSSKiB(ru *syscall.Rusage) int64 { return ru.Maxrss }
