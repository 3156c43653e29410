package kustomize

import (
	"bytes"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Warning is something kustomize warns about while building (a deprecated
// field), located in the kustomization file that has it.
type Warning struct {
	diag.Span
	Message string
}

// deprecatedFields maps the fields kustomize's CheckDeprecatedFields warns
// about to the field that replaces them.
var deprecatedFields = map[string]string{
	"bases":                 "resources",
	"commonLabels":          "labels",
	"imageTags":             "images",
	"patchesJson6902":       "patches",
	"patchesStrategicMerge": "patches",
	"vars":                  "replacements",
}

// deprecations lists the deprecated fields of every kustomization file of
// the tree, as kustomize would warn about them.
func deprecations(kusts map[string]bool) []Warning {
	var out []Warning
	for _, file := range slices.Sorted(maps.Keys(kusts)) {
		data, err := overlay.ReadFile(file)
		if err != nil || !mayDeprecate(data) {
			continue
		}
		var k types.Kustomization
		if k.Unmarshal(data) != nil {
			continue // kustomize reports it
		}
		if msgs := k.CheckDeprecatedFields(); msgs == nil || len(*msgs) == 0 {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		root := doc.Content[0]
		var w *Warning
		var fields, repls []string
		for i := 0; i+1 < len(root.Content); i += 2 {
			key := root.Content[i]
			repl, ok := deprecatedFields[key.Value]
			if !ok {
				continue
			}
			if w == nil {
				w = &Warning{Span: diag.Point(file, key.Line, key.Column)}
			}
			fields = append(fields, "'"+key.Value+"'")
			if !slices.Contains(repls, "'"+repl+"'") {
				repls = append(repls, "'"+repl+"'")
			}
		}
		if w == nil {
			continue
		}
		// One finding per kustomization, however many fields it has.
		w.Message = "deprecated " + strings.Join(fields, ", ") + ": use " + strings.Join(repls, ", ") +
			" (`kustomize edit fix` rewrites most)"
		out = append(out, *w)
	}
	return out
}

// mayDeprecate reports whether a kustomization's text can have a
// deprecated field, before it is decoded twice to know (most have none).
// A key is one only when it reads exactly as the field's name, so the
// name is in the text, unless an escape in a double-quoted key spells it.
func mayDeprecate(data []byte) bool {
	if bytes.IndexByte(data, '\\') >= 0 {
		return true
	}
	for field := range deprecatedFields {
		if bytes.Contains(data, []byte(field)) {
			return true
		}
	}
	return false
}

// stderrMu serializes the builds that capture os.Stderr.
var stderrMu sync.Mutex

// quietly runs build with os.Stderr sent to a pipe, and returns what was
// written there. kustomize prints its deprecation warnings with
// fmt.Fprintf(os.Stderr) (api/internal/target/kusttarget.go) and has no
// option to silence them; webhooklint reports them as findings instead.
// Only builds of trees that have deprecated fields (known in advance from
// deprecations) take this path, one at a time, so captures never mix;
// nothing else in webhooklint reads os.Stderr while linting (the CLI
// writes to the writer it was given).
func quietly(build func() error) (string, error) {
	stderrMu.Lock()
	defer stderrMu.Unlock()
	r, w, err := os.Pipe()
	if err != nil {
		return "", build()
	}
	var captured bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&captured, r)
		close(done)
	}()
	saved := os.Stderr
	os.Stderr = w
	berr := build()
	os.Stderr = saved
	_ = w.Close()
	<-done
	_ = r.Close()
	return strings.TrimSpace(captured.String()), berr
}

// unexpected turns captured output other than the deprecation warnings
// (already reported, located) into one warning on the kustomization.
func unexpected(printed, file string) []Warning {
	var rest []string
	for _, l := range strings.Split(printed, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "# Warning: '") {
			rest = append(rest, l)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return []Warning{{Span: diag.Point(file, 1, 1), Message: "kustomize: " + strings.Join(rest, "; ")}}
}
