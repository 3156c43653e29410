// Package ruledocs renders a rule's documentation from its registry
// metadata. The same text backs docs/rules/<rule>.md, `--explain RULE` and
// the help of SARIF rule descriptors, so the three can never disagree.
package ruledocs

//go:generate go run -tags devtools ./gendocs -root ../..

import (
	"fmt"
	"strings"

	"github.com/webhooklint/webhooklint/rules"
)

// RepoURL is where the generated documentation is published; SARIF
// helpUri and the docs' cross links point into it.
const RepoURL = "https://github.com/webhooklint/webhooklint"

// DocPath is the repository-relative path of a rule's page.
func DocPath(name string) string { return "docs/rules/" + name + ".md" }

// SimulateFinding names the findings `webhooklint simulate` reports in
// the formats made for findings (SARIF, JUnit, GitLab…). No rule makes
// them, so their link is the command's page, not a rule's.
const SimulateFinding = "simulate"

// HelpURI is the absolute link to a rule's page on the default branch.
func HelpURI(name string) string {
	if name == SimulateFinding {
		return RepoURL + "/blob/main/docs/simulate.md"
	}
	return RepoURL + "/blob/main/" + DocPath(name)
}

// Markdown renders a rule's page. The output ends with exactly one newline.
func Markdown(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Name)
	fmt.Fprintf(&b, "%s.\n\n", r.Summary)
	fmt.Fprintf(&b, "| Default severity | Category | Since |\n|---|---|---|\n| %s | %s | %s |\n",
		r.Severity, r.Category, r.Since)
	section(&b, "Why", r.Doc.Why)
	ex := r.Examples()
	if ex.Bad != "" {
		fmt.Fprintf(&b, "\n## Bad\n\n%s", fence(lang(ex), ex.Bad))
	}
	if ex.Good != "" {
		fmt.Fprintf(&b, "\n## Good\n\n%s", fence(lang(ex), ex.Good))
	}
	section(&b, "Fix", r.Doc.Fix)
	if len(r.Fixes) > 0 {
		b.WriteString("\n## Automatic fixes\n\n`webhooklint --fix` makes the safe ones, `--unsafe-fixes` the others too; " +
			"`--diff` shows them.\n\n| Fix | Applicability | Why |\n|---|---|---|\n")
		for _, f := range r.Fixes {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", f.Title, f.Applicability, oneLine(f.Why))
		}
	}
	if len(r.Options) > 0 {
		b.WriteString("\n## Options\n\nSet in `.webhooklint.yaml`:\n\n")
		b.WriteString(fence("yaml", optionsExample(r)))
		b.WriteString("\n| Option | Default | Meaning |\n|---|---|---|\n")
		for _, o := range r.Options {
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", o.Name, formatValue(o.Default), oneLine(o.Doc))
		}
	}
	// Problems with the input itself (syntax, suppressions) are fixed, not
	// suppressed.
	if r.Category != rules.Input {
		fmt.Fprintf(&b, "\n## Suppress\n\nOn the line before the offending field, with a reason:\n\n%s", fence("yaml",
			fmt.Sprintf("# webhooklint:ignore %s -- <why this is fine here>\n", r.Name)))
		fmt.Fprintf(&b, "\nor for a whole object, in `metadata.annotations`:\n\n%s", fence("yaml",
			fmt.Sprintf("webhooklint.io/ignore: \"%s: <why this is fine here>\"\n", r.Name)))
	}
	if len(r.Doc.Sources) > 0 {
		b.WriteString("\n## Sources\n\n")
		for _, s := range r.Doc.Sources {
			fmt.Fprintf(&b, "- %s\n", strings.TrimSpace(s))
		}
	}
	return b.String()
}

// Text renders the same content as Markdown for readers without a
// Markdown renderer (SARIF help.text): headings become plain lines and
// examples are indented instead of fenced.
func Text(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s.\n", r.Name, r.Summary)
	fmt.Fprintf(&b, "Default severity: %s. Category: %s. Since: %s.\n", r.Severity, r.Category, r.Since)
	textSection(&b, "Why", r.Doc.Why)
	ex := r.Examples()
	if ex.Bad != "" {
		fmt.Fprintf(&b, "\nBad:\n%s", indent(ex.Bad))
	}
	if ex.Good != "" {
		fmt.Fprintf(&b, "\nGood:\n%s", indent(ex.Good))
	}
	textSection(&b, "Fix", r.Doc.Fix)
	if len(r.Fixes) > 0 {
		b.WriteString("\nAutomatic fixes (--fix makes the safe ones, --unsafe-fixes the others too):\n")
		for _, f := range r.Fixes {
			fmt.Fprintf(&b, "  %s (%s): %s\n", f.Title, f.Applicability, oneLine(f.Why))
		}
	}
	if len(r.Options) > 0 {
		b.WriteString("\nOptions (.webhooklint.yaml, rules." + r.Name + ".options):\n")
		for _, o := range r.Options {
			fmt.Fprintf(&b, "  %s (default %s): %s\n", o.Name, formatValue(o.Default), oneLine(o.Doc))
		}
	}
	if r.Category != rules.Input {
		fmt.Fprintf(&b, "\nSuppress: # webhooklint:ignore %s -- <reason>\n", r.Name)
	}
	if len(r.Doc.Sources) > 0 {
		b.WriteString("\nSources:\n")
		for _, s := range r.Doc.Sources {
			fmt.Fprintf(&b, "  - %s\n", strings.TrimSpace(s))
		}
	}
	return b.String()
}

func section(b *strings.Builder, title, body string) {
	body = strings.TrimSpace(body)
	if body == "" {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n%s\n", title, body)
}

func textSection(b *strings.Builder, title, body string) {
	body = strings.TrimSpace(body)
	if body == "" {
		return
	}
	fmt.Fprintf(b, "\n%s:\n%s\n", title, body)
}

// fence wraps an example in a code block, choosing a fence longer than
// any backtick run inside it so examples may contain fences themselves.
// lang is the code fence language of a rule's examples.
func lang(ex rules.Examples) string {
	if ex.Lang == "" {
		return "yaml"
	}
	return ex.Lang
}

func fence(lang, body string) string {
	body = strings.TrimRight(body, "\n") + "\n"
	f := "```"
	for strings.Contains(body, f) {
		f += "`"
	}
	return f + lang + "\n" + body + f + "\n"
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// formatValue prints an option default the way it is written in YAML.
func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", v)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func optionsExample(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rules:\n  %s:\n    options:\n", r.Name)
	for _, o := range r.Options {
		fmt.Fprintf(&b, "      %s: %s\n", o.Name, formatValue(o.Default))
	}
	return b.String()
}
