package diag

import (
	"strconv"
	"strings"
)

// ShortMessage is d's message without the webhook's name when the message
// starts with it, for where the webhook is named already: a report
// format's header line, "(webhook … in …)" suffix or field, or go vet's
// Go source position. So a line says it once.
//
//	webhook "x": empty caBundle …       → empty caBundle …
//	webhook "x" fails closed …          → webhook fails closed …
//	webhook "x" and 14 more: empty …    → this webhook and 14 more: empty …
func ShortMessage(d Diagnostic) string {
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
