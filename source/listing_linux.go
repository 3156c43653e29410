package source

import (
	"encoding/binary"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/webhooklint/webhooklint/internal/cache"
)

// On Linux a folder is listed, and a small file in it read, with the
// system calls themselves: os.Open also registers the descriptor with the
// poller and os.ReadFile stats the file first, and a file opened relative
// to its open folder is not looked up from the root again. A monorepo has
// thousands of folders and kustomization files.

// folder is an open folder and its listing, and its fingerprint when
// asked for.
type folder struct {
	fd      int
	entries []folderEntry
	print   statPrint
}

// buffers hold one listing or one file while it is read.
var buffers = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

func openFolder(dir string, printed bool) (*folder, bool) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := &folder{fd: fd}
	if printed {
		f.print = fdPrint(fd)
	}
	pb := buffers.Get().(*[]byte)
	defer buffers.Put(pb)
	buf := *pb
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return f, true
		}
		// linux_dirent64: inode (8), offset (8), record length (2), type (1), name.
		// The names share one string: most are only compared, and a
		// string of its own for each is most of a listing's allocations.
		names := string(buf[:n])
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return f, true
			}
			at := n - len(b) + 19
			typ, name := b[18], names[at:at+reclen-19]
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if name != "." && name != ".." {
				f.entries = append(f.entries, folderEntry{name: name, mode: direntMode(dir, name, typ)})
			}
		}
	}
}

func direntMode(dir, name string, typ byte) os.FileMode {
	switch typ {
	case syscall.DT_DIR:
		return os.ModeDir
	case syscall.DT_REG:
		return 0
	case syscall.DT_LNK:
		return os.ModeSymlink
	case syscall.DT_UNKNOWN:
		if fi, err := os.Lstat(dir + "/" + name); err == nil {
			return fi.Mode().Type()
		}
	}
	return os.ModeIrregular
}

func (f *folder) close() { _ = syscall.Close(f.fd) }

// read reads a small file of the folder, into a slice of its own size,
// and its fingerprint before it, when printed.
func (f *folder) read(name string, printed bool) (_ []byte, p statPrint, _ error) {
	fd, err := syscall.Openat(f.fd, name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, p, err
	}
	defer func() { _ = syscall.Close(fd) }()
	if printed {
		p = fdPrint(fd)
	}
	pb := buffers.Get().(*[]byte)
	defer buffers.Put(pb)
	buf := (*pb)[:0]
	defer func() { *pb = buf[:cap(buf)] }()
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, p, err
		}
		if n == 0 {
			return append([]byte(nil), buf...), p, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// fdPrint is an open descriptor's fingerprint for the cache: a stat of
// the descriptor, where the cache would look the path up again.
func fdPrint(fd int) statPrint {
	fp, newest, ok := cache.FdPrint(fd)
	if !ok {
		return statPrint{}
	}
	return statPrint{fp, newest}
}
