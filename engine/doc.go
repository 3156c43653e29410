// Package engine is what every front end (the file linter, kustomize and
// Helm units, the cluster, the go vet analyzer) does the same way once it
// has typed objects: run the selected rules with a guard against panics,
// apply severity overrides, and apply suppressions, reporting the ones
// that are invalid or silence nothing. Finding the objects, the comments
// and the annotations, and positioning findings, stay with each front end.
//
// It imports only the rule model and the diagnostic type, so that the
// analyzer (linked into go vet and golangci-lint) and the editor server
// can use it without the YAML loader or the CLI.
package engine
