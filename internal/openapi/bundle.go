package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// The bundle is gzip'd text: one line of JSON with everything but the
// component schemas (bundleHeader), then one line per component schema,
// sorted by name: the name, a tab, the schema's JSON. JSON never holds a raw
// newline or tab outside strings and escapes both inside them, so Decode
// finds every schema with a byte search instead of parsing all of them,
// which is what a run that types one kind's matchConditions would otherwise
// spend most of its start-up on.

// bundleHeader is the first line of a bundle.
type bundleHeader struct {
	KubeVersion string            `json:"kubeVersion"`
	Resources   []Resource        `json:"resources"`
	Kinds       map[string]string `json:"kinds"`
}

// Encode writes b in the layout Decode reads. The output depends only on
// b: map keys and schema lines are sorted, and gzip is deterministic.
func Encode(b *Bundle) ([]byte, error) {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw) // one line, with its newline
	if err := enc.Encode(bundleHeader{KubeVersion: b.KubeVersion, Resources: b.Resources, Kinds: b.Kinds}); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(b.Schemas))
	for name := range b.Schemas {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if name == "" || bytes.ContainsAny([]byte(name), "\t\n") {
			return nil, fmt.Errorf("schema name %q cannot be written on one line", name)
		}
		raw.WriteString(name)
		raw.WriteByte('\t')
		if err := enc.Encode(b.Schemas[name]); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}

// splitBundle decompresses a bundle, decodes its header and returns each
// component schema's JSON by name, undecoded.
func splitBundle(gz []byte) (bundleHeader, map[string][]byte, error) {
	var h bundleHeader
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return h, nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return h, nil, err
	}
	line, rest, ok := bytes.Cut(raw, []byte("\n"))
	if !ok {
		return h, nil, errors.New("no header line")
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, nil, fmt.Errorf("header: %w", err)
	}
	schemas := make(map[string][]byte, bytes.Count(rest, []byte("\n")))
	for n := 2; len(rest) > 0; n++ {
		line, rest, ok = bytes.Cut(rest, []byte("\n"))
		if !ok {
			return h, nil, fmt.Errorf("line %d: no final newline", n)
		}
		name, schema, ok := bytes.Cut(line, []byte("\t"))
		if !ok || len(name) == 0 || len(schema) == 0 {
			return h, nil, fmt.Errorf("line %d: want a schema name, a tab and the schema", n)
		}
		if _, dup := schemas[string(name)]; dup {
			return h, nil, fmt.Errorf("line %d: schema %s again", n, name)
		}
		schemas[string(name)] = schema
	}
	return h, schemas, nil
}
