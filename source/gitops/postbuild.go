package gitops

import (
	"maps"

	sigsyaml "sigs.k8s.io/yaml"
)

// clusterScoped are the kinds a destination namespace is not given to.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "StorageClass": true,
	"CustomResourceDefinition": true, "APIService": true, "PriorityClass": true,
	"ClusterRole": true, "ClusterRoleBinding": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"MutatingAdmissionPolicy": true, "MutatingAdmissionPolicyBinding": true,
	"CertificateSigningRequest": true, "RuntimeClass": true, "IngressClass": true,
	"CSIDriver": true, "VolumeAttachment": true, "ClusterIssuer": true,
}

// Applied is a built object after the controller's own steps.
type Applied struct {
	YAML      []byte
	Namespace string
	// Uses are the postBuild variables the object reads.
	Uses []Use
}

// Apply does to one built object what the controller does after the
// build: Flux substitutes postBuild variables (unless the object opts out
// with kustomize.toolkit.fluxcd.io/substitute: disabled) and sets
// commonMetadata on its metadata; Argo CD applies a namespaced object
// without a namespace in destination.namespace. Vars from a source that is
// not in the repository stay as written.
func (e *Entry) Apply(kind, namespace string, y []byte) (Applied, error) {
	out := Applied{YAML: y, Namespace: namespace}
	var obj map[string]any
	if err := sigsyaml.Unmarshal(y, &obj); err != nil {
		return out, err
	}
	md, _ := obj["metadata"].(map[string]any)
	if e.Substitute && len(e.Vars) > 0 && !optedOut(md) {
		// Flux substitutes nothing when no variable has a value.
		text, uses := Substitute(string(y), e.Vars, func(string) bool { return e.partialVars() })
		out.Uses = uses
		if text != string(y) {
			obj = nil
			if err := sigsyaml.Unmarshal([]byte(text), &obj); err != nil {
				return out, err
			}
			md, _ = obj["metadata"].(map[string]any)
		}
	}
	changed := out.Uses != nil
	k := e.Kustomization
	if k.MetadataOnly && (len(k.Labels) > 0 || len(k.Annotations) > 0) {
		if md == nil {
			md = map[string]any{}
			obj["metadata"] = md
		}
		merge(md, "labels", k.Labels)
		merge(md, "annotations", k.Annotations)
		changed = true
	}
	if e.DefaultNamespace != "" && namespace == "" && !clusterScoped[kind] && md != nil {
		md["namespace"] = e.DefaultNamespace
		out.Namespace = e.DefaultNamespace
		changed = true
	}
	if !changed {
		return out, nil
	}
	y, err := sigsyaml.Marshal(obj)
	if err != nil {
		return out, err
	}
	out.YAML = y
	return out, nil
}

// partialVars reports whether some substituteFrom object was not found:
// then a variable without a value may have one there.
func (e *Entry) partialVars() bool {
	for _, p := range e.Problems {
		if p.Warning {
			return true
		}
	}
	return false
}

func optedOut(md map[string]any) bool {
	for _, field := range []string{"labels", "annotations"} {
		if m, ok := md[field].(map[string]any); ok && m[DisabledAnnotation] == "disabled" {
			return true
		}
	}
	return false
}

func merge(md map[string]any, field string, add map[string]string) {
	if len(add) == 0 {
		return
	}
	m, _ := md[field].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	for k, v := range maps.All(add) {
		m[k] = v
	}
	md[field] = m
}
