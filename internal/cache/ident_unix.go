//go:build unix

package cache

import (
	"io/fs"
	"strconv"
	"syscall"
)

// fileIdentity is what tells a replaced file from the one before: its
// inode, which renaming another into its place (as go build and
// go install do) changes, whatever its modification time says.
func fileIdentity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(st.Ino), 10) + "/" + strconv.FormatInt(int64(st.Dev), 10)
}
