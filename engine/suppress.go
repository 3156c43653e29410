package engine

import (
	"fmt"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// Directive is the word that starts an inline suppression, in a YAML or Go
// comment: `# webhooklint:ignore <rule>[,<rule>…] -- <reason>`.
const Directive = "webhooklint:ignore"

// Parsed is a suppression as written: the rules it names and its reason.
type Parsed struct {
	Rules     []string
	Reason    string
	hasReason bool
}

// Parse reads what follows the directive (or an ignore annotation's
// entry): rule names separated by commas or blanks, then sep ("--" in a
// comment, ":" in the annotation) and the reason. A comment after the
// directive is the front end's to cut off.
func Parse(text, sep string) Parsed {
	names, reason, hasReason := strings.Cut(text, sep)
	return Parsed{
		Rules:     strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }),
		Reason:    strings.TrimSpace(reason),
		hasReason: hasReason,
	}
}

// Invalid returns the message of the invalid-suppression finding for a
// suppression that names no rule, an unknown rule or no reason, and "" for
// a valid one. comment is how the front end's comments start ("#" in
// YAML, "//" in Go), for the example the message gives.
func (p Parsed) Invalid(comment string) string {
	switch {
	case len(p.Rules) == 0:
		return "suppression names no rule; write `" + comment + " " + Directive + " <rule> -- <reason>`"
	case !p.hasReason || p.Reason == "":
		return fmt.Sprintf("suppression of %s gives no reason; write `-- <why this is safe>` after the rule name", strings.Join(p.Rules, ", "))
	}
	for _, r := range p.Rules {
		if _, ok := rules.Lookup(r); !ok {
			return fmt.Sprintf("suppression names unknown rule %q (see webhooklint --list-rules)", r)
		}
	}
	return ""
}

// Suppression is one suppression a front end found, ready to apply.
type Suppression struct {
	Rules []string
	// Covers reports whether the suppression silences a finding (one of
	// Rules, where it is written).
	Covers func(*diag.Diagnostic) bool
	// At is where the suppression is written, as the front end positions
	// findings (file, position, path, object); Apply reports it there.
	At diag.Diagnostic
	// What it is (for the message): "suppression", or "configured
	// suppression" for one from the configuration file.
	What string
	// Where is what it is written on, with its preposition: "on this
	// node", "in any file".
	Where string
}

// Apply drops the findings a suppression covers. It returns the findings
// kept, in their order and in a slice of their own (ds is left as it is), and an unused-suppression finding for each
// suppression that covered none, unless that rule or one the suppression
// names is disabled (then silence proves nothing).
func Apply(ds []diag.Diagnostic, sups []*Suppression, sel *Selection) (kept, unused []diag.Diagnostic) {
	if len(sups) == 0 {
		return ds, nil
	}
	used := make([]bool, len(sups))
	kept = make([]diag.Diagnostic, 0, len(ds))
	for _, d := range ds {
		suppressed := false
		for i, s := range sups {
			if s.Covers(&d) {
				used[i], suppressed = true, true
			}
		}
		if !suppressed {
			kept = append(kept, d)
		}
	}
	if !sel.On(rules.UnusedSuppressionRule) {
		return kept, nil
	}
	sev := sel.SeverityOf(rules.MustLookup(rules.UnusedSuppressionRule))
	for i, s := range sups {
		if used[i] || !allOn(sel, s.Rules) {
			continue
		}
		d := s.At
		d.Severity, d.Rule = sev, rules.UnusedSuppressionRule
		d.Message = fmt.Sprintf("%s of %s matches no finding %s; remove it", s.What, strings.Join(s.Rules, ", "), s.Where)
		unused = append(unused, d)
	}
	return kept, unused
}

func allOn(sel *Selection, names []string) bool {
	for _, n := range names {
		if !sel.On(n) {
			return false
		}
	}
	return true
}
