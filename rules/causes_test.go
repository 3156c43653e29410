package rules

import "testing"

func TestMessageShapeAndPaths(t *testing.T) {
	if a, b := messageShape(`webhooks[0].rules[12]: bad "x1"`), messageShape(`webhooks[3].rules[7]: bad "x9"`); a != b {
		t.Errorf("shapes differ: %q %q", a, b)
	}
	if messageShape("bad a") == messageShape("bad b") {
		t.Error("different words share a shape")
	}
	for path, want := range map[string]bool{"webhooks[0]": true, "webhooks[12]": true, "webhooks[0].timeoutSeconds": false, "webhooks[]": false, "webhooks": false} {
		if onWholeWebhook(path) != want {
			t.Errorf("onWholeWebhook(%q) != %v", path, want)
		}
	}
	for _, c := range []struct {
		path, parent string
		want         bool
	}{
		{"webhooks[0].sideEffects", "webhooks[0].sideEffects", true},
		{"webhooks[0].clientConfig.caBundle", "webhooks[0].clientConfig", true},
		{"webhooks[0].rules[1]", "webhooks[0].rules", true},
		{"webhooks[0].sideEffectsX", "webhooks[0].sideEffects", false},
		{"webhooks[10]", "webhooks[1]", false},
	} {
		if within(c.path, c.parent) != c.want {
			t.Errorf("within(%q, %q) != %v", c.path, c.parent, c.want)
		}
	}
}
