//go:build devtools

// Command gendocs writes the generated documentation: docs/rules/<rule>.md,
// docs/rules/README.md and docs/config.schema.json. Run it with
// `go generate ./internal/ruledocs`; a test fails while they are stale.
//
// It builds only with -tags devtools: `go install ./...`, which pre-commit's
// golang hook runs, then installs webhooklint and webhookvet alone.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/webhooklint/webhooklint/internal/ruledocs/docfiles"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintf(os.Stderr, "ruledocs: %v\n", err)
		os.Exit(1)
	}
}

func run(root string) error {
	files, err := docfiles.Generated(root)
	if err != nil {
		return err
	}
	stale, err := docfiles.Stale(root, files)
	if err != nil {
		return err
	}
	for _, rel := range stale {
		if err := os.Remove(filepath.Join(root, rel)); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for rel := range files {
		names = append(names, rel)
	}
	slices.Sort(names)
	for _, rel := range names {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if old, err := os.ReadFile(path); err == nil && string(old) == string(files[rel]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[rel], 0o644); err != nil {
			return err
		}
	}
	return nil
}
