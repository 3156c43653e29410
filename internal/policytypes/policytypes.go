// Package policytypes runs the API server's type checker for
// ValidatingAdmissionPolicies (what the controller manager writes into
// status.typeChecking). It lives apart from rules because the checker's
// package is the admission plugin's, which links client-go; the CLI and
// the cluster mode hand it to the rules through rules.Settings, and the go
// vet analyzer, started once per package of a build, does without it.
package policytypes

import (
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Schemas resolves the kinds a policy matches and its paramKind to their
// resources and OpenAPI schemas, as a cluster's discovery would.
type Schemas interface {
	meta.RESTMapper
	ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error)
}

// Check type-checks vap's expressions against the kinds of schemas. A
// panic of the checker becomes a warning on the policy, not a crash.
func Check(vap *admissionv1.ValidatingAdmissionPolicy, schemas Schemas) (out []admissionv1.ExpressionWarning) {
	defer func() {
		if r := recover(); r != nil {
			out = []admissionv1.ExpressionWarning{{FieldRef: "spec", Warning: fmt.Sprintf("type checker panicked: %v", r)}}
		}
	}()
	return (&validating.TypeChecker{SchemaResolver: schemas, RestMapper: schemas}).Check(vap)
}
