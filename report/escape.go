package report

import (
	"fmt"
	"strings"
)

// escapeRune returns how r is shown to a terminal: itself, or an escape
// for a character that would act on the terminal instead of being shown
// (as git and ls do for file names): C0 controls and DEL as \xHH or \n,
// \r; C1 controls and the bidirectional overrides that reorder what a
// reader sees (Trojan Source) as \uHHHH. Tabs stay tabs.
func escapeRune(r rune) (string, bool) {
	switch {
	case r == '\t':
		return "", false
	case r == '\n':
		return `\n`, true
	case r == '\r':
		return `\r`, true
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf(`\x%02x`, r), true
	case r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return fmt.Sprintf(`\u%04x`, r), true
	}
	return "", false
}

// escapeControls escapes what escapeRune escapes in s.
func escapeControls(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { _, ok := escapeRune(r); return ok })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if e, ok := escapeRune(r); ok {
			b.WriteString(e)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// runeWidth is the columns r takes once escaped (1 for a plain rune).
func runeWidth(r rune) int {
	if e, ok := escapeRune(r); ok {
		return len(e)
	}
	return 1
}
