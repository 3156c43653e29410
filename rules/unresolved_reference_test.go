package rules

import "testing"

func TestNearName(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"kruise-webhook-server-service", "webhook-server-service", true}, // a prefix
		{"istiod", "istiod-canary", true},                                 // a revision suffix
		{"webhook-service", "webhook-service", false},                     // the same name is no near match
		{"webhookservice", "service", false},                              // not at a dash
		{"policy", "other", false},
	} {
		if got := nearName(tc.a, tc.b); got != tc.want {
			t.Errorf("nearName(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
