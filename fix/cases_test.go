package fix_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// textCase is a file before and after its fixes.
type textCase struct{ name, in, want string }

// textCases reads the cases in testdata/dir. A case NAME.EXT.txtar is a
// txtar archive: a comment saying what it shows, `-- in.EXT --` (the file
// NAME.EXT as written; EXT says how it is read) and `-- want.EXT --` (the
// file after its fixes). txtar ends every section with a line break: a
// case whose texts have no final one adds an empty `-- no-final-newline --`
// section, and both lose their last byte. The files are compared byte for
// byte, so .gitattributes keeps Git from changing their line breaks, and a
// case named crlf* must still hold CRLF breaks only.
func textCases(t *testing.T, dir string) []textCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases in testdata/%s: %v", dir, err)
	}
	var out []textCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		ext := filepath.Ext(name)
		sections := map[string]string{}
		for _, f := range a.Files {
			sections[f.Name] = string(f.Data)
		}
		in, okIn := sections["in"+ext]
		want, okWant := sections["want"+ext]
		noFinal, okNoFinal := sections["no-final-newline"]
		count := 2
		if okNoFinal {
			count = 3
		}
		if !okIn || !okWant || len(a.Files) != count || noFinal != "" {
			t.Fatalf("%s: want the sections in%s and want%s, and an empty no-final-newline or none", p, ext, ext)
		}
		if strings.TrimSpace(string(a.Comment)) == "" {
			t.Fatalf("%s: no comment saying what the case shows", p)
		}
		if okNoFinal {
			in, want = strings.TrimSuffix(in, "\n"), strings.TrimSuffix(want, "\n")
		}
		if strings.HasPrefix(name, "crlf") {
			for _, text := range []string{in, want} {
				if n := strings.Count(text, "\n"); n == 0 || strings.Count(text, "\r\n") != n {
					t.Fatalf("%s: line breaks not all CRLF (see .gitattributes)", p)
				}
			}
		}
		out = append(out, textCase{name, in, want})
	}
	return out
}
