package rules

import "testing"

func TestMessageShape(t *testing.T) {
	if a, b := messageShape(`webhooks[0].rules[12]: bad "x1"`), messageShape(`webhooks[3].rules[7]: bad "x9"`); a != b {
		t.Errorf("shapes differ: %q %q", a, b)
	}
	if messageShape("bad a") == messageShape("bad b") {
		t.Error("different words share a shape")
	}
}
