package actiontest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

const releaseVersion = "v0.0.0-test"

// buildEnv turns on the tests that build webhooklint the way the release
// and the action's fallback do (go run -tags devtools ./hack/release: -trimpath,
// CGO_ENABLED=0, GOAMD64=v1). Those flags give every package other cache
// keys than go test's own build, so on a cold machine they compile the
// whole dependency tree a second time, more than go test's default
// timeout allows. .ci/run sets it; the README's go test ./... does not.
const buildEnv = "WEBHOOKLINT_ACTION_BUILD"

func skipWithoutBuild(t *testing.T) {
	t.Helper()
	if os.Getenv(buildEnv) != "1" {
		t.Skipf("builds the whole dependency tree again with the release flags; set %s=1 (.ci/run does)", buildEnv)
	}
}

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseErr  error
)

// releaseArtefacts returns a folder with this machine's release archive
// and checksums.txt, made once per test binary. With buildEnv set it is
// built by hack/release, as the release workflow does; otherwise the
// archive holds this test binary, which runs as webhooklint under that
// name (TestMain), so the action's download path is tested with no
// second build.
func releaseArtefacts(t *testing.T) string {
	t.Helper()
	releaseOnce.Do(func() {
		dir, err := os.MkdirTemp("", "webhooklint-release-")
		if err != nil {
			releaseErr = err
			return
		}
		releaseDir = filepath.Join(dir, "dist")
		if os.Getenv(buildEnv) != "1" {
			releaseErr = packSelf(releaseDir)
			return
		}
		cmd := exec.Command("go", "run", "-tags", "devtools", "./hack/release", "-version", releaseVersion, "-targets", "host", "-out", releaseDir)
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			releaseErr = fmt.Errorf("hack/release: %w\n%s", err, out)
		}
	})
	if releaseErr != nil {
		t.Fatal(releaseErr)
	}
	return releaseDir
}

// packSelf writes dist/<asset> holding this executable as webhooklint, and
// dist/checksums.txt in the release's format.
func packSelf(dist string) error {
	if runtime.GOOS == "windows" {
		return errors.New("the self-packed release is a tar.gz; Windows releases are zip files")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	exe, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: "webhooklint", Mode: 0o755, Size: int64(len(exe)), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(exe); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dist, assetName()), buf.Bytes(), 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(buf.Bytes())
	return os.WriteFile(filepath.Join(dist, "checksums.txt"), []byte(hex.EncodeToString(sum[:])+"  "+assetName()+"\n"), 0o644)
}

func assetName() string {
	return fmt.Sprintf("webhooklint_%s_%s_%s.tar.gz", strings.TrimPrefix(releaseVersion, "v"), runtime.GOOS, runtime.GOARCH)
}

// releaseServer stands in for the releases download URL on loopback: it
// serves dist's files under /<version>/ and 404 for anything else; edit
// may change a file's bytes on the way out. It counts the requests.
type releaseServer struct {
	url      string
	requests atomic.Int32
}

func serveRelease(t *testing.T, dist string, edit func(name string, b []byte) []byte) *releaseServer {
	t.Helper()
	rs := &releaseServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.requests.Add(1)
		name, ok := strings.CutPrefix(r.URL.Path, "/"+releaseVersion+"/")
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if edit != nil {
			b = edit(name, b)
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	rs.url = srv.URL + "/"
	return rs
}

func TestActionDownloadsAndCachesRelease(t *testing.T) {
	skipWithoutTools(t)
	dist := releaseArtefacts(t)
	srv := serveRelease(t, dist, nil)
	ws := workspace(t, map[string]string{"testdata/integrations/bad/webhooks.yaml": "deploy/webhooks.yaml"})
	r := &runner{toolCache: t.TempDir()}
	inputs := map[string]string{"paths": "deploy", "version": releaseVersion, "download-url": srv.url}

	res := r.run(t, repoRoot(t), ws, inputs)
	t.Logf("download path: first finding after %v", res.elapsed)
	for _, s := range res.stepsRun {
		if strings.Contains(s, "Build") || strings.Contains(s, "Go caches") {
			t.Errorf("step %q ran although the release was downloaded", s)
		}
	}
	if !strings.Contains(res.stdout, "webhooklint "+releaseVersion+" downloaded from "+srv.url+releaseVersion+"/"+assetName()) {
		t.Errorf("no download line:\n%s", res.stdout)
	}
	bin := res.env["WEBHOOKLINT_BIN"]
	if !strings.HasPrefix(bin, filepath.Join(r.toolCache, "webhooklint", "0.0.0-test")) {
		t.Errorf("WEBHOOKLINT_BIN=%q is not in the tool cache %s", bin, r.toolCache)
	}
	if !res.failed || res.outputs["exit-code"] != "1" || !strings.Contains(res.stdout, "::error file=deploy/webhooks.yaml,line=23,col=5") {
		t.Errorf("the downloaded binary did not lint: exit %q\n%s", res.outputs["exit-code"], res.stdout)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || string(out) != "webhooklint "+releaseVersion+"\n" {
		t.Errorf("%s --version: %q %v", bin, out, err)
	}
	if srv.requests.Load() != 2 {
		t.Errorf("%d requests, want checksums.txt and the archive", srv.requests.Load())
	}

	// A second job on the same runner uses the tool cache: no download.
	before := srv.requests.Load()
	res = r.run(t, repoRoot(t), ws, inputs)
	t.Logf("tool-cache hit: first finding after %v", res.elapsed)
	if srv.requests.Load() != before || !strings.Contains(res.stdout, "found in the tool cache") || res.outputs["exit-code"] != "1" {
		t.Errorf("second run: %d new requests, exit %q\n%s", srv.requests.Load()-before, res.outputs["exit-code"], res.stdout)
	}
}

func TestActionRefusesABinaryThatFailsItsChecksum(t *testing.T) {
	skipWithoutTools(t)
	dist := releaseArtefacts(t)
	ws := workspace(t, map[string]string{"testdata/integrations/good/webhooks.yaml": "webhooks.yaml"})
	for _, tc := range []struct {
		name string
		edit func(name string, b []byte) []byte
		want string
	}{
		{"tampered archive", func(name string, b []byte) []byte {
			if name == assetName() {
				b = bytes.Clone(b)
				b[len(b)/2] ^= 0xff
			}
			return b
		}, "::error title=webhooklint::checksum mismatch for " + assetName() + " from "},
		{"asset missing from checksums.txt", func(name string, b []byte) []byte {
			if name == "checksums.txt" {
				return []byte("0000000000000000000000000000000000000000000000000000000000000000  something-else.tar.gz\n")
			}
			return b
		}, "::error title=webhooklint::checksums.txt of release " + releaseVersion + " lists no " + assetName()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serveRelease(t, dist, tc.edit)
			r := &runner{toolCache: t.TempDir()}
			res := r.run(t, repoRoot(t), ws, map[string]string{"version": releaseVersion, "download-url": srv.url})
			if !res.failed || !strings.Contains(res.stdout, tc.want) {
				t.Errorf("want a failed install with %q:\n%s", tc.want, res.stdout)
			}
			if len(res.stepsRun) != 1 || res.outputs["exit-code"] != "" {
				t.Errorf("steps %q ran after the failed install (exit-code %q)", res.stepsRun, res.outputs["exit-code"])
			}
			if m, _ := filepath.Glob(filepath.Join(r.toolCache, "webhooklint", "*", "*")); len(m) != 0 {
				t.Errorf("the tool cache holds %v after a failed verification", m)
			}
		})
	}
}

func TestActionBuildsWhenNoReleaseExists(t *testing.T) {
	skipWithoutTools(t)
	skipWithoutBuild(t)
	dist := releaseArtefacts(t)
	srv := serveRelease(t, dist, nil)
	ws := workspace(t, map[string]string{"testdata/integrations/good/webhooks.yaml": "webhooks.yaml"})
	res := runAction(t, repoRoot(t), ws, map[string]string{"version": "v9.9.9", "download-url": srv.url})
	t.Logf("build fallback: first finding after %v", res.elapsed)
	if res.failed || !strings.Contains(res.stdout, "no release v9.9.9 at "+strings.TrimSuffix(srv.url, "/")+"; building webhooklint v9.9.9 with Go") {
		t.Fatalf("fallback: failed=%v\n%s", res.failed, res.stdout)
	}
	if len(res.cacheUses) != 1 {
		t.Fatalf("actions/cache ran %d times, want once", len(res.cacheUses))
	}
	c := res.cacheUses[0]
	if !strings.HasPrefix(c["key"], fmt.Sprintf("webhooklint-go-%s-%s-", runtime.GOOS, runtime.GOARCH)) || len(c["key"]) < 60 {
		t.Errorf("cache key %q does not name the platform and go.sum's hash", c["key"])
	}
	for _, env := range []string{"GOMODCACHE", "GOCACHE"} {
		dir, err := exec.Command("go", "env", env).Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c["path"], strings.TrimSpace(string(dir))) {
			t.Errorf("cached paths %q lack %s", c["path"], env)
		}
	}
	bin := res.env["WEBHOOKLINT_BIN"]
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || string(out) != "webhooklint v9.9.9\n" {
		t.Errorf("%s --version: %q %v", bin, out, err)
	}

	// A branch or commit ref never downloads.
	before := srv.requests.Load()
	res = runAction(t, repoRoot(t), ws, map[string]string{"version": "main", "download-url": srv.url})
	if res.failed || srv.requests.Load() != before || !strings.Contains(res.stdout, `the action's ref "main" is no release tag`) {
		t.Errorf("ref main: failed=%v, %d requests\n%s", res.failed, srv.requests.Load()-before, res.stdout)
	}
}
