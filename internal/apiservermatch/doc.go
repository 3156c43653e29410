// Package apiservermatch checks webhooklint's request simulation
// (rules.Webhook.Simulate) against the API server's own predicates and
// matchCondition evaluator from k8s.io/apiserver v0.37.2, on random rules,
// selectors, conditions and requests.
//
// It is a module of its own so that k8s.io/apiserver and client-go stay out
// of webhooklint's dependencies. Run it with:
//
//	cd internal/apiservermatch && go test ./...
package apiservermatch
