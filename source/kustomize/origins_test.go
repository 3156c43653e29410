package kustomize

import (
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// A file several builds read is parsed once for all of them, and dropped
// when the last of them is done; other files are not shared.
func TestOriginsShared(t *testing.T) {
	base, err := filepath.Abs("../../testdata/sources/overlays/base/webhook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := filepath.Abs("../../testdata/sources/overlays/base/kustomization.yaml")
	s := NewOrigins(map[string]int{base: 2, other: 1})
	first, ok := s.docs(base)
	if !ok || len(first) != 1 || first[0].kind != "ValidatingWebhookConfiguration" {
		t.Fatalf("shared docs %v %v", first, ok)
	}
	if again, _ := s.docs(base); &again[0] != &first[0] {
		t.Error("the second build parsed the file again")
	}
	if _, ok := s.docs(other); ok {
		t.Error("a file one build reads is shared")
	}
	s.Done(map[string]bool{base: true, other: true})
	if _, ok := s.docs(base); !ok {
		t.Error("dropped while a build may still read it")
	}
	s.Done(map[string]bool{base: true})
	if _, ok := s.docs(base); ok {
		t.Error("kept after the last build is done")
	}
	var none *Origins
	if _, ok := none.docs(base); ok {
		t.Error("a nil Origins shares")
	}
	none.Done(map[string]bool{base: true})
}

// A resource file's documents are indexed when a finding is first located
// in one, each once: the others are never indexed.
func TestOriginDocIndexedOnUse(t *testing.T) {
	file := filepath.Join(t.TempDir(), "app.yaml")
	testkit.WriteFile(t, file, "kind: Service\nmetadata:\n  name: s\n---\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 1\n")
	docs := readDocs(file)
	if len(docs) != 2 || docs[0].tab != nil || docs[1].tab != nil {
		t.Fatalf("docs %+v", docs)
	}
	if docs[1].start.Line != 5 || docs[1].start.Column != 1 {
		t.Errorf("the Deployment starts at %+v", docs[1].start)
	}
	tab := docs[1].table()
	if at, exact, _, ok := tab.lookup("spec.replicas", nil); !ok || !exact || at.Line != 9 || at.Column != 13 {
		t.Errorf("spec.replicas at %+v %v %v", at, exact, ok)
	}
	if docs[1].table() != tab || docs[0].tab != nil {
		t.Error("indexed again, or a document no finding is in was indexed")
	}
}
