//go:build devtools && unix && !linux

package main

import "syscall"

// maxRSSKiB is the peak RSS of a child: the BSDs and macOS count ru_maxrss
// in bytes.
func maxRSSKiB(ru *syscall.Rusage) int64 { return int64(ru.Maxrss) / 1024 }
