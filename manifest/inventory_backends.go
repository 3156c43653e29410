package manifest

import (
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/webhooklint/webhooklint/rules"
)

// What the backend checks (ports, availability) read from workloads,
// PodDisruptionBudgets and HorizontalPodAutoscalers. Only small summaries are kept: the pod spec is
// decoded, summarized by rules.SummarizePod (which the live front end uses
// too, so files and clusters are judged alike) and dropped.

// podSpecPaths says where each workload kind keeps its pod spec.
var podSpecPaths = map[string][]string{
	"Deployment":            {"spec", "template", "spec"},
	"StatefulSet":           {"spec", "template", "spec"},
	"DaemonSet":             {"spec", "template", "spec"},
	"ReplicaSet":            {"spec", "template", "spec"},
	"ReplicationController": {"spec", "template", "spec"},
	"Job":                   {"spec", "template", "spec"},
	"CronJob":               {"spec", "jobTemplate", "spec", "template", "spec"},
	"Pod":                   {"spec"},
}

// addBackendDetails fills in a workload's replica count, pod summary and
// the Secrets its pods need.
func addBackendDetails(src *source, obj *yaml.Node, w *rules.Workload, b *budget) {
	w.Replicas, w.ReplicasDefaulted = replicasOf(obj, w.Object.Kind)
	if path, ok := podSpecPaths[w.Object.Kind]; ok {
		if n := walk(obj, path...); n != nil && n.Kind == yaml.MappingNode {
			var spec corev1.PodSpec
			if decodeLenient(src, summarizedPodSpec(n), &spec, b) {
				w.Pod = rules.SummarizePod(w.PodLabels, &spec)
			}
			w.Secrets = requiredSecrets(mapValue(n, "volumes"))
		}
	}
}

// requiredSecrets names the Secrets of secret volumes and projected
// volumes' sources, in order, leaving out those marked optional: a pod
// starts without them, so they say nothing of what it needs.
func requiredSecrets(volumes *yaml.Node) []string {
	if volumes == nil || volumes.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	add := func(secret *yaml.Node, nameKey string) {
		name := scalarField(secret, nameKey)
		if name != "" && scalarField(secret, "optional") != "true" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, v := range volumes.Content {
		add(mapValue(v, "secret"), "secretName")
		if sources := mapValue(mapValue(v, "projected"), "sources"); sources != nil && sources.Kind == yaml.SequenceNode {
			for _, src := range sources.Content {
				add(mapValue(src, "secret"), "name")
			}
		}
	}
	return out
}

// summarizedPodSpec is a pod spec node cut down to what SummarizePod
// reads. Decoding whole pod specs (volumes, env, resources) took a fifth of
// a run over a repository of Deployments, to keep a few ports and labels.
func summarizedPodSpec(spec *yaml.Node) *yaml.Node {
	out := only(spec, "containers", "initContainers", "affinity", "topologySpreadConstraints")
	for i := 1; i < len(out.Content); i += 2 {
		if k := resolve(out.Content[i-1]); k == nil || (k.Value != "containers" && k.Value != "initContainers") {
			continue
		}
		list := resolve(out.Content[i])
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		cut := &yaml.Node{Kind: yaml.SequenceNode, Tag: list.Tag, Line: list.Line, Column: list.Column}
		for _, c := range list.Content {
			if rc := resolve(c); rc != nil && rc.Kind == yaml.MappingNode {
				c = only(rc, "name", "ports", "readinessProbe", "restartPolicy")
			}
			cut.Content = append(cut.Content, c)
		}
		out.Content[i] = cut
	}
	return out
}

// only returns a copy of mapping m with just the keys given, and its merge
// keys (<<), whose values may hold them.
func only(m *yaml.Node, keys ...string) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: m.Tag, Line: m.Line, Column: m.Column}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := resolve(m.Content[i])
		if k != nil && k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || slices.Contains(keys, k.Value)) {
			out.Content = append(out.Content, m.Content[i], m.Content[i+1])
		}
	}
	return out
}

// replicasOf reads spec.replicas of the kinds that keep a fixed number of
// pods; unset means 1, as the API server defaults it.
func replicasOf(obj *yaml.Node, kind string) (replicas int32, defaulted bool) {
	switch kind {
	case "Deployment", "StatefulSet", "ReplicaSet", "ReplicationController":
	case "Pod":
		return 1, false
	default:
		return 0, false
	}
	n := walk(obj, "spec", "replicas")
	if n == nil || isNull(n) {
		return 1, true
	}
	if n.Kind != yaml.ScalarNode {
		return 0, false
	}
	v, err := strconv.ParseInt(n.Value, 10, 32)
	if err != nil || v < 0 {
		return 0, false // a placeholder or a mistake: not a number to judge
	}
	return int32(v), false
}

// readDisruptionBudget summarizes a PodDisruptionBudget (policy/v1, or the
// removed policy/v1beta1 whose fields are the same).
func readDisruptionBudget(src *source, obj *yaml.Node, d *Document, b *budget) *rules.DisruptionBudget {
	var pdb policyv1.PodDisruptionBudget
	if !decodeLenient(src, obj, &pdb, b) {
		return nil
	}
	return &rules.DisruptionBudget{
		Namespace: d.Namespace, Name: d.Name, Selector: pdb.Spec.Selector,
		MinAvailable: pdb.Spec.MinAvailable, MaxUnavailable: pdb.Spec.MaxUnavailable,
	}
}

// readAutoscaler summarizes a HorizontalPodAutoscaler (any autoscaling
// version: scaleTargetRef and minReplicas are the same in all).
func readAutoscaler(obj *yaml.Node, d *Document) *rules.Autoscaler {
	ref := walk(obj, "spec", "scaleTargetRef")
	if ref == nil || ref.Kind != yaml.MappingNode {
		return nil
	}
	a := &rules.Autoscaler{Namespace: d.Namespace, Name: d.Name,
		TargetKind: scalarField(ref, "kind"), TargetName: scalarField(ref, "name"), MinReplicas: 1}
	if n := walk(obj, "spec", "minReplicas"); n != nil && n.Kind == yaml.ScalarNode && !isNull(n) {
		v, err := strconv.ParseInt(n.Value, 10, 32)
		if err != nil || v < 0 {
			a.MinReplicas = 0 // not a number to judge
		} else {
			a.MinReplicas = int32(v)
		}
	}
	return a
}

// MarkReplicasFromValues records that a workload document's replica count
// (or an autoscaler document's minReplicas) is written by a template
// action (a chart value), not in the manifest: findings about it then
// describe the values rendered, not the chart. givenBy names what the
// user gave that set the value (`--set replicas=1`), "" for the chart's
// own default. It does nothing for other documents.
func (d *Document) MarkReplicasFromValues(givenBy string) {
	if w := d.inventory().workload; w != nil {
		w.ReplicasFromValues, w.ReplicasGivenBy = givenBy == "", givenBy
	}
	if a := d.inventory().scaler; a != nil {
		a.MinReplicasFromValues, a.MinReplicasGivenBy = givenBy == "", givenBy
	}
}

// MarkCABundleRegenerated records that webhook i's caBundle differs
// between two renders of the chart (a CA generated at render time):
// between renders as at helm upgrade (upgrade), or only between renders
// without a cluster, of a chart that calls lookup (lookup). It does
// nothing for other documents.
func (d *Document) MarkCABundleRegenerated(i int, upgrade, lookup bool) {
	if d.Config != nil && i >= 0 && i < len(d.Config.Webhooks) {
		w := &d.Config.Webhooks[i]
		w.CABundleRegenerated = w.CABundleRegenerated || upgrade
		w.CABundleLookup = w.CABundleLookup || lookup
	}
}

// MarkTimeoutFromValues records that webhook i's timeoutSeconds is written
// by a template action (a chart value), given by the user as givenBy
// names, or the chart's default (""). It does nothing for other
// documents.
func (d *Document) MarkTimeoutFromValues(i int, givenBy string) {
	if d.Config != nil && i >= 0 && i < len(d.Config.Webhooks) {
		w := &d.Config.Webhooks[i]
		w.TimeoutFromValues, w.TimeoutGivenBy = givenBy == "", givenBy
	}
}
