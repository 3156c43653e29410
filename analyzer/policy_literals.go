package analyzer

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/rules"
)

// Literals of the admission policy kinds (ValidatingAdmissionPolicy,
// MutatingAdmissionPolicy and their bindings, admissionregistration/v1
// only: the YAML front end lints no other version) are judged like webhook
// configurations, by the rules' CheckPolicy, each literal as a unit of its
// own. Rules that relate a policy to its bindings or params find nothing
// there, and the typed-expression check is not run: it needs the API
// server's type checker, which webhookvet does not link
// (rules.Settings.TypeCheckPolicy stays nil).
//
// A policy's fields depend on each other more than a webhook's do (params
// are declared by paramKind, each variable is typed by the ones before
// it), so a finding under spec is reported only when every value written
// under spec is known, and only metadata assigned later is plumbing
// (policyAssignedChange).

// isPolicyLiteralKind reports whether kind, from literalKind, is one of
// the policy kinds.
func isPolicyLiteralKind(kind string) bool {
	return rules.IsPolicyKind(rules.V1, kind)
}

// policyOf builds the rules' view of a policy literal.
func policyOf(e *evaluator, lit *ast.CompositeLit, kind string) *rules.Policy {
	pol, target := rules.NewPolicy(rules.V1, kind)
	v := reflect.ValueOf(target).Elem()
	e.eval(lit, v, nil)
	pol.Meta = v.FieldByName("ObjectMeta").Interface().(metav1.ObjectMeta)
	return pol
}

// checkPolicyLiteral runs the policy rules on one literal and places their
// findings on its fields.
func checkPolicyLiteral(pass *analysis.Pass, r *reporter, prs []*rules.Rule, s *rules.Settings,
	lit *ast.CompositeLit, kind string, stack []ast.Node, done map[*ast.CompositeLit]bool) {
	e := &evaluator{pass: pass, nodes: map[string]*litNode{}, done: done}
	pol := policyOf(e, lit, kind)
	obj := pol.Object()
	obj.Name = fmt.Sprintf("%s@%d", obj.Name, lit.Pos())
	done[lit] = true
	changed := changesAfter(pass, stack, policyAssignedChange)
	specKnown := e.complete("spec")
	inv := &rules.Inventory{Policies: []*rules.Policy{pol}}
	at := func() (token.Pos, token.Pos) { return lit.Pos(), lit.Lbrace + 1 }
	for _, rule := range prs {
		runGuarded(rule, "admission policy", r, at, func() {
			rules.NewPolicyPass(rule, pol, inv, s, func(f rules.Finding) {
				if d, ok := onType(f, lit); ok {
					r.finding(d, f, inv, obj)
					return
				}
				if !specKnown && (f.Path == "spec" || strings.HasPrefix(f.Path, "spec.")) {
					return
				}
				if d, ok := e.place(f, changed); ok {
					r.finding(d, f, inv, obj)
				}
			}).Run()
		})
	}
}

// policyAssignedChange classifies an assignment to a policy literal's
// x.A.B…: plumbing only when A is its metadata (ObjectMeta, or a field
// promoted from it). Deeper names are not plumbing here, unlike in a
// webhook: a binding's paramRef.name decides what it is bound to.
func policyAssignedChange(lhs ast.Expr) change {
	if fields := assignedFields(lhs); len(fields) > 0 && metadataFields[fields[len(fields)-1]] {
		return plumbingChanged
	}
	return semanticChanged
}

// metadataFields are ObjectMeta and the fields a policy type promotes
// from it that operators set at start-up.
var metadataFields = map[string]bool{"ObjectMeta": true, "Name": true, "Namespace": true, "Labels": true, "Annotations": true}
