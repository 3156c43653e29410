package testkit

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// ReadJSONLines reads a file of one JSON value a line (the recorded
// verdicts of the API server).
func ReadJSONLines[T any](t testing.TB, file string) []T {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, v)
	}
	return out
}
