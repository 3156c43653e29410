//go:build !linux

package cache

import (
	"io/fs"
	"os"
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

// pathPrint is path's fingerprint, following links, and the newest of its
// times.
func pathPrint(path string) (string, time.Time, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", time.Time{}, false
	}
	fp, newest := statPrint(fi)
	return fp, newest, fp != ""
}

// appendPathPrint appends path's fingerprint to b, as pathPrint gives it.
func appendPathPrint(b []byte, path string) ([]byte, time.Time, bool) {
	fp, newest, ok := pathPrint(path)
	return append(b, fp...), newest, ok
}
