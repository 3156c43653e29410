//go:build unix

package cache

import (
	"fmt"
	"io/fs"
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
	return fmt.Sprint(st.Ino, "/", st.Dev) // their types differ by platform
}
