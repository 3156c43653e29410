package cache

import (
	"io/fs"
	"strconv"
	"syscall"
	"time"
)

// statPrint is a stat's fingerprint, and the newest of its modification
// and change times.
func statPrint(fi fs.FileInfo) (string, time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}
	}
	return sysPrint(st)
}

// FdPrint is the fingerprint of an open file or folder, the same as a
// stat of its path gives, and the newest of its times: a walker holding
// the descriptor takes it without the path being looked up again (the
// walk of a monorepo opens ten thousand). Taken before the descriptor is
// read, it can only be older than what was read: a change in between is a
// mismatch on the next lookup, never a stale hit.
func FdPrint(fd int) (string, time.Time, bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return "", time.Time{}, false
	}
	fp, newest := sysPrint(&st)
	return fp, newest, true
}

func sysPrint(st *syscall.Stat_t) (string, time.Time) {
	m := time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)) //nolint:unconvert // int32 on some architectures
	c := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)) //nolint:unconvert // int32 on some architectures
	b := make([]byte, 0, 96)
	for _, v := range []uint64{uint64(st.Dev), uint64(st.Ino), uint64(st.Mode), uint64(st.Size), //nolint:unconvert,gosec // widths differ by architecture
		uint64(m.UnixNano()), uint64(c.UnixNano())} { //nolint:gosec // a fingerprint, not arithmetic
		b = strconv.AppendUint(b, v, 36)
		b = append(b, ' ')
	}
	if c.After(m) {
		m = c
	}
	return string(b), m
}
