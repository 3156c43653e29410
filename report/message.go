package report

import (
	"strconv"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

// message is a finding's message without the webhook's name when the
// message starts with it: every format names the webhook already (the
// text format's header line, the others' "(webhook … in …)" suffix or
// field), so a line says it once.
//
//	webhook "x": empty caBundle …       → empty caBundle …
//	webhook "x" fails closed …          → webhook fails closed …
//	webhook "x" and 14 more: empty …    → this webhook and 14 more: empty …
func message(d diag.Diagnostic) string {
	if d.Webhook == "" {
		return d.Message
	}
	rest, ok := strings.CutPrefix(d.Message, "webhook ")
	if !ok {
		return d.Message
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return d.Message
	}
	// Rules shorten long names to an excerpt ending in "…".
	if name, _ := strconv.Unquote(quoted); name != d.Webhook &&
		(!strings.HasSuffix(name, "…") || !strings.HasPrefix(d.Webhook, strings.TrimSuffix(name, "…"))) {
		return d.Message
	}
	rest = rest[len(quoted):]
	switch {
	case strings.HasPrefix(rest, ": "):
		return rest[2:]
	case strings.HasPrefix(rest, " and "):
		return "this webhook" + rest
	case strings.HasPrefix(rest, " "):
		return "webhook" + rest
	}
	return d.Message
}

// fullMessage is the message with what it is about, for formats that
// show a finding on its own (a table row, an XML element).
func fullMessage(d diag.Diagnostic) string { return message(d) + context(d) }

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
