// Package config reads .webhooklint.yaml: which rules run and how severe
// they are, rule options, the target Kubernetes version and platform,
// paths to skip and how to render Helm charts.
// Every mistake in the file is an error with a position, because a typo
// that silently disables nothing is worse than no configuration at all.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/webhooklint/webhooklint/internal/suggest"
	"github.com/webhooklint/webhooklint/manifest"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// FileName is the configuration file looked for; FileNameAlt is accepted
// too, but two in one folder is an error.
const (
	FileName    = ".webhooklint.yaml"
	FileNameAlt = ".webhooklint.yml"
)

// Config is a loaded configuration. The zero value is the default: every
// rule enabled at its default severity.
type Config struct {
	// File is the path it was read from; empty for the default.
	File string
	// KubeVersion is the target version; zero when the file does not set it.
	KubeVersion rules.KubeVersion
	// Provider is the platform the manifests are for; empty when unset.
	Provider rules.Provider
	// Rules holds per-rule settings by rule name.
	Rules map[string]Rule
	// Ignore holds path globs, relative to Dir.
	Ignore []string
	// Dir is the folder globs are relative to (the file's folder).
	Dir string
	// InlineSuppressions is false when the file forbids suppressions in
	// the manifests (inlineSuppressions: false): CI that wants every
	// exception in this reviewed file. Nil when the file does not say.
	InlineSuppressions *bool
	// Suppressions silence single rules on matching files.
	Suppressions []Suppression
	// Charts say how to render particular charts.
	Charts []Chart
	// Units say what is deployed together (units:).
	Units Units
	// paths are the files and folders the file names, for Load to check.
	paths []namedPath
}

// namedPath is a file or folder a configuration names, where it names it.
type namedPath struct {
	at   diag.Span
	what string // the key, as errors name it ("units entries entry")
	path string // as written
	abs  string // resolved against the file's folder
}

// Rule is the configuration of one rule; nil fields keep the default.
type Rule struct {
	Enabled  *bool
	Severity *diag.Severity
	Options  map[string]any
}

// Error is a mistake in a configuration file, with its position.
type Error struct {
	diag.Span
	Msg string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	if e.Column == 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Errors collects every mistake of a file, so one run shows them all.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Load reads and checks a configuration file, and that the files and
// folders it names exist: a path mistyped in units or charts would
// otherwise state nothing, silently, and the run would fall back to the
// assumptions the file was written to replace.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	var errs Errors
	for _, np := range c.paths {
		if _, err := os.Stat(np.abs); errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, &Error{Span: np.at, Msg: fmt.Sprintf("%s %q does not exist; fix the path or remove it", np.what, np.path)})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// Parse checks the content of a configuration file named path.
func Parse(path string, data []byte) (*Config, error) {
	c := &Config{File: path, Dir: filepath.Dir(path), Rules: map[string]Rule{}}
	p := &parser{file: path}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // an empty file is the default configuration
		}
		line, msg := manifest.SyntaxErrorLine(data, err)
		return nil, &Error{Span: diag.Span{File: path, Line: line}, Msg: "not valid YAML: " + msg}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(&extra, "a configuration file holds one YAML document")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	p.mapping(root, "the configuration", func(key, val *yaml.Node) {
		switch key.Value {
		case "kubeVersion":
			if s, ok := p.scalar(val, "kubeVersion", "!!str", "!!float", "!!int"); ok {
				v, err := rules.ParseKubeVersion(s)
				if err != nil {
					p.errorf(val, "kubeVersion: %v", err)
				}
				c.KubeVersion = v
			}
		case "provider":
			if s, ok := p.scalar(val, "provider", "!!str"); ok {
				v, err := rules.ParseProvider(s)
				if err != nil {
					p.errorf(val, "provider: %v", err)
				}
				c.Provider = v
			}
		case "ignore":
			p.sequence(val, "ignore", func(item *yaml.Node) {
				if s, ok := p.scalar(item, "ignore entry", "!!str"); ok {
					if err := checkGlob(s); err != nil {
						p.errorf(item, "ignore: %v", err)
						return
					}
					c.Ignore = append(c.Ignore, s)
				}
			})
		case "inlineSuppressions":
			if v, ok := p.scalar(val, "inlineSuppressions", "!!bool"); ok {
				b := v == "true"
				c.InlineSuppressions = &b
			}
		case "suppressions":
			p.sequence(val, "suppressions", func(item *yaml.Node) {
				if s, ok := p.suppression(item); ok {
					c.Suppressions = append(c.Suppressions, s)
				}
			})
		case "charts":
			c.Charts = append(c.Charts, p.charts(val, c.Dir)...)
		case "units":
			c.Units = p.units(val, c.Dir)
		case "rules":
			p.mapping(val, "rules", func(k, v *yaml.Node) {
				r, ok := lookupRule(k.Value)
				if !ok {
					p.errorf(k, "unknown rule %q%s", k.Value, suggest.Hint(k.Value, ruleNames()))
					return
				}
				c.Rules[r.Name] = p.rule(r, v)
			})
		default:
			p.errorf(key, "unknown key %q (want kubeVersion, provider, ignore, inlineSuppressions, suppressions, charts, units or rules)", key.Value)
		}
	})
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	c.paths = p.paths
	return c, nil
}

type parser struct {
	file  string
	errs  Errors
	paths []namedPath
}

// path records a file or folder the configuration names at n, written as
// s and resolved against dir, and returns it resolved.
func (p *parser) path(n *yaml.Node, what, s, dir string) string {
	abs := filepath.Join(dir, filepath.FromSlash(s))
	p.paths = append(p.paths, namedPath{at: diag.Span{File: p.file, Line: n.Line, Column: n.Column}, what: what, path: s, abs: abs})
	return abs
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, &Error{Span: diag.Span{File: p.file, Line: n.Line, Column: n.Column}, Msg: fmt.Sprintf(format, args...)})
}

// mapping calls f for each key of a mapping node, reporting duplicate
// keys and non-mappings.
func (p *parser) mapping(n *yaml.Node, what string, f func(key, val *yaml.Node)) {
	n = resolveAlias(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping, not %s", what, describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolveAlias(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, "keys of %s must be strings", what)
			continue
		}
		if seen[k.Value] {
			p.errorf(k, "duplicate key %q in %s", k.Value, what)
			continue
		}
		seen[k.Value] = true
		f(k, v)
	}
}

func (p *parser) sequence(n *yaml.Node, what string, f func(item *yaml.Node)) {
	n = resolveAlias(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list, not %s", what, describe(n))
		return
	}
	for _, item := range n.Content {
		f(resolveAlias(item))
	}
}

// scalar returns a scalar's text when its tag is one of tags.
func (p *parser) scalar(n *yaml.Node, what string, tags ...string) (string, bool) {
	n = resolveAlias(n)
	if n.Kind != yaml.ScalarNode || !slices.Contains(tags, n.Tag) {
		p.errorf(n, "%s must be %s, not %s", what, tagNames(tags), describe(n))
		return "", false
	}
	return n.Value, true
}

func (p *parser) rule(r *rules.Rule, n *yaml.Node) Rule {
	var rc Rule
	n = resolveAlias(n)
	// A bare boolean is shorthand for enabled.
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		b := n.Value == "true"
		rc.Enabled = &b
		return rc
	}
	p.mapping(n, "rules."+r.Name, func(k, v *yaml.Node) {
		switch k.Value {
		case "enabled":
			if s, ok := p.scalar(v, "enabled", "!!bool"); ok {
				b := s == "true"
				rc.Enabled = &b
			}
		case "severity":
			if s, ok := p.scalar(v, "severity", "!!str"); ok {
				sev, err := diag.ParseSeverity(s)
				if err != nil {
					p.errorf(v, "severity: %v", err)
					return
				}
				rc.Severity = &sev
			}
		case "options":
			rc.Options = map[string]any{}
			p.mapping(v, "rules."+r.Name+".options", func(ok, ov *yaml.Node) {
				def, found := r.OptionDefault(ok.Value)
				if !found {
					p.errorf(ok, "rule %s has no option %q%s", r.Name, ok.Value, suggest.Hint(ok.Value, optionNames(r)))
					return
				}
				if val, good := p.optionValue(r.Name+"."+ok.Value, def, ov); good {
					rc.Options[ok.Value] = val
				}
			})
		default:
			p.errorf(k, "unknown key %q in rules.%s (want enabled, severity or options)", k.Value, r.Name)
		}
	})
	return rc
}

// optionValue decodes an option value with the type of its default.
func (p *parser) optionValue(what string, def any, n *yaml.Node) (any, bool) {
	n = resolveAlias(n)
	switch def.(type) {
	case int:
		s, ok := p.scalar(n, what, "!!int")
		if !ok {
			return nil, false
		}
		v, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			p.errorf(n, "%s: %v", what, err)
			return nil, false
		}
		return int(v), true
	case bool:
		s, ok := p.scalar(n, what, "!!bool")
		return s == "true", ok
	case string:
		return p.scalar(n, what, "!!str")
	case []string:
		out := []string{}
		p.sequence(n, what, func(item *yaml.Node) {
			if s, ok := p.scalar(item, what+" entry", "!!str"); ok {
				out = append(out, s)
			}
		})
		return out, true
	}
	p.errorf(n, "%s: option type %T is not configurable", what, def)
	return nil, false
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		}
		return fmt.Sprintf("%s %s", strings.TrimPrefix(n.Tag, "!!"), n.Value)
	}
	return "an unexpected node"
}

func tagNames(tags []string) string {
	names := map[string]string{"!!str": "a string", "!!int": "an integer", "!!bool": "true or false", "!!float": "a number"}
	var out []string
	for _, t := range tags {
		if names[t] != "" && !slices.Contains(out, names[t]) {
			out = append(out, names[t])
		}
	}
	if len(out) > 1 && tags[0] == "!!str" {
		return out[0] // "1.37" may be written unquoted; say what is meant
	}
	return strings.Join(out, " or ")
}

func ruleNames() []string {
	var out []string
	for _, r := range allRules() {
		out = append(out, r.Name)
	}
	return out
}

func optionNames(r *rules.Rule) []string {
	var out []string
	for _, o := range r.Options {
		out = append(out, o.Name)
	}
	return out
}

// The registry, replaceable in tests so they do not depend on which rules
// exist.
var (
	allRules   = rules.All
	lookupRule = rules.Lookup
)
