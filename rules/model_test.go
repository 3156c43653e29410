package rules

import (
	"fmt"
	"testing"
)

// A webhook's path is made once for the first indexes (every rule asks
// for it) and stays what field.NewPath makes, whatever is built on it.
func TestWebhookPath(t *testing.T) {
	for _, i := range []int{0, 1, 31, 32, 100} {
		w := &Webhook{Index: i}
		want := fmt.Sprintf("webhooks[%d]", i)
		if got := w.Path().Child("rules").Index(2).String(); got != want+".rules[2]" {
			t.Errorf("webhook %d: child path %q", i, got)
		}
		if got := w.Path().String(); got != want {
			t.Errorf("webhook %d: path %q after a child was built on it, want %q", i, got, want)
		}
		first, second := w.Path(), w.Path()
		if shared := first == second; shared != (i < len(webhookPaths)) {
			t.Errorf("webhook %d: path shared = %v", i, shared)
		}
	}
}
