package config

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/engine"
	"github.com/webhooklint/webhooklint/internal/suggest"

	"github.com/webhooklint/webhooklint/manifest"
)

// Suppression silences the findings of one rule from the configuration
// file: in the files its globs match (every file when it has none), and on
// one webhook when it names one. It works when inline suppressions are
// forbidden, so a team that reviews its configuration file can still
// accept a finding, in one reviewed place, with a reason.
type Suppression struct {
	Rule    string
	Paths   []string // globs relative to the configuration's folder
	Webhook string
	Reason  string
	// Span is where the entry is written (line and column; the file is
	// the configuration's).
	diag.Span
}

func (p *parser) suppression(n *yaml.Node) (Suppression, bool) {
	s := Suppression{Span: diag.Span{Line: n.Line, Column: n.Column}}
	ok := true
	p.mapping(n, "suppressions entry", func(k, v *yaml.Node) {
		switch k.Value {
		case "rule":
			name, good := p.scalar(v, "rule", "!!str")
			if !good {
				ok = false
				return
			}
			r, found := lookupRule(name)
			if !found {
				p.errorf(v, "unknown rule %q%s", name, suggest.Hint(name, ruleNames()))
				ok = false
				return
			}
			s.Rule = r.Name
		case "paths":
			p.sequence(v, "paths", func(item *yaml.Node) {
				if g, good := p.scalar(item, "paths entry", "!!str"); good {
					if err := checkGlob(g); err != nil {
						p.errorf(item, "paths: %v", err)
						ok = false
						return
					}
					s.Paths = append(s.Paths, g)
				}
			})
		case "webhook":
			s.Webhook, _ = p.scalar(v, "webhook", "!!str")
		case "reason":
			s.Reason, _ = p.scalar(v, "reason", "!!str")
			s.Reason = strings.TrimSpace(s.Reason)
		default:
			p.errorf(k, "unknown key %q in a suppressions entry (want rule, paths, webhook or reason)", k.Value)
			ok = false
		}
	})
	if n.Kind != yaml.MappingNode {
		return s, false
	}
	if s.Rule == "" && ok {
		p.errorf(n, "a suppressions entry needs a rule")
		ok = false
	}
	if s.Reason == "" && ok {
		p.errorf(n, "the suppression of %s gives no reason; add reason: <why this is safe>", s.Rule)
		ok = false
	}
	return s, ok
}

// covers reports whether s applies to d.
func (c *Config) covers(s Suppression, d diag.Diagnostic) bool {
	if d.Rule != s.Rule || (s.Webhook != "" && d.Webhook != s.Webhook) {
		return false
	}
	if len(s.Paths) == 0 {
		return true
	}
	segs, ok := c.relSegments(d.File)
	if !ok {
		return false
	}
	for _, g := range s.Paths {
		pat := strings.Split(strings.Trim(path.Clean(g), "/"), "/")
		if manifest.MatchSegments(append(pat, "**"), segs) {
			return true
		}
	}
	return false
}

// relSegments splits a file's path relative to the configuration's folder;
// ok is false for files outside it, stdin and live objects.
func (c *Config) relSegments(file string) ([]string, bool) {
	if file == "" || file == "-" {
		return nil, false
	}
	absFile, err1 := filepath.Abs(file)
	absDir, err2 := filepath.Abs(c.Dir)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	rel, err := filepath.Rel(absDir, absFile)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, false
	}
	return strings.Split(filepath.ToSlash(rel), "/"), true
}

// Suppress drops the findings the configuration's suppressions cover and
// adds an unused-suppression finding, positioned in the configuration
// file, for each entry that covers none (unless that rule, or the
// suppressed one, is disabled: then silence proves nothing). The result is
// sorted.
func (c *Config) Suppress(ds []diag.Diagnostic) []diag.Diagnostic {
	if c == nil || len(c.Suppressions) == 0 {
		return ds
	}
	sups := make([]*engine.Suppression, len(c.Suppressions))
	for i, s := range c.Suppressions {
		where := "any file"
		if len(s.Paths) > 0 {
			where = strings.Join(s.Paths, ", ")
		}
		if s.Webhook != "" {
			where = fmt.Sprintf("webhook %q in %s", s.Webhook, where)
		}
		sups[i] = &engine.Suppression{
			Rules: []string{s.Rule}, What: "configured suppression", Where: "in " + where,
			At:     diag.Diagnostic{Span: s.In(c.File)},
			Covers: func(d *diag.Diagnostic) bool { return c.covers(s, *d) },
		}
	}
	kept, unused := engine.Apply(ds, sups, &engine.Selection{Enabled: c.Enabled, Severity: c.Severities()})
	return diag.Normalize(append(kept, unused...))
}
