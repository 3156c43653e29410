package config

import (
	"github.com/webhooklint/webhooklint/diag"
)

// Enabled reports whether rule runs; rules not mentioned run.
func (c *Config) Enabled(rule string) bool {
	if c == nil {
		return true
	}
	if r, ok := c.Rules[rule]; ok && r.Enabled != nil {
		return *r.Enabled
	}
	return true
}

// Severities returns the overridden severities by rule name.
func (c *Config) Severities() map[string]diag.Severity {
	out := map[string]diag.Severity{}
	if c == nil {
		return out
	}
	for name, r := range c.Rules {
		if r.Severity != nil {
			out[name] = *r.Severity
		}
	}
	return out
}

// Options returns the user-set rule options, in the shape of
// rules.Settings.Options.
func (c *Config) Options() map[string]map[string]any {
	out := map[string]map[string]any{}
	if c == nil {
		return out
	}
	for name, r := range c.Rules {
		if len(r.Options) > 0 {
			out[name] = r.Options
		}
	}
	return out
}
