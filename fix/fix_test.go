package fix

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func edit(file string, off, end int, text string) diag.Edit {
	return diag.Edit{File: file, Offset: off, EndOffset: end, NewText: text}
}

func TestSelectSkipsOverlapsAndUnsafe(t *testing.T) {
	ds := []diag.Diagnostic{
		{Fixes: []diag.Fix{{Applicability: diag.Safe, Edits: []diag.Edit{edit("f", 0, 2, "x")}}}},
		// Touches the first fix's bytes: left for the next run.
		{Fixes: []diag.Fix{{Applicability: diag.Safe, Edits: []diag.Edit{edit("f", 1, 3, "y")}}}},
		// The first fix again (a duplicate finding): made once, counted.
		{Fixes: []diag.Fix{{Applicability: diag.Safe, Edits: []diag.Edit{edit("f", 0, 2, "x")}}}},
		{Fixes: []diag.Fix{{Applicability: diag.Unsafe, Edits: []diag.Edit{edit("g", 4, 5, "z")}}}},
	}
	got, n := Select(ds, false)
	if n != 2 || len(got["f"]) != 1 || len(got["g"]) != 0 {
		t.Fatalf("safe: %d fixed, edits %v", n, got)
	}
	got, n = Select(ds, true)
	if n != 3 || len(got["g"]) != 1 {
		t.Fatalf("unsafe: %d fixed, edits %v", n, got)
	}
}

func TestApplyKeepsOtherBytes(t *testing.T) {
	data := []byte("a: 1 # one\nb: 'x'\n")
	out, err := Apply(data, []diag.Edit{edit("f", 3, 4, "2"), edit("f", 14, 17, "'y'")})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "a: 2 # one\nb: 'y'\n" {
		t.Fatalf("got %q", out)
	}
	if _, err := Apply(data, []diag.Edit{edit("f", 3, 99, "")}); err == nil {
		t.Fatal("an edit past the end was applied")
	}
}

// TestDiffAppliesWithPatch checks that patch -p1 turns the file into what
// Apply makes, for changes near each other, far apart, at the start and
// end, deleting lines, inserting whole lines and on a last line without a
// line break.
func TestDiffAppliesWithPatch(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch not installed")
	}
	var text strings.Builder
	for i := range 30 {
		text.WriteString("line " + string(rune('a'+i%26)) + "\n")
	}
	text.WriteString("last")
	data := []byte(text.String())
	off := func(line int) int { // byte offset of a 0-based line
		return bytes.Index(data, []byte("line "+string(rune('a'+line%26))))
	}
	cases := map[string][]diag.Edit{
		"first line":                  {edit("f", 0, 4, "LINE")},
		"delete line":                 {edit("f", off(5), off(6), "")},
		"near":                        {edit("f", off(10), off(10)+4, "X"), edit("f", off(13), off(13)+4, "Y")},
		"far":                         {edit("f", off(2), off(2)+1, "Z"), edit("f", off(20), off(21), "two\nlines\n")},
		"last":                        {edit("f", len(data)-4, len(data), "end\n")},
		"same line":                   {edit("f", off(7), off(7)+1, "1"), edit("f", off(7)+2, off(7)+3, "2")},
		"insert":                      {edit("f", off(3), off(3), "new\n")},
		"insert top":                  {edit("f", 0, 0, "top\n")},
		"insert, then edit that line": {edit("f", off(8), off(8), "new\n"), edit("f", off(8)+5, off(8)+6, "I")},
	}
	for name, edits := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := Apply(data, edits)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "d", "f.yaml"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			var diff bytes.Buffer
			if err := Diff(&diff, "d/f.yaml", data, edits); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("patch", "-p1", "--quiet", "--no-backup-if-mismatch")
			cmd.Dir, cmd.Stdin = dir, &diff
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch: %v\n%s\n%s", err, out, diff.String())
			}
			got, _ := os.ReadFile(filepath.Join(dir, "d", "f.yaml"))
			if !bytes.Equal(got, want) {
				t.Fatalf("patched:\n%s\nwant:\n%s\ndiff:\n%s", got, want, diff.String())
			}
		})
	}
}
