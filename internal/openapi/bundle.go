package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The bundle is text, one record per line, fields separated by tabs:
//
//	version   <gitVersion of the server>
//	resource  <group> <version> <resource> <subresource> <kind's group> <kind's version> <kind>
//	kind      <KindKey> <schema name>
//	schema    <name> <the schema's JSON>
//
// in that order, resources as the generator sorts them, kinds and schemas
// by name. It is embedded uncompressed and read in place: Decode splits
// lines and fields with byte searches (JSON never holds a raw tab or
// newline) and leaves each schema's JSON undecoded until it is used, so a
// run that types one kind pays neither gunzip nor a JSON decode of the
// whole table, which was most of its start-up. One line per schema also
// makes a regeneration's diff name the schemas that changed.

const (
	recVersion  = "version"
	recResource = "resource"
	recKind     = "kind"
	recSchema   = "schema"
)

// Encode writes b in the layout Decode reads. The output depends only on
// b: kinds and schemas are written sorted by name, resources in b's order.
func Encode(b *Bundle) ([]byte, error) {
	var out bytes.Buffer
	record := func(fields ...string) error {
		for i, f := range fields {
			if strings.ContainsAny(f, "\t\n") {
				return fmt.Errorf("%s record: field %q has a tab or newline", fields[0], f)
			}
			if i > 0 {
				out.WriteByte('\t')
			}
			out.WriteString(f)
		}
		out.WriteByte('\n')
		return nil
	}
	if err := record(recVersion, b.KubeVersion); err != nil {
		return nil, err
	}
	for _, r := range b.Resources {
		if err := record(recResource, r.Group, r.Version, r.Resource, r.Subresource, r.Kind.Group, r.Kind.Version, r.Kind.Kind); err != nil {
			return nil, err
		}
	}
	for _, key := range slices.Sorted(maps.Keys(b.Kinds)) {
		if err := record(recKind, key, b.Kinds[key]); err != nil {
			return nil, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.Schemas)) {
		raw, err := json.Marshal(b.Schemas[name])
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		if err := record(recSchema, name, string(raw)); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// recordFields is how many fields each kind of record has, its name
// included.
var recordFields = map[string]int{recVersion: 2, recResource: 8, recKind: 3, recSchema: 3}

// bundleIndex is a bundle split into its records; schemas are still JSON,
// sharing the bundle's bytes.
type bundleIndex struct {
	kubeVersion string
	resources   []Resource
	kinds       map[string]string
	schemas     map[string][]byte
}

// splitBundle reads the records of a bundle as Encode writes it.
func splitBundle(data []byte) (*bundleIndex, error) {
	// Sized up front: growing the tables was a third of the time.
	x := &bundleIndex{
		resources: make([]Resource, 0, bytes.Count(data, []byte("\n"+recResource+"\t"))),
		kinds:     make(map[string]string, bytes.Count(data, []byte("\n"+recKind+"\t"))),
		schemas:   make(map[string][]byte, bytes.Count(data, []byte("\n"+recSchema+"\t"))),
	}
	var fields [8][]byte
	for n := 1; len(data) > 0; n++ {
		line, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("line %d: no final newline", n)
		}
		data = rest
		// Split into at most len(fields) fields; the last keeps any tabs.
		f := fields[:0]
		for len(f) < len(fields)-1 {
			field, more, found := bytes.Cut(line, []byte("\t"))
			f = append(f, field)
			if !found {
				line = nil
				break
			}
			line = more
		}
		if line != nil {
			f = append(f, line)
		}
		want := recordFields[string(f[0])]
		switch {
		case want == 0:
			return nil, fmt.Errorf("line %d: unknown record %q", n, f[0])
		case len(f) != want:
			return nil, fmt.Errorf("line %d: %s record with %d fields, want %d", n, f[0], len(f), want)
		}
		switch string(f[0]) {
		case recVersion:
			x.kubeVersion = string(f[1])
		case recResource:
			x.resources = append(x.resources, Resource{Group: string(f[1]), Version: string(f[2]), Resource: string(f[3]),
				Subresource: string(f[4]), Kind: GVK{Group: string(f[5]), Version: string(f[6]), Kind: string(f[7])}})
		case recKind:
			x.kinds[string(f[1])] = string(f[2])
		case recSchema:
			name := string(f[1])
			if name == "" || len(f[2]) == 0 {
				return nil, fmt.Errorf("line %d: schema record without a name or a schema", n)
			}
			if _, dup := x.schemas[name]; dup {
				return nil, fmt.Errorf("line %d: schema %s again", n, name)
			}
			x.schemas[name] = f[2]
		}
	}
	if x.kubeVersion == "" {
		return nil, fmt.Errorf("no version record")
	}
	return x, nil
}
