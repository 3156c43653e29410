package rules

import "testing"

// The shared paths of a webhook's fields are the paths Child makes, for
// the first webhooks (shared) and the others (made), and for fields the
// table does not hold.
func TestWebhookFieldPaths(t *testing.T) {
	fields := [][]string{
		{"name"}, {"clientConfig"}, {"rules"}, {"failurePolicy"}, {"matchPolicy"},
		{"namespaceSelector"}, {"objectSelector"}, {"sideEffects"}, {"timeoutSeconds"},
		{"admissionReviewVersions"}, {"matchConditions"}, {"reinvocationPolicy"},
		{"clientConfig", "service"}, {"clientConfig", "url"}, {"clientConfig", "caBundle"},
		{"clientConfig", "service", "port"}, {"unknownField"}, {"rules", "scope"},
	}
	for _, i := range []int{0, 1, 31, 32, 100} {
		w := &Webhook{Index: i}
		for _, f := range fields {
			want := w.Path().Child(f[0], f[1:]...).String()
			if got := w.FieldPath(f...).String(); got != want {
				t.Errorf("webhook %d: FieldPath(%q) = %s, want %s", i, f, got, want)
			}
			if got := w.FieldString(f...); got != want {
				t.Errorf("webhook %d: FieldString(%q) = %s, want %s", i, f, got, want)
			}
		}
	}
}
