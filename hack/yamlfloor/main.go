//go:build devtools

// Command yamlfloor is the floor hack/bench.sh compares webhooklint to: it
// reads every *.yaml, *.yml and *.json file under its arguments and decodes
// each document into a go.yaml.in/yaml/v3 node tree, on one core, with
// nothing else — what any YAML linter pays before it looks at anything.
//
// It builds only with -tags devtools: `go install ./...`, which pre-commit's
// golang hook runs, then installs webhooklint and webhookvet alone.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

func main() {
	runtime.GOMAXPROCS(1)
	docs := 0
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".yaml", ".yml", ".json":
			default:
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dec := yaml.NewDecoder(bytes.NewReader(data))
			for {
				var n yaml.Node
				if err := dec.Decode(&n); err != nil {
					if errors.Is(err, io.EOF) {
						return nil
					}
					return fmt.Errorf("%s: %w", p, err)
				}
				docs++
			}
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "yamlfloor:", err)
			os.Exit(1)
		}
	}
	fmt.Println(docs, "documents")
}
