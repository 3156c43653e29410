package source

import "github.com/webhooklint/webhooklint/diag"

// writtenAt is what a unit kind's locating gives for a finding on a built
// or rendered object, whatever the kind: the span in the source that
// wrote the field, and how it came to be written there (provenance), as
// data next to the span rather than in the finding's message.
type writtenAt struct {
	diag.Span
	// exact: the field itself was found, not its closest written ancestor.
	exact bool
	// by says what wrote the field there, for a kustomize build: "patch",
	// "resource" (the object's file) or "kustomization" (a generated
	// object); empty when the build holds no such object.
	by string
	// action: a template action writes the value on that line (from chart
	// values or a helper), rather than the template writing it literally.
	action bool
}
