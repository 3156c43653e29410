package rules

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What the cross-object rules (self-deadlock, system-critical-scope) take a
// namespace's labels to be. The API server sets one label on every
// namespace, kubernetes.io/metadata.name; any other label is there only if
// something puts it there: the Namespace object of the unit, or a workload
// of the unit that labels namespaces (Gatekeeper's post-install Job runs
// `kubectl label ns gatekeeper-system admission.gatekeeper.sh/ignore=…`).
// A namespace the unit says nothing more about carries only its name, so an
// exclusion keyed on any other label excludes nothing until someone labels
// it by hand (webhook-facts B12, D16).

// AssumedNamespaceLabels is the label set of namespace ns, known in full:
// its Namespace in the unit, or only the name label the server sets, plus
// the labels the unit's workloads set on it.
func (in *Inventory) AssumedNamespaceLabels(ns string) *Labels {
	l := in.NamespaceLabels(ns).Assume()
	set := unitNamespaceLabels(in)[ns]
	if len(set) == 0 {
		return l
	}
	merged := make(map[string]string, len(l.Set)+len(set))
	for k, v := range l.Set {
		merged[k] = v
	}
	for k, v := range set {
		merged[k] = v
	}
	return KnownLabels(merged)
}

// describesNamespaces reports whether the unit says anything about
// namespace labels beyond the name label (Namespace objects, workloads that
// label namespaces): units that do not can share simulations process-wide.
func (in *Inventory) describesNamespaces() bool {
	return in != nil && (len(in.Namespaces) > 0 || len(unitNamespaceLabels(in)) > 0)
}

// unitNamespaceLabels collects, once per unit, the labels its workloads'
// containers set on namespaces with `kubectl label ns|namespace|namespaces
// NAME... KEY=VALUE...`, by namespace.
func unitNamespaceLabels(in *Inventory) map[string]map[string]string {
	if in == nil || len(in.Workloads) == 0 {
		return nil
	}
	type key struct{}
	return in.Derived(key{}, func() any {
		var out map[string]map[string]string
		for _, w := range in.Workloads {
			for _, c := range w.Containers {
				for ns, set := range namespaceLabelCommand(slices.Concat(c.Command, c.Args)) {
					if out == nil {
						out = map[string]map[string]string{}
					}
					if out[ns] == nil {
						out[ns] = map[string]string{}
					}
					for k, v := range set {
						out[ns][k] = v
					}
				}
			}
		}
		return out
	}).(map[string]map[string]string)
}

// namespaceLabelCommand reads the `label ns NAME... KEY=VALUE...` commands
// of a container's command line (a shell script in one argument counts
// too): the labels set, by namespace. Label removals (KEY-) and selections
// (-l, --all) are not labels anyone can rely on and are skipped.
func namespaceLabelCommand(argv []string) map[string]map[string]string {
	var words []string
	for _, a := range argv {
		words = append(words, strings.Fields(a)...)
	}
	var out map[string]map[string]string
	for i := 0; i+1 < len(words); i++ {
		if words[i] != "label" || !slices.Contains([]string{"ns", "namespace", "namespaces"}, words[i+1]) {
			continue
		}
		var names []string
		set := map[string]string{}
		j := i + 2
		for ; j < len(words); j++ {
			w := strings.Trim(words[j], `"'`)
			if w == ";" || w == "&&" || w == "||" || w == "|" || strings.HasSuffix(w, ";") {
				break
			}
			switch k, v, ok := strings.Cut(w, "="); {
			case strings.HasPrefix(w, "-"):
				if w == "--all" || w == "-A" || w == "--all-namespaces" || w == "-l" || strings.HasPrefix(w, "--selector") {
					names = nil // a selection, not named namespaces
					set = map[string]string{}
					j = len(words)
				}
			case ok && k != "":
				set[k] = v
			case !ok && !strings.HasSuffix(w, "-") && !strings.ContainsAny(w, "{}$"):
				names = append(names, w)
			}
		}
		for _, ns := range names {
			if len(set) == 0 {
				break
			}
			if out == nil {
				out = map[string]map[string]string{}
			}
			out[ns] = set
		}
		i = j - 1
	}
	return out
}

// unsetOptOutKeys lists the keys of sel's opt-out requirements (NotIn,
// DoesNotExist) other than the name label that l does not carry: the labels
// someone would have to set for the selector to exclude the namespace.
func unsetOptOutKeys(sel *metav1.LabelSelector, l *Labels) []string {
	if sel == nil || l == nil {
		return nil
	}
	var keys []string
	for _, e := range sel.MatchExpressions {
		if e.Key == LabelMetadataName || slices.Contains(keys, e.Key) {
			continue
		}
		if e.Operator != metav1.LabelSelectorOpNotIn && e.Operator != metav1.LabelSelectorOpDoesNotExist {
			continue
		}
		if _, set := l.Set[e.Key]; !set {
			keys = append(keys, e.Key)
		}
	}
	return keys
}
