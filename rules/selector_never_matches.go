package rules

import (
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "selector-never-matches",
		Summary:  "an objectSelector or namespaceSelector that can never match, so the webhook is never called",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server accepts selectors that no object can satisfy and never calls the webhook:\n\n" +
				"* A non-empty objectSelector is evaluated against the object of the request. CONNECT requests " +
				"(`pods/exec`, `pods/attach`, `pods/portforward`, `pods/proxy`, `services/proxy`, `nodes/proxy`) " +
				"carry an options object (PodExecOptions…) without metadata, so an objectSelector never matches " +
				"them, not even one that only excludes labels. The labels of the pod are not consulted.\n" +
				"* Requirements on one key that contradict each other: `In [a]` with `NotIn [a]`, `Exists` or " +
				"`In`/matchLabels with `DoesNotExist`, `In` lists without a common value.\n" +
				"* A namespaceSelector requiring `kubernetes.io/metadata.name` to be absent: the API server sets " +
				"that label on every namespace.\n\n" +
				"The webhook looks active but enforces nothing: an objectSelector that never matches keeps it " +
				"from being called at all (for CONNECT requests, whose options objects carry no labels, when its " +
				"rules match only those), a namespaceSelector that never matches keeps it from being called " +
				"for namespaced resources.",
			Fix: "Remove the contradicting requirement. For CONNECT requests drop the objectSelector and narrow " +
				"with matchConditions on `request` (namespace, name, userInfo), or look the pod up in the webhook.",
			Sources: []string{
				docsWebhooks + "#matching-requests-objectselector",
				srcObjectMatcher,
				srcNamespaceStrategy,
			},
		},
		Check: checkSelectorNeverMatches,
	})
}

func checkSelectorNeverMatches(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		checkUnsatisfiable(p, w, "objectSelector", w.ObjectSelector)
		checkUnsatisfiable(p, w, "namespaceSelector", w.NamespaceSelector)
		if !selectorEmpty(w.ObjectSelector) && neverMatches("objectSelector", w.ObjectSelector).reason == "" {
			checkLabelFreeRequests(p, w)
		}
	}
}

func checkUnsatisfiable(p *Pass, w *Webhook, field string, s *metav1.LabelSelector) {
	if selectorEmpty(s) {
		return
	}
	if v := neverMatches(field, s); v.reason != "" {
		reportAtKey(p, 0, w.FieldPath(field), "%s: %s can never match: %s; %s", quoteWebhook(w), field, v.reason, v.fix)
	}
}

// selectorVerdict is why a selector can never match, and its fix; an
// empty reason when it can.
type selectorVerdict struct{ reason, fix string }

// selectorVerdicts holds neverMatches' verdicts by the field and the
// selector's content, which a folder of configurations repeats.
var selectorVerdicts = contentMemo[selectorVerdict]{limit: 4096}

// neverMatches judges a non-empty selector of field.
func neverMatches(field string, s *metav1.LabelSelector) selectorVerdict {
	k := borrowKey()
	defer keyBuffers.Put(k)
	k.str(field)
	k.selector(s)
	return selectorVerdicts.get(*k, func() selectorVerdict {
		reqs := selectorRequirements(s, nil) // the verdict names no path
		v := selectorVerdict{unsatisfiable(reqs), "remove one of them"}
		if v.reason == "" && field == "namespaceSelector" {
			v = selectorVerdict{absentNamespaceName(reqs), "remove it"}
		}
		return v
	})
}

// absentNamespaceName finds a requirement that the name label be absent;
// the API server labels every namespace with its name (webhook-facts B12).
func absentNamespaceName(reqs []labelRequirement) string {
	for _, r := range reqs {
		if r.Key == "kubernetes.io/metadata.name" && r.Operator == metav1.LabelSelectorOpDoesNotExist {
			return fmt.Sprintf("%q excludes every namespace", r.String())
		}
	}
	return ""
}

// checkLabelFreeRequests reports an objectSelector that can only meet
// request objects without metadata: for the whole webhook when that is all
// its rules match, else for each rule that only matches such requests.
func checkLabelFreeRequests(p *Pass, w *Webhook) {
	type deadRule struct {
		index int
		what  []string
	}
	var dead []deadRule
	labeled := false
	for i, r := range w.Rules {
		matches, withMeta, what := ruleObjects(r)
		switch {
		case withMeta:
			labeled = true
		case matches:
			dead = append(dead, deadRule{i, what})
		}
	}
	if len(dead) == 0 {
		return
	}
	if !labeled {
		var what []string
		for _, d := range dead {
			for _, s := range d.what {
				if !slices.Contains(what, s) {
					what = append(what, s)
				}
			}
		}
		reportAtKey(p, 0, w.FieldPath("objectSelector"), "%s: objectSelector never matches its rules' CONNECT "+
			"requests (%s); narrow with matchConditions", quoteWebhook(w), listNames(what, 1))
		return
	}
	for _, d := range dead {
		p.Reportf(w.FieldPath("rules").Index(d.index), "%s: objectSelector never matches this rule's CONNECT "+
			"requests (%s); move them to a webhook without one", quoteWebhook(w), listNames(d.what, 1))
	}
}

// ruleObjects says whether a rule can match any request, whether some of
// those requests carry an object with metadata (labels), and names the
// (sub)resources whose requests do not.
func ruleObjects(r admissionv1.RuleWithOperations) (matches, withMeta bool, labelFree []string) {
	t := ExpandRule(r)
	for _, res := range t.Builtin {
		matches = true
		if res.HasObjectMeta() {
			withMeta = true
		} else {
			labelFree = append(labelFree, res.String())
		}
	}
	if t.Others {
		matches = true
		if slices.ContainsFunc(r.Operations, func(op admissionv1.OperationType) bool { return op != admissionv1.Connect }) {
			withMeta = true
		} else {
			labelFree = append(labelFree, "CONNECT requests of other APIs")
		}
	}
	return matches, withMeta, labelFree
}

// reachesLabelledObjects reports whether an objectSelector on w can ever be
// evaluated against labels: some rule matches a request whose object has
// metadata. Webhooks without rules count as reaching them (their rules are
// often filled in at runtime).
func reachesLabelledObjects(w *Webhook) bool {
	if len(w.Rules) == 0 {
		return true
	}
	for _, r := range w.Rules {
		if _, withMeta, _ := ruleObjects(r); withMeta {
			return true
		}
	}
	return false
}
