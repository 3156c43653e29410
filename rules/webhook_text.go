package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// quoteWebhook names a webhook in a message: webhook "name", or its index
// when the name is missing (a server rule reports that).
func quoteWebhook(w *Webhook) string {
	if w.Name == "" {
		return fmt.Sprintf("webhook webhooks[%d]", w.Index)
	}
	return fmt.Sprintf("webhook %q", excerpt(w.Name, maxQuoted))
}

// maxQuoted bounds text quoted from the input in a message (names,
// expressions), so that a message stays one readable line.
const maxQuoted = 80

// excerpt shortens s to at most n characters, marking the cut.
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// listNames joins up to max names, then says how many more there are
// ("and 1 more" would be longer than the name it hides).
func listNames(names []string, max int) string {
	if len(names) <= max+1 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// reportAtKey reports at the mapping key of path, for findings about a
// whole block (a selector) whose value starts on the next line.
func reportAtKey(p *Pass, sev diag.Severity, path *field.Path, format string, args ...any) {
	p.Emit(Finding{Severity: sev, Path: PathString(path), Message: fmt.Sprintf(format, args...), AtKey: true})
}
