package engine

import (
	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// Selection is which rules run and at what severity: the command line's
// --enable/--disable/--severity, the configuration's rules section, the
// analyzer's -disable flag.
type Selection struct {
	// Enabled reports whether a rule runs; nil enables every rule.
	Enabled func(rule string) bool
	// Severity overrides rules' default severities.
	Severity map[string]diag.Severity
}

// On reports whether the rule is enabled. A nil Selection enables every
// rule.
func (s *Selection) On(rule string) bool {
	return s == nil || s.Enabled == nil || s.Enabled(rule)
}

// SeverityOf is the severity a rule's findings are reported at: the
// override, else the rule's default.
func (s *Selection) SeverityOf(r *rules.Rule) diag.Severity {
	if s != nil {
		if sev, ok := s.Severity[r.Name]; ok {
			return sev
		}
	}
	return r.Severity
}

// Rules are the enabled rules among rs that have(r) a check for the kind
// of object at hand.
func (s *Selection) Rules(rs []*rules.Rule, has func(*rules.Rule) bool) []*rules.Rule {
	var out []*rules.Rule
	for _, r := range rs {
		if has(r) && s.On(r.Name) {
			out = append(out, r)
		}
	}
	return out
}

// Select drops the findings of disabled rules and applies severity
// overrides, in place. A finding demoted to info because the unit is a
// kustomize base without its overlay keeps info: the override is for the
// deployed configuration, which the base is not.
func (s *Selection) Select(ds []diag.Diagnostic) []diag.Diagnostic {
	kept := ds[:0]
	for _, d := range ds {
		if !s.On(d.Rule) {
			continue
		}
		if sev, ok := s.Severity[d.Rule]; ok && !d.DependsOnOverlay {
			d.Severity = sev
		}
		kept = append(kept, d)
	}
	return kept
}
