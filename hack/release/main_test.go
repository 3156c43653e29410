//go:build devtools

package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Archives depend only on their contents and the epoch: not on the
// machine's clock, the files' times or owners.
func TestArchivesAreReproducible(t *testing.T) {
	epoch := time.Unix(1700000000, 0).UTC()
	for _, tgt := range []Target{{"linux", "arm64"}, {"windows", "amd64"}} {
		dir := t.TempDir()
		bin := filepath.Join(dir, tgt.exe())
		if err := os.WriteFile(bin, []byte("#!binary"), 0o700); err != nil {
			t.Fatal(err)
		}
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if err := writeArchive(a, tgt, bin, epoch); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(bin, time.Now(), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := writeArchive(b, tgt, bin, epoch); err != nil {
			t.Fatal(err)
		}
		ab, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		if !bytes.Equal(ab, bb) {
			t.Errorf("%s: two archives of the same file differ", tgt)
		}
		checkEntry(t, tgt, ab, epoch)
	}
}

// checkEntry checks the binary's entry: name, executable mode, epoch.
func checkEntry(t *testing.T, tgt Target, archive []byte, epoch time.Time) {
	t.Helper()
	if tgt.OS == "windows" {
		zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
		if err != nil {
			t.Fatal(err)
		}
		f := zr.File[0]
		if f.Name != "webhooklint.exe" || !f.Modified.Equal(epoch) || f.Mode().Perm() != 0o755 {
			t.Errorf("zip entry %s %v %v", f.Name, f.Modified, f.Mode())
		}
		return
	}
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header carries name %q, time %v", gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	h, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(tr)
	if h.Name != "webhooklint" || h.Mode != 0o755 || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || !h.ModTime.Equal(epoch) || string(data) != "#!binary" {
		t.Errorf("tar entry %+v", h)
	}
}

func TestChecksumsFileIsSha256sumFormat(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"b.zip": "b", "a.tar.gz": "a"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := checksums(dir, []string{"b.zip", "a.tar.gz"})
	if err != nil {
		t.Fatal(err)
	}
	want := "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a.tar.gz\n" +
		"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b.zip\n"
	if string(got) != want {
		t.Errorf("checksums.txt:\n%s\nwant\n%s", got, want)
	}
}

func TestNamesAndFlags(t *testing.T) {
	if got := ArchiveName("v1.2.3", Target{"windows", "arm64"}); got != "webhooklint_1.2.3_windows_arm64.zip" {
		t.Errorf("ArchiveName = %s", got)
	}
	if got := ArchiveName("v1.2.3", Target{"darwin", "amd64"}); got != "webhooklint_1.2.3_darwin_amd64.tar.gz" {
		t.Errorf("ArchiveName = %s", got)
	}
	flags := strings.Join(BuildFlags("v1.2.3"), " ")
	for _, want := range []string{"-trimpath", "-buildvcs=false", "-s -w", "-X github.com/webhooklint/webhooklint/cli.Version=v1.2.3"} {
		if !strings.Contains(flags, want) {
			t.Errorf("build flags %q lack %q", flags, want)
		}
	}
	// The cache names a binary by its build ID (internal/cache.toolID).
	if strings.Contains(flags, "-buildid=") {
		t.Errorf("build flags %q drop Go's build ID", flags)
	}
	if _, err := parseTargets("linux/amd64,plan9/386"); err == nil {
		t.Error("plan9/386 accepted")
	}
	if ts, err := parseTargets("all"); err != nil || len(ts) != 6 {
		t.Errorf("all: %v %v", ts, err)
	}
}
