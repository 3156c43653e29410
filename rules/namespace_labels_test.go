package rules

import (
	"reflect"
	"testing"
)

func TestNamespaceLabelCommand(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want map[string]map[string]string
	}{
		{[]string{"kubectl", "label", "ns", "gatekeeper-system", "admission.gatekeeper.sh/ignore=no-self-managing", "--overwrite"},
			map[string]map[string]string{"gatekeeper-system": {"admission.gatekeeper.sh/ignore": "no-self-managing"}}},
		{[]string{"/bin/sh", "-c", "kubectl label namespace a b x=1 y=2 && kubectl get ns"},
			map[string]map[string]string{"a": {"x": "1", "y": "2"}, "b": {"x": "1", "y": "2"}}},
		// Removals, selections and other commands set nothing.
		{[]string{"kubectl", "label", "ns", "a", "x-"}, nil},
		{[]string{"kubectl", "label", "ns", "--all", "x=1"}, nil},
		{[]string{"kubectl", "label", "pods", "a", "x=1"}, nil},
		{[]string{"--label", "ns"}, nil},
	} {
		if got := namespaceLabelCommand(tc.argv); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.argv, got, tc.want)
		}
	}
}

func TestAssumedNamespaceLabels(t *testing.T) {
	in := &Inventory{Workloads: []Workload{{Containers: []Container{{Args: []string{"label", "ns", "own", "skip=yes"}}}}}}
	if got := in.AssumedNamespaceLabels("own"); got.Partial || got.Set["skip"] != "yes" || got.Set[LabelMetadataName] != "own" {
		t.Errorf("own: %+v", got)
	}
	if got := in.AssumedNamespaceLabels("other"); got.Partial || len(got.Set) != 1 {
		t.Errorf("other: %+v", got)
	}
	if !in.describesNamespaces() || (&Inventory{}).describesNamespaces() {
		t.Error("describesNamespaces")
	}
}
