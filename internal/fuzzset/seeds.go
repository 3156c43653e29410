package fuzzset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// seed is a webhook configuration the API server accepts.
type seed struct {
	name string // where it comes from: its metadata.name, or its file
	doc  *yaml.Node
}

const v1 = "admissionregistration.k8s.io/v1"

// loadSeeds reads the seeds: the conformance corpus's v1 webhook
// configurations the server accepted without a warning (files without a
// header, which are recorded by a plain server), then the real-world
// files of fuzz/seeds.
func loadSeeds(dir string) ([]seed, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var out []seed
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, []byte("# conformance: ")) {
			continue
		}
		ok, err := acceptedDocs(filepath.Join(dir, "verdicts", strings.TrimSuffix(filepath.Base(f), ".yaml")+".jsonl"))
		if err != nil {
			return nil, err
		}
		docs, err := documents(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(docs) != len(ok) {
			return nil, fmt.Errorf("%s: %d documents, %d verdicts", f, len(docs), len(ok))
		}
		for i, d := range docs {
			if ok[i] && isWebhookConfig(d) {
				out = append(out, seed{name: get(root(d), "metadata", "name").Value, doc: d})
			}
		}
	}
	real, err := filepath.Glob(filepath.Join(dir, "fuzz", "seeds", "*.yaml"))
	if err != nil {
		return nil, err
	}
	for _, f := range real {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		docs, err := documents(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for i, d := range docs {
			if isWebhookConfig(d) {
				out = append(out, seed{name: fmt.Sprintf("%s#%d", strings.TrimSuffix(filepath.Base(f), ".yaml"), i), doc: d})
			}
		}
	}
	return out, nil
}

// acceptedDocs reads which documents of a verdicts file were accepted
// with no warning.
func acceptedDocs(path string) ([]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []bool
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v struct {
			Accepted bool     `json:"accepted"`
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, v.Accepted && len(v.Warnings) == 0)
	}
	return out, sc.Err()
}

var separator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// documents parses the non-empty documents of a stream, as the verdict
// tool counts them (comment-only documents do not count).
func documents(data []byte) ([]*yaml.Node, error) {
	var out []*yaml.Node
	for _, chunk := range separator.Split(string(data), -1) {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(chunk), &n); err != nil {
			return nil, err
		}
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			out = append(out, &n)
		}
	}
	return out, nil
}

func isWebhookConfig(doc *yaml.Node) bool {
	m := root(doc)
	kind := get(m, "kind")
	api := get(m, "apiVersion")
	return kind != nil && api != nil && api.Value == v1 &&
		(kind.Value == "ValidatingWebhookConfiguration" || kind.Value == "MutatingWebhookConfiguration") &&
		len(webhooks(doc)) > 0 && get(m, "metadata", "name") != nil
}
