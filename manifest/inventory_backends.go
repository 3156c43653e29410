package manifest

import (
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

// addBackendDetails fills in a workload's replica count and pod summary.
func addBackendDetails(src *source, obj *yaml.Node, w *rules.Workload, b *budget) {
	w.Replicas, w.ReplicasDefaulted = replicasOf(obj, w.Object.Kind)
	if path, ok := podSpecPaths[w.Object.Kind]; ok {
		if n := walk(obj, path...); n != nil && n.Kind == yaml.MappingNode {
			var spec corev1.PodSpec
			if decodeLenient(src, n, &spec, b) {
				w.Pod = rules.SummarizePod(w.PodLabels, &spec)
			}
		}
	}
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
