//go:build devtools

// Command release builds webhooklint's release artifacts: static,
// reproducible, version-stamped binaries for every supported platform,
// their archives (tar.gz; zip for Windows) and a SHA-256 checksums file.
//
//	go run -tags devtools ./hack/release -version v1.2.3 -out dist
//	go run -tags devtools ./hack/release -version v1.2.3 -targets linux/amd64 -out dist
//
// Reproducible means: the same commit built with the same Go toolchain
// gives byte-identical binaries and archives on any machine, whatever its
// paths, user, clock or environment (-trimpath, no VCS stamp, fixed
// GOAMD64/GOARM64, archive entries dated at the commit time and owned by
// root). Go's build ID is kept: it is a hash of the build's inputs and
// output, the same on every machine once -trimpath leaves the paths out,
// and the cache kept between runs names the binary by it (without one, a
// run with an empty cache folder hashes the whole 70 MB executable). The release workflow, the container image and the GitHub
// Action's build fallback all build through this program, so their
// binaries are built the same way.
//
// It builds only with -tags devtools: `go install ./...`, which pre-commit's
// golang hook runs, then installs webhooklint and webhookvet alone.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Targets are the platforms a release ships binaries for.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// versionVar is the variable -X stamps; `webhooklint --version` prints it.
const versionVar = "github.com/webhooklint/webhooklint/cli.Version"

// Target is a GOOS/GOARCH pair.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// exe is the binary's file name on the target.
func (t Target) exe() string {
	if t.OS == "windows" {
		return "webhooklint.exe"
	}
	return "webhooklint"
}

// ArchiveName is the release asset holding the target's binary; the
// GitHub Action computes the same name.
func ArchiveName(version string, t Target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("webhooklint_%s_%s_%s%s", strings.TrimPrefix(version, "v"), t.OS, t.Arch, ext)
}

func main() {
	version := flag.String("version", envOr("VERSION", "0.0.0-snapshot"), "version to stamp (a tag such as v1.2.3)")
	out := flag.String("out", "dist", "folder for the artifacts (emptied first)")
	targets := flag.String("targets", "all", "comma-separated GOOS/GOARCH list, \"all\", or \"host\"")
	binariesOnly := flag.Bool("binaries-only", false, "build the binaries without archives and checksums")
	flag.Parse()
	if err := run(*version, *out, *targets, *binariesOnly); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(version, out, targetList string, binariesOnly bool) error {
	targets, err := parseTargets(targetList)
	if err != nil {
		return err
	}
	if version == "" || strings.ContainsAny(version, " \t\n/\\") {
		return fmt.Errorf("-version %q: want a tag such as v1.2.3", version)
	}
	epoch, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	var assets []string
	for _, t := range targets {
		bin := filepath.Join(out, "bin", t.OS+"_"+t.Arch, t.exe())
		start := time.Now()
		if err := build(version, t, bin); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%-14s binary %6.1f MB", t, float64(fi.Size())/1e6)
		if !binariesOnly {
			name := ArchiveName(version, t)
			if err := writeArchive(filepath.Join(out, name), t, bin, epoch); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			afi, err := os.Stat(filepath.Join(out, name))
			if err != nil {
				return err
			}
			assets = append(assets, name)
			line += fmt.Sprintf("  %s %6.1f MB", name, float64(afi.Size())/1e6)
		}
		fmt.Printf("%s  (%.0fs)\n", line, time.Since(start).Seconds())
	}
	if binariesOnly {
		return nil
	}
	sums, err := checksums(out, assets)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "checksums.txt"), sums, 0o644); err != nil {
		return err
	}
	fmt.Print(string(sums))
	return nil
}

func parseTargets(s string) ([]Target, error) {
	switch s {
	case "all", "":
		return Targets, nil
	case "host":
		return []Target{{goEnv("GOOS"), goEnv("GOARCH")}}, nil
	}
	var out []Target
	for _, part := range strings.Split(s, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(part), "/")
		t := Target{goos, goarch}
		if !ok || !slices.Contains(Targets, t) {
			return nil, fmt.Errorf("-targets: %q is not one of %v", part, Targets)
		}
		out = append(out, t)
	}
	return out, nil
}

func goEnv(name string) string {
	b, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// sourceDateEpoch is the time archive entries carry: SOURCE_DATE_EPOCH
// when set (the reproducible-builds.org convention), else the commit's
// time, else the Unix epoch (a tree without git history).
func sourceDateEpoch() (time.Time, error) {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %w", s, err)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	if b, err := exec.Command("git", "log", "-1", "--format=%ct").Output(); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			return time.Unix(n, 0).UTC(), nil
		}
	}
	return time.Unix(0, 0).UTC(), nil
}

// BuildFlags are the go build arguments of a release binary.
func BuildFlags(version string) []string {
	return []string{
		"-trimpath", "-buildvcs=false",
		"-ldflags=-s -w -X " + versionVar + "=" + version,
	}
}

// build compiles one static binary. The environment is pinned where it
// changes the output: no cgo, the baseline instruction sets, and no
// GOFLAGS from the caller's shell.
func build(version string, t Target, bin string) error {
	args := append([]string{"build"}, BuildFlags(version)...)
	args = append(args, "-o", bin, "./cmd/webhooklint")
	cmd := exec.Command("go", args...)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{"CGO_ENABLED", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOFLAGS", "GOEXPERIMENT"}, k)
	})
	cmd.Env = append(env, "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=-mod=readonly")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// archiveFile is one entry of an archive.
type archiveFile struct {
	name string
	mode int64
	data []byte
}

// writeArchive packs the binary with the README into a tar.gz (zip for
// Windows), every entry dated epoch and owned by root, so the archive's
// bytes depend only on its contents.
func writeArchive(path string, t Target, bin string, epoch time.Time) error {
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	files := []archiveFile{{name: t.exe(), mode: 0o755, data: data}}
	if readme, err := os.ReadFile("README.md"); err == nil {
		files = append(files, archiveFile{name: "README.md", mode: 0o644, data: readme})
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var buf bytes.Buffer
	if t.OS == "windows" {
		err = writeZip(&buf, files, epoch)
	} else {
		err = writeTarGz(&buf, files, epoch)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, files []archiveFile, epoch time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	// No name and no time in the gzip header.
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data)),
			ModTime: epoch, Format: tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, files []archiveFile, epoch time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		hdr := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: epoch}
		hdr.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// checksums renders checksums.txt as sha256sum does ("HEX  NAME"), sorted
// by name, so `sha256sum -c checksums.txt` verifies a download.
func checksums(dir string, names []string) ([]byte, error) {
	names = slices.Sorted(slices.Values(names))
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return []byte(b.String()), nil
}
