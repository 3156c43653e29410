package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Every path of a folder is linted or reported; nothing stops the run and
// nothing is opened that could block it.
func TestExpandReportsWhatItCannotRead(t *testing.T) {
	const doc = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) []string // returns the arguments
		files []string                                // read as usual
		bad   map[string]string                       // path: part of the problem
	}{
		{"named pipe in a folder", func(t *testing.T, dir string) []string {
			mkfifo(t, filepath.Join(dir, "in", "pipe.yaml"))
			return []string{filepath.Join(dir, "in")}
		}, []string{"in/ok.yaml"}, map[string]string{"in/pipe.yaml": "named pipe"}},
		{"named pipe matched by a glob", func(t *testing.T, dir string) []string {
			mkfifo(t, filepath.Join(dir, "in", "pipe.yaml"))
			return []string{filepath.Join(dir, "in", "*.yaml")}
		}, []string{"in/ok.yaml"}, map[string]string{"in/pipe.yaml": "named pipe"}},
		{"symlinked folder named without a slash", func(t *testing.T, dir string) []string {
			symlink(t, filepath.Join(dir, "in"), filepath.Join(dir, "link"))
			return []string{filepath.Join(dir, "link")}
		}, []string{"link/ok.yaml"}, nil},
		{"symbolic link loop in a folder", func(t *testing.T, dir string) []string {
			symlink(t, filepath.Join(dir, "in", "loop.yaml"), filepath.Join(dir, "in", "loop.yaml"))
			return []string{filepath.Join(dir, "in")}
		}, []string{"in/ok.yaml"}, map[string]string{"in/loop.yaml": "symbolic link loop"}},
		{"symbolic link loop named", func(t *testing.T, dir string) []string {
			symlink(t, filepath.Join(dir, "loop.yaml"), filepath.Join(dir, "loop.yaml"))
			return []string{filepath.Join(dir, "in"), filepath.Join(dir, "loop.yaml")}
		}, []string{"in/ok.yaml"}, map[string]string{"loop.yaml": "symbolic link loop"}},
		{"dangling link in a folder", func(t *testing.T, dir string) []string {
			symlink(t, filepath.Join(dir, "gone.yaml"), filepath.Join(dir, "in", "dangling.yaml"))
			return []string{filepath.Join(dir, "in")}
		}, []string{"in/ok.yaml"}, map[string]string{"in/dangling.yaml": "no such file"}},
		{"link to a file in a folder", func(t *testing.T, dir string) []string {
			symlink(t, filepath.Join(dir, "in", "ok.yaml"), filepath.Join(dir, "in", "alias.yaml"))
			return []string{filepath.Join(dir, "in")}
		}, []string{"in/alias.yaml", "in/ok.yaml"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "in", "ok.yaml"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			srcs, err := Expand(c.setup(t, dir), "")
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			bad := map[string]string{}
			for _, s := range srcs {
				rel, _ := filepath.Rel(dir, s.Name)
				rel = filepath.ToSlash(rel)
				data, err := Read(s, nil)
				if err != nil {
					f := Unreadable(s.Name, err)
					if len(f.Diagnostics) != 1 || f.Diagnostics[0].Rule != RuleInputFile {
						t.Errorf("%s: %v", rel, f.Diagnostics)
					}
					bad[rel] = f.Diagnostics[0].Message
					continue
				}
				if string(data) != doc {
					t.Errorf("%s: read %q", rel, data)
				}
				files = append(files, rel)
			}
			if strings.Join(files, " ") != strings.Join(c.files, " ") {
				t.Errorf("read %v, want %v", files, c.files)
			}
			if len(bad) != len(c.bad) {
				t.Errorf("problems %v, want %v", bad, c.bad)
			}
			for p, want := range c.bad {
				if !strings.Contains(bad[p], want) {
					t.Errorf("%s: got %q, want %q", p, bad[p], want)
				}
			}
		})
	}
}

func TestExpandMissingPathIsAnError(t *testing.T) {
	if _, err := Expand([]string{filepath.Join(t.TempDir(), "nope")}, ""); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("got %v", err)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}
