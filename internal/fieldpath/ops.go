package fieldpath

import (
	"strconv"
	"strings"
)

// The operations below work on the printed form itself, so that every
// package cuts a path where the positions index cut it when it was built:
// a map key holding '.' (labels[app.kubernetes.io/name]) stays one step.

// Parent strips the last step of a path:
// a.b[1].c → a.b[1] → a.b → a → "".
func Parent(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// Last is the last step of p as written, with its separator: ".c", "[1]",
// or the whole first field ("webhooks"). Parent(p) + Last(p) == p.
func Last(p string) string { return p[len(Parent(p)):] }

// Name is the last step of p without its separator or brackets: the field
// name, map key or list index ("c", "1", "webhooks").
func Name(p string) string {
	last := Last(p)
	if strings.HasPrefix(last, "[") {
		return strings.TrimSuffix(last[1:], "]")
	}
	return strings.TrimPrefix(last, ".")
}

// Elements are the steps of p as Last writes them, outermost first:
// webhooks[0].rules → "webhooks", "[0]", ".rules".
func Elements(p string) []string {
	var out []string
	for ; p != ""; p = Parent(p) {
		out = append(out, Last(p))
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Within reports whether p is ancestor or a field below it (webhooks[0] is
// within webhooks, webhooks[0].name within webhooks[0]; webhooks10 is not
// within webhooks). The root "" holds only itself: a file-level finding is
// about no field.
func Within(p, ancestor string) bool {
	rest, ok := strings.CutPrefix(p, ancestor)
	return ok && (rest == "" || ancestor != "" && (rest[0] == '.' || rest[0] == '['))
}

// Field, Index and Key build paths in exactly the form
// k8s.io/apimachinery's field.Path prints (a.b[2].c[key]): rules report
// field.Path values, and the positions index built from these must match
// their String().

// Field is the path of field name below parent.
func Field(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// Index is the path of item i of the list at parent.
func Index(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// Key is the path of key in the map at parent, as field.Path prints it.
func Key(parent, key string) string { return parent + "[" + key + "]" }

// SplitIndex cuts a path to a list item into the list and the index:
// a.b[3] → a.b, 3. ok is false unless p ends in a bracketed index.
func SplitIndex(p string) (list string, i int, ok bool) {
	j := strings.LastIndexByte(p, '[')
	if j < 0 || !strings.HasSuffix(p, "]") {
		return "", 0, false
	}
	i, ok = index(p[j+1 : len(p)-1])
	return p[:j], i, ok
}

// Webhook cuts a path into the webhook it points into and the rest below
// it: webhooks[3].rules[0] → 3, ".rules[0]". ok is false for a path outside
// webhooks[].
func Webhook(p string) (i int, rest string, ok bool) {
	rest, ok = strings.CutPrefix(p, "webhooks[")
	if !ok {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(rest, "]")
	if !ok {
		return 0, "", false
	}
	i, ok = index(num)
	return i, rest, ok
}

// IsWebhook reports whether p names a whole webhook (webhooks[3]).
func IsWebhook(p string) bool {
	_, rest, ok := Webhook(p)
	return ok && rest == ""
}

// WebhookPath is the path of webhook i.
func WebhookPath(i int) string { return Index("webhooks", i) }

// Fields is p with every bracketed step dropped and no leading dot:
// .rules[0].operations[1] → rules.operations. It names the field a path
// is about whatever the item.
func Fields(p string) string {
	var b strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.TrimPrefix(b.String(), ".")
}

// index reads a list index: decimal digits only, as field.Path prints one.
func index(s string) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil
}
