package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/report"
)

// --output FORMAT=PATH writes the same run in another format to a file,
// so CI gets annotations, SARIF and a summary from one lint run.
func registerOutputFlag(fset *pflag.FlagSet, outputs *[]string) {
	fset.Func("output", "also write the report in `FORMAT=PATH` (repeatable; e.g. sarif=webhooklint.sarif)", func(s string) error {
		format, path, ok := strings.Cut(s, "=")
		if !ok || format == "" || path == "" {
			return errors.New("want FORMAT=PATH, e.g. sarif=webhooklint.sarif")
		}
		if _, err := report.New(format, report.Options{}); err != nil {
			return err
		}
		*outputs = append(*outputs, s)
		return nil
	})
}

// openOutputs creates the --output files now, so a path that cannot be
// written is a usage error before any linting.
func openOutputs(rc *runContext, outputs []string) error {
	for _, s := range outputs {
		format, path, _ := strings.Cut(s, "=")
		// Files never get color, whatever the terminal.
		f, _ := report.New(format, report.Options{BaseDir: rc.report.BaseDir})
		file, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("--output: %w", err)
		}
		rc.afterRun = append(rc.afterRun, func(run *report.Run) error {
			return writeReport(f, file, run)
		})
	}
	return nil
}

// baseDir is the folder annotations and SARIF name files relative to: in
// a GitHub Actions job, the workspace (the repository root) when the run
// is in it, whatever its working directory; else the current folder.
func baseDir() string {
	ws := os.Getenv("GITHUB_WORKSPACE")
	if ws == "" || os.Getenv("GITHUB_ACTIONS") != "true" {
		return ""
	}
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if rel, err := filepath.Rel(ws, cwd); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return ws
}

func writeReport(f report.Formatter, file *os.File, run *report.Run) error {
	if err := f.Format(file, run); err != nil {
		_ = file.Close() // the format error is the one to report
		return fmt.Errorf("--output %s: %w", file.Name(), err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("--output %s: %w", file.Name(), err)
	}
	return nil
}
