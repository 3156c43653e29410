package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/fix"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/report"
)

// fixFlags are --fix, --unsafe-fixes and --diff: make the changes the
// findings' fixes describe, or show them.
type fixFlags struct {
	fix, unsafe, diff bool
}

// fixRounds bounds the lint-fix rounds of one --fix: a fix left out
// because it touches another's bytes is made in the next round, and a
// run must end even if fixes kept making new findings.
const fixRounds = 10

func (f *fixFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.fix, "fix", false, "apply the findings' safe fixes to the files in place, then report what remains")
	fs.BoolVar(&f.unsafe, "unsafe-fixes", false, "with --fix or --diff, apply the fixes that change behavior too")
	fs.BoolVar(&f.diff, "diff", false, "print the fixes as a unified diff (patch -p1 applies it) instead of the report; change nothing")
}

func (f *fixFlags) check() error {
	switch {
	case f.fix && f.diff:
		return usageError{"--fix and --diff: choose one (--diff changes nothing)"}
	case f.unsafe && !f.fix && !f.diff:
		return usageError{"--unsafe-fixes applies only with --fix or --diff"}
	}
	return nil
}

// lint runs lintOnce and, with --fix, makes the fixes and lints again until
// none is left to make, so that a second --fix changes nothing. It
// returns the last result: the report and the exit status are about what
// remains.
func (f *fixFlags) lint(rc *runContext, lintOnce func() (*lint.Result, error)) (*lint.Result, error) {
	res, err := lintOnce()
	if err != nil || !f.fix {
		return res, err
	}
	fixed, files := 0, map[string]bool{}
	for range fixRounds {
		if len(res.Internal) > 0 {
			break
		}
		edits, n := fix.Select(res.Diagnostics, f.unsafe)
		if n == 0 {
			break
		}
		for _, name := range slices.Sorted(maps.Keys(edits)) {
			if err := applyFile(name, edits[name]); err != nil {
				return nil, err
			}
			files[name] = true
		}
		fixed += n
		if res, err = lintOnce(); err != nil {
			return nil, err
		}
	}
	if fixed > 0 {
		fmt.Fprintf(rc.stderr, "webhooklint: fixed %s in %s\n", plural(fixed, "finding"), plural(len(files), "file"))
	}
	if !f.unsafe {
		if _, n := fix.Select(res.Diagnostics, true); n > 0 {
			fmt.Fprintf(rc.stderr, "webhooklint: %d more %s with --unsafe-fixes\n", n, strings.TrimPrefix(plural(n, "fix"), fmt.Sprint(n)+" "))
		}
	}
	return res, nil
}

// writeDiff prints the fixes of res as one unified diff.
func (f *fixFlags) writeDiff(w io.Writer, res *lint.Result) error {
	edits, _ := fix.Select(res.Diagnostics, f.unsafe)
	cwd, _ := os.Getwd()
	for _, name := range slices.Sorted(maps.Keys(edits)) {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := fix.Diff(&out, diffName(cwd, name), data, edits[name]); err != nil {
			return err
		}
		if _, err := w.Write(out.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// diffName is a file's name in the diff: relative to the working folder,
// where patch -p1 runs.
func diffName(cwd, name string) string {
	if filepath.IsAbs(name) && cwd != "" {
		if rel, err := filepath.Rel(cwd, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
	}
	return filepath.ToSlash(filepath.Clean(name))
}

// applyFile makes edits to a file, keeping its mode.
func applyFile(name string, edits []diag.Edit) error {
	fi, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("--fix: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return errors.New("--fix: " + name + " is not a regular file")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("--fix: %w", err)
	}
	out, err := fix.Apply(data, edits)
	if err != nil {
		return fmt.Errorf("--fix: %w", err)
	}
	if err := os.WriteFile(name, out, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("--fix: %w", err)
	}
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "x") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// diffReport is the report of --diff: the fixes instead of the findings.
type diffReport struct {
	flags fixFlags
	res   *lint.Result
}

func (d diffReport) Format(w io.Writer, _ *report.Run) error { return d.flags.writeDiff(w, d.res) }
