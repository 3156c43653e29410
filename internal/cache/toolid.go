package cache

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

// toolID names the running binary's code: entries written by another
// build of webhooklint are another build's results. It is Go's build ID,
// which changes with any change to what was compiled (go build, go run
// and go test binaries, and the release build, all have one). A binary
// linked without one (-ldflags=-buildid=) is named by the hash of its
// file, computed once per file and remembered in the cache folder under
// the file's identity (path, size, times, inode): for a 70 MB binary, a
// quarter of a cold run's CPU.
var toolID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if id := goBuildID(exe); id != "" {
		return "buildid " + id
	}
	return ""
})

// goBuildID reads the Go build ID of the executable at path: ELF keeps it
// in a note, the other formats at the start of the text, in the first
// 32 KiB of the file.
func goBuildID(path string) string {
	if f, err := elf.Open(path); err == nil {
		defer func() { _ = f.Close() }()
		if s := f.Section(".note.go.buildid"); s != nil {
			if data, err := s.Data(); err == nil && len(data) > 16 {
				nameSize := binary.LittleEndian.Uint32(data[0:])
				descSize := binary.LittleEndian.Uint32(data[4:])
				start := 12 + (int(nameSize)+3)&^3
				if start+int(descSize) <= len(data) && bytes.HasPrefix(data[12:], []byte("Go\x00")) {
					return string(data[start : start+int(descSize)])
				}
			}
		}
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	const prefix = "\xff Go build ID: \""
	i := bytes.Index(head, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := head[i+len(prefix):]
	if j := bytes.IndexByte(rest, '"'); j > 0 {
		return string(rest[:j])
	}
	return ""
}

// exeHash is the SHA-256 of the executable's file, remembered in dir
// under the file's identity so that only a new binary pays for reading
// itself.
func exeHash(dir string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	ident := sha256.Sum256([]byte(exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" +
		strconv.FormatInt(fi.ModTime().UnixNano(), 10) + "\x00" + fileIdentity(fi) + "\x00" + runtime.GOOS))
	memo := filepath.Join(dir, "exe-"+hex.EncodeToString(ident[:16]))
	if data, err := os.ReadFile(memo); err == nil && len(data) == 64 {
		return string(data)
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	sum := hex.EncodeToString(h.Sum(nil))
	_ = writeAtomic(memo, []byte(sum)) // only a shortcut: a failure costs the next run a hash
	return sum
}
