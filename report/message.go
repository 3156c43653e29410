package report

import (
	"strconv"

	"github.com/webhooklint/webhooklint/diag"
)

// fullMessage is the message with what it is about, for formats that
// show a finding on its own (a table row, an XML element).
func fullMessage(d diag.Diagnostic) string { return diag.ShortMessage(d) + context(d) }

// subject names the object and webhook a finding is about, for the text
// format's header line: webhook "x" of ValidatingWebhookConfiguration "y".
func subject(d diag.Diagnostic) string {
	switch {
	case d.Object == nil:
		return ""
	case len(d.Related) > 0 && d.Object.Name != "":
		// Located on another object (a backend's field): that object heads
		// it, and the webhook it is about is the related location.
		return d.Object.Kind + " " + strconv.Quote(d.Object.Name)
	case d.Webhook != "":
		return "webhook " + strconv.Quote(d.Webhook) + " of " + d.Object.Kind + " " + strconv.Quote(d.Object.Name)
	case d.Object.Name != "":
		return d.Object.Kind + " " + strconv.Quote(d.Object.Name)
	}
	return ""
}
