package rules

import (
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

func TestRequestShapes(t *testing.T) {
	rule := func(ops []admissionv1.OperationType, resources ...string) admissionv1.RuleWithOperations {
		return admissionv1.RuleWithOperations{Operations: ops, Rule: admissionv1.Rule{Resources: resources}}
	}
	all := []admissionv1.OperationType{admissionv1.OperationAll}
	for _, tc := range []struct {
		rules []admissionv1.RuleWithOperations
		want  string
	}{
		{nil, "[]"},
		{[]admissionv1.RuleWithOperations{rule(all, "pods")}, "[{CREATE false} {UPDATE false} {DELETE false}]"},
		{[]admissionv1.RuleWithOperations{rule(all, "pods/exec")}, "[{CREATE true} {UPDATE true} {DELETE true} {CONNECT true}]"},
		{[]admissionv1.RuleWithOperations{rule([]admissionv1.OperationType{admissionv1.Connect}, "pods")}, "[]"},
		{[]admissionv1.RuleWithOperations{rule([]admissionv1.OperationType{admissionv1.Create}, "*/*")}, "[{CREATE false} {CREATE true}]"},
		{[]admissionv1.RuleWithOperations{
			rule([]admissionv1.OperationType{admissionv1.Create}, "pods"),
			rule([]admissionv1.OperationType{admissionv1.Connect}, "pods/attach"),
		}, "[{CREATE false} {CONNECT true}]"},
	} {
		got := fmt.Sprint(requestShapes(tc.rules))
		if got != tc.want {
			t.Errorf("requestShapes(%v) = %s, want %s", tc.rules, got, tc.want)
		}
	}
}
