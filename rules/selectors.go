package rules

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Label selector reasoning shared by the selector rules. It works on the
// selector as written (matchLabels and matchExpressions), not on a parsed
// labels.Selector, so findings can point at the requirement at fault.

// selectorEmpty reports whether a selector matches everything, as the API
// server treats nil and {} alike.
func selectorEmpty(s *metav1.LabelSelector) bool {
	return s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0)
}

// labelRequirement is one condition on one key, with where it was written.
type labelRequirement struct {
	Key      string
	Operator metav1.LabelSelectorOperator
	Values   []string
	Path     *field.Path // matchLabels[key] or matchExpressions[i]
	// MatchLabels is set for a key=value entry of matchLabels.
	MatchLabels bool
}

// String renders the requirement the way a reader would write it.
func (r labelRequirement) String() string {
	switch r.Operator {
	case metav1.LabelSelectorOpExists:
		return r.Key + " Exists"
	case metav1.LabelSelectorOpDoesNotExist:
		return r.Key + " DoesNotExist"
	}
	if r.MatchLabels {
		return r.Key + "=" + r.Values[0]
	}
	return fmt.Sprintf("%s %s [%s]", r.Key, r.Operator, strings.Join(r.Values, ", "))
}

// selectorRequirements flattens a selector into requirements: matchLabels
// first (sorted by key, they are a map), then matchExpressions in order.
func selectorRequirements(s *metav1.LabelSelector, path *field.Path) []labelRequirement {
	if s == nil {
		return nil
	}
	var out []labelRequirement
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, labelRequirement{
			Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{s.MatchLabels[k]},
			Path: path.Child("matchLabels").Key(k), MatchLabels: true,
		})
	}
	for i, e := range s.MatchExpressions {
		out = append(out, labelRequirement{
			Key: e.Key, Operator: e.Operator, Values: e.Values,
			Path: path.Child("matchExpressions").Index(i),
		})
	}
	return out
}

// unsatisfiable explains why no label set can satisfy all requirements, or
// returns "" when some can. Requirements combine with AND, so it is enough
// to look at each key on its own.
func unsatisfiable(reqs []labelRequirement) string {
	type keyState struct {
		in           sets.Set[string] // nil: no In yet
		notIn        sets.Set[string]
		mustExist    *labelRequirement
		mustBeAbsent *labelRequirement
		first        []labelRequirement
	}
	byKey := map[string]*keyState{}
	var order []string
	for _, r := range reqs {
		st := byKey[r.Key]
		if st == nil {
			st = &keyState{notIn: sets.New[string]()}
			byKey[r.Key] = st
			order = append(order, r.Key)
		}
		st.first = append(st.first, r)
		switch r.Operator {
		case metav1.LabelSelectorOpIn:
			if len(r.Values) == 0 {
				continue // rejected by the server; not this rule's business
			}
			vals := sets.New(r.Values...)
			if st.in == nil {
				st.in = vals
			} else {
				st.in = st.in.Intersection(vals)
			}
			if st.mustExist == nil {
				st.mustExist = &r
			}
		case metav1.LabelSelectorOpNotIn:
			st.notIn.Insert(r.Values...)
		case metav1.LabelSelectorOpExists:
			if st.mustExist == nil {
				st.mustExist = &r
			}
		case metav1.LabelSelectorOpDoesNotExist:
			if st.mustBeAbsent == nil {
				st.mustBeAbsent = &r
			}
		}
	}
	for _, k := range order {
		st := byKey[k]
		if st.mustExist != nil && st.mustBeAbsent != nil {
			return fmt.Sprintf("%q contradicts %q", st.mustExist.String(), st.mustBeAbsent.String())
		}
		if st.in != nil && st.in.Difference(st.notIn).Len() == 0 {
			var parts []string
			for _, r := range st.first {
				if r.Operator == metav1.LabelSelectorOpIn || r.Operator == metav1.LabelSelectorOpNotIn {
					parts = append(parts, fmt.Sprintf("%q", r.String()))
				}
			}
			return "no value satisfies " + strings.Join(parts, " and ")
		}
	}
	return ""
}
