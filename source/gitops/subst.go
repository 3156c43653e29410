package gitops

import (
	"strings"

	"github.com/webhooklint/webhooklint/internal/lazy"
)

// DisabledAnnotation turns substitution off for one object, as a label or
// an annotation with the value "disabled".
const DisabledAnnotation = "kustomize.toolkit.fluxcd.io/substitute"

// Use is one variable a substitution read.
type Use struct {
	Name string
	// Set is false when the variable has no value: Flux writes the
	// default, or nothing.
	Set bool
}

var varName = lazy.Regexp(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// Substitute fills in ${var} as kustomize-controller's postBuild does
// (drone/envsubst, not strict): ${var} is the variable's value, or empty
// when it has none; ${var:=default}, ${var:-default}, ${var=default} and
// ${var-default} give a default when it has none or is empty; $${var} is
// written as ${var}; $var without braces is left alone. A variable in
// unknown (its source is not in the repository) is left as written, so
// the placeholder finding says it was not checked rather than judging an
// empty value Flux would not see. It returns the text and the variables
// read, in order.
func Substitute(text string, vars map[string]Var, unknown func(string) bool) (string, []Use) {
	var b strings.Builder
	var uses []Use
	for {
		i := strings.Index(text, "${")
		if i < 0 {
			b.WriteString(text)
			return b.String(), uses
		}
		if i > 0 && text[i-1] == '$' {
			// $${var}: an escaped literal.
			b.WriteString(text[:i-1])
			end := strings.IndexByte(text[i:], '}')
			if end < 0 {
				b.WriteString(text[i:])
				return b.String(), uses
			}
			b.WriteString(text[i : i+end+1])
			text = text[i+end+1:]
			continue
		}
		end := strings.IndexByte(text[i:], '}')
		if end < 0 {
			b.WriteString(text)
			return b.String(), uses
		}
		b.WriteString(text[:i])
		expr := text[i+2 : i+end]
		whole := text[i : i+end+1]
		text = text[i+end+1:]
		name, def, hasDef := splitDefault(expr)
		if !varName().MatchString(name) {
			b.WriteString(whole) // not a variable Flux fills (${#x}, ${x/a/b})
			continue
		}
		v, set := vars[name]
		if !set && unknown != nil && unknown(name) {
			b.WriteString(whole)
			continue
		}
		uses = append(uses, Use{Name: name, Set: set})
		switch {
		case set && (v.Value != "" || !hasDef):
			b.WriteString(v.Value)
		case hasDef:
			b.WriteString(def)
		}
	}
}

// splitDefault splits `name:=default` (and :-, =, -) into its parts.
func splitDefault(expr string) (name, def string, ok bool) {
	for i, c := range expr {
		if c == ':' || c == '=' || c == '-' {
			rest := expr[i:]
			for _, op := range []string{":=", ":-", "=", "-"} {
				if d, found := strings.CutPrefix(rest, op); found {
					return expr[:i], d, true
				}
			}
			return expr, "", false
		}
	}
	return expr, "", false
}
