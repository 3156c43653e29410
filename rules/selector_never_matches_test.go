package rules

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestUnsatisfiable(t *testing.T) {
	expr := func(key string, op metav1.LabelSelectorOperator, vals ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: vals}
	}
	cases := []struct {
		name  string
		sel   metav1.LabelSelector
		unsat bool
	}{
		{"empty", metav1.LabelSelector{}, false},
		{"in notin other value", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			expr("a", metav1.LabelSelectorOpIn, "x", "y"), expr("a", metav1.LabelSelectorOpNotIn, "x")}}, false},
		{"in notin same values", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			expr("a", metav1.LabelSelectorOpIn, "x", "y"), expr("a", metav1.LabelSelectorOpNotIn, "y", "x")}}, true},
		{"exists notin", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			expr("a", metav1.LabelSelectorOpExists), expr("a", metav1.LabelSelectorOpNotIn, "x")}}, false},
		{"notin doesnotexist", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			expr("a", metav1.LabelSelectorOpNotIn, "x"), expr("a", metav1.LabelSelectorOpDoesNotExist)}}, false},
		{"matchLabels doesnotexist", metav1.LabelSelector{MatchLabels: map[string]string{"a": "x"},
			MatchExpressions: []metav1.LabelSelectorRequirement{expr("a", metav1.LabelSelectorOpDoesNotExist)}}, true},
		{"different keys", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			expr("a", metav1.LabelSelectorOpExists), expr("b", metav1.LabelSelectorOpDoesNotExist)}}, false},
		{"in intersection empty", metav1.LabelSelector{MatchLabels: map[string]string{"a": "x"},
			MatchExpressions: []metav1.LabelSelectorRequirement{expr("a", metav1.LabelSelectorOpIn, "y")}}, true},
	}
	for _, c := range cases {
		got := unsatisfiable(selectorRequirements(&c.sel, field.NewPath("s")))
		if (got != "") != c.unsat {
			t.Errorf("%s: unsatisfiable = %q, want unsat=%v", c.name, got, c.unsat)
		}
	}
}
