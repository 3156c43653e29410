// Package placeholder recognizes values that are plainly stand-ins for
// something a deploy step substitutes later (envsubst, sed, kustomize vars,
// mustache-style templates): `${CA_BUNDLE}`, `__CA_BUNDLE__`, `CA_BUNDLE`,
// `REPLACE_WITH_SECRET`, `{{caBundle}}`, `cache-server.${NAMESPACE}.svc`.
//
// It is shared by the loader (a caBundle placeholder is not a base64 error)
// and the placeholder rule, so both agree on what a placeholder is. The
// patterns are deliberately narrow: only spellings no real value of the
// fields webhooklint checks can take (a DNS name cannot contain `$`, `{`,
// `_` or upper case; base64 cannot contain `$`, `{`, `_`, `<`, `%` or `@`).
package placeholder

import (
	"regexp"
	"strings"
	"sync"

	"github.com/webhooklint/webhooklint/internal/lazy"
)

// embedded patterns match a placeholder anywhere inside a value.
var embedded = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// envsubst / shell: ${VAR}, ${VAR:-default}, ${VAR-default}.
		regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:?+=-][^}]*)?\}`),
		// kustomize vars and make: $(VAR), $(VAR.field).
		regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_.]*\)`),
		// Mustache and Go template actions: {{caBundle}}, {{ .Values.x }}.
		regexp.MustCompile(`\{\{[^{}]*\}\}`),
		// Double-underscore markers for sed: __CA_BUNDLE__.
		regexp.MustCompile(`__[A-Z][A-Z0-9_]*[A-Z0-9]__`),
		// Bare shell variables in upper case: $NAMESPACE.
		regexp.MustCompile(`\$[A-Z_][A-Z0-9_]*`),
		// Windows-style and autoconf-style markers: %CA_BUNDLE%, @CA_BUNDLE@.
		regexp.MustCompile(`%[A-Z][A-Z0-9_]*%`),
		regexp.MustCompile(`@[A-Z][A-Z0-9_]*@`),
	}
})

// whole patterns must match the entire value.
var whole = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// An upper-case identifier with at least one underscore: CA_BUNDLE,
		// REPLACE_WITH_SECRET, HELMSUBST_FAILURE_POLICY. A single word (XYZ)
		// is too ambiguous to call a placeholder.
		regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`),
		// Angle-bracket prose: <CA_BUNDLE>, <base64-encoded-ca>.
		regexp.MustCompile(`^<[^<>\s][^<>]*>$`),
	}
})

// Find returns the placeholder in s, if s holds one: the first embedded
// placeholder, or the whole value. The result is what a message should
// quote.
func Find(s string) (string, bool) {
	// Every pattern needs one of these characters; most values (names,
	// paths, label values) have none, and skip nine regular expressions.
	if !strings.ContainsAny(s, markerChars) {
		return "", false
	}
	return find(s)
}

// markerChars holds a character of every pattern's match.
const markerChars = "$_{%@<"

func find(s string) (string, bool) {
	for _, re := range whole() {
		if re.MatchString(s) {
			return s, true
		}
	}
	best := -1
	var tok string
	for _, re := range embedded() {
		if loc := re.FindStringIndex(s); loc != nil && (best < 0 || loc[0] < best) {
			best, tok = loc[0], s[loc[0]:loc[1]]
		}
	}
	return tok, best >= 0
}

// prose is two words of letters alone, with a space between: base64 holds
// no space, and a run of it split by one is rarely letters alone.
var prose = lazy.Regexp(`(?:^|\s)[A-Za-z]{2,}[ \t]+[A-Za-z]{2,}(?:\s|$)`)

// Prose returns a value that is not the bytes it stands for but words
// asking for them: a sample's `-- your CARoot comes here --`, `[ca bundle]`.
// It reads as prose when it is wrapped in `--`, `<>` or `[]`, or holds two
// words with a space between. Only for a value that failed to decode as
// base64: a PEM certificate pasted instead of its base64 (`-----BEGIN
// CERTIFICATE-----`) is a real mistake, not a placeholder, and stays one.
func Prose(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if t == "" || strings.Contains(t, "-----BEGIN") || strings.Contains(t, "-----END") {
		return "", false
	}
	wrapped := func(open, close string) bool {
		return len(t) > len(open)+len(close) && strings.HasPrefix(t, open) && strings.HasSuffix(t, close)
	}
	if wrapped("--", "--") || wrapped("<", ">") || wrapped("[", "]") || prose().MatchString(t) {
		return t, true
	}
	return "", false
}
