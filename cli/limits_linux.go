package cli

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// systemLimits are the memory bounds of this process on Linux: physical
// memory, the cgroup v2 memory.max, and half of RLIMIT_AS.
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
		out = append(out, int64(rl.Cur/2))
	}
	return out
}
