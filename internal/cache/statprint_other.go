//go:build !linux

package cache

import (
	"io/fs"
	"strconv"
	"time"
)

// statPrint is a stat's fingerprint, and its modification time: without
// the change time, a modification time set back to what it was in the
// same instant as the change goes unseen (Linux is the platform checked).
func statPrint(fi fs.FileInfo) (string, time.Time) {
	m := fi.ModTime()
	return fileIdentity(fi) + " " + fi.Mode().String() + " " + strconv.FormatInt(fi.Size(), 10) + " " +
		strconv.FormatInt(m.UnixNano(), 10), m
}
