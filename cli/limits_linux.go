package cli

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// systemLimits are the memory bounds of this process on Linux: physical
// memory, the cgroup v2 memory.max, and for RLIMIT_AS a quarter of the
// address space not yet reserved: the runtime reserves over a gigabyte
// at start, keeps the address space of freed heap, and a growing buffer
// briefly holds its old and new copies.
func systemLimits() []int64 {
	var out []int64
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		out = append(out, int64(si.Totalram)*int64(si.Unit))
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	var rl syscall.Rlimit
	// RLIM_INFINITY is all ones, far above 1<<62.
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur < 1<<62 {
		if free := int64(rl.Cur) - reserved(); free > 0 {
			out = append(out, free/4)
		}
	}
	return out
}

// reserved is the address space the process holds now (VmSize).
func reserved() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
