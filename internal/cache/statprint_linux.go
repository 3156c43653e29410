package cache

import (
	"strconv"
	"syscall"
	"time"
)

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
	b, newest := appendPrint(make([]byte, 0, 96), &st)
	return string(b), newest, true
}

// pathPrint is path's fingerprint, following links, and the newest of its
// times.
func pathPrint(path string) (string, time.Time, bool) {
	b, newest, ok := appendPathPrint(make([]byte, 0, 96), path)
	return string(b), newest, ok
}

// appendPathPrint appends path's fingerprint to b: a lookup compares ten
// thousand of them with those stored, and most match, so they are not
// made strings (nor os.FileInfo values) to be compared.
func appendPathPrint(b []byte, path string) ([]byte, time.Time, bool) {
	var st syscall.Stat_t
	var err error = syscall.EINTR
	for err == syscall.EINTR {
		err = syscall.Stat(path, &st)
	}
	if err != nil {
		return b, time.Time{}, false
	}
	b, newest := appendPrint(b, &st)
	return b, newest, true
}

// appendPrint appends a stat's fingerprint to b, and returns the newest of
// its modification and change times.
func appendPrint(b []byte, st *syscall.Stat_t) ([]byte, time.Time) {
	m := time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)) //nolint:unconvert // int32 on some architectures
	c := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)) //nolint:unconvert // int32 on some architectures

	for _, v := range []uint64{uint64(st.Dev), uint64(st.Ino), uint64(st.Mode), uint64(st.Size), //nolint:unconvert,gosec // widths differ by architecture
		uint64(m.UnixNano()), uint64(c.UnixNano())} { //nolint:gosec // a fingerprint, not arithmetic
		b = strconv.AppendUint(b, v, 36)
		b = append(b, ' ')
	}
	if c.After(m) {
		m = c
	}
	return b, m
}
