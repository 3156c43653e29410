package simulate

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	schemaOnce   sync.Once
	outputSchema *jsonschema.Schema
	schemaErr    error
)

// validateSchema checks output against the published schema, so the
// document and the code cannot drift apart.
func validateSchema(t *testing.T, out []byte) {
	t.Helper()
	schemaOnce.Do(func() {
		f, err := os.Open(filepath.Join("..", "docs", "simulate.schema.json"))
		if err != nil {
			schemaErr = err
			return
		}
		defer func() { _ = f.Close() }() // read only
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if schemaErr = c.AddResource("simulate.schema.json", doc); schemaErr != nil {
			return
		}
		outputSchema, schemaErr = c.Compile("simulate.schema.json")
	})
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := outputSchema.Validate(inst); err != nil {
		t.Errorf("output does not follow docs/simulate.schema.json: %v", err)
	}
}
