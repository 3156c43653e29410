package rules

import (
	"github.com/google/cel-go/cel"
	celtypes "github.com/google/cel-go/common/types"
)

// The expression kinds of admission policies, as the API server's
// compiler sees them: each expression with the types it must return. The
// server declares them in its policy plugins (k8s.io/apiserver
// pkg/admission/plugin/policy/validating and mutating/patch), which also
// hold the admission plugins and link client-go; these carry only what
// the compiler reads, with the same return types, so that the go vet
// analyzer, which links this package, stays free of client-go.

// validationExpr is a validation's expression: a bool.
type validationExpr string

func (e validationExpr) GetExpression() string  { return string(e) }
func (validationExpr) ReturnTypes() []*cel.Type { return []*cel.Type{cel.BoolType} }

// messageExpr is a validation's messageExpression: a string.
type messageExpr string

func (e messageExpr) GetExpression() string  { return string(e) }
func (messageExpr) ReturnTypes() []*cel.Type { return []*cel.Type{cel.StringType} }

// auditAnnotationExpr is an audit annotation's valueExpression: a string,
// or null for no annotation.
type auditAnnotationExpr string

func (e auditAnnotationExpr) GetExpression() string { return string(e) }
func (auditAnnotationExpr) ReturnTypes() []*cel.Type {
	return []*cel.Type{cel.StringType, cel.NullType}
}

// variableExpr is a named variable: any type.
type variableExpr struct{ name, expression string }

func (v variableExpr) GetExpression() string  { return v.expression }
func (v variableExpr) GetName() string        { return v.name }
func (variableExpr) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType, cel.DynType} }

// jsonPatchExpr is a mutation's JSONPatch expression: a list of JSONPatch
// objects.
type jsonPatchExpr string

func (e jsonPatchExpr) GetExpression() string { return string(e) }
func (jsonPatchExpr) ReturnTypes() []*cel.Type {
	return []*cel.Type{cel.ListType(celtypes.NewObjectType("JSONPatch"))}
}

// applyConfigurationExpr is a mutation's ApplyConfiguration expression: an
// Object{…} literal.
type applyConfigurationExpr string

func (e applyConfigurationExpr) GetExpression() string { return string(e) }
func (applyConfigurationExpr) ReturnTypes() []*cel.Type {
	return []*cel.Type{celtypes.NewObjectType("Object")}
}
