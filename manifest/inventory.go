package manifest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// inventoryItem is what cross-object rules need from a non-webhook object.
type inventoryItem struct {
	service   *corev1.Service
	namespace *corev1.Namespace
	workload  *rules.Workload
	budget    *rules.DisruptionBudget
	scaler    *rules.Autoscaler
	role      *rules.Role        // inventory_rbac.go
	binding   *rules.RoleBinding // inventory_rbac.go
	csv       string             // an OLM ClusterServiceVersion's name
	// labels are the object's own labels (and a workload's pod template's).
	labels map[string]string
	// helmHook is set on an object with a helm.sh/hook annotation: Helm
	// creates it before or after the release's objects, not with them.
	helmHook bool
	crd      *apiextensionsv1.CustomResourceDefinition // inventory_crd.go
	cert     *rules.Certificate
}

// podTemplatePaths says where each workload kind keeps the labels of the
// pods it creates, and what the API server creates on its behalf (these
// are the requests a webhook could block).
var podTemplatePaths = map[string]struct {
	labels  []string
	creates []rules.GroupResource
}{
	"Deployment":            {[]string{"spec", "template", "metadata", "labels"}, []rules.GroupResource{{Group: "apps", Resource: "replicasets"}, {Resource: "pods"}}},
	"StatefulSet":           {[]string{"spec", "template", "metadata", "labels"}, []rules.GroupResource{{Resource: "pods"}}},
	"DaemonSet":             {[]string{"spec", "template", "metadata", "labels"}, []rules.GroupResource{{Resource: "pods"}}},
	"ReplicaSet":            {[]string{"spec", "template", "metadata", "labels"}, []rules.GroupResource{{Resource: "pods"}}},
	"ReplicationController": {[]string{"spec", "template", "metadata", "labels"}, []rules.GroupResource{{Resource: "pods"}}},
	"Job":                   {[]string{"spec", "template", "metadata", "labels"}, []rules.GroupResource{{Resource: "pods"}}},
	"CronJob":               {[]string{"spec", "jobTemplate", "spec", "template", "metadata", "labels"}, []rules.GroupResource{{Group: "batch", Resource: "jobs"}, {Resource: "pods"}}},
	"Pod":                   {[]string{"metadata", "labels"}, []rules.GroupResource{{Resource: "pods"}}},
}

// readInventory extracts cross-object data leniently: these objects are
// context, not what webhooklint lints, so decoding problems are ignored.
func readInventory(src *source, obj *yaml.Node, apiVersion, kind string, d *Document, b *budget) inventoryItem {
	if b.exhausted {
		return inventoryItem{}
	}
	defer func() {
		if b.exhausted {
			d.Diagnostics = append(d.Diagnostics, d.diagAt(src.rangeOf(obj), rules.SchemaRule, diag.Error, "", budgetMessage))
		}
	}()
	if crd, ok := readCRD(src, obj, apiVersion, kind, b); ok {
		return inventoryItem{crd: crd}
	}
	switch {
	case strings.HasPrefix(apiVersion, "cert-manager.io/") && kind == "Certificate":
		// Only what references to it need: where it is, its Secret and
		// the names it is issued for.
		spec := mapValue(obj, "spec")
		c := &rules.Certificate{Namespace: d.Namespace, Name: d.Name,
			SecretName: scalarField(spec, "secretName"), CommonName: scalarField(spec, "commonName"),
			DNSNames: scalarList(mapValue(spec, "dnsNames")), IsCA: scalarField(spec, "isCA") == "true"}
		if c.Name != "" {
			return inventoryItem{cert: c}
		}
	case apiVersion == "v1" && kind == "Service":
		var s corev1.Service
		if decodeLenient(src, obj, &s, b) {
			return inventoryItem{service: &s}
		}
	case apiVersion == "v1" && kind == "Namespace":
		var n corev1.Namespace
		if decodeLenient(src, obj, &n, b) {
			return inventoryItem{namespace: &n}
		}
	case (apiVersion == "policy/v1" || apiVersion == "policy/v1beta1") && kind == "PodDisruptionBudget":
		return inventoryItem{budget: readDisruptionBudget(src, obj, d, b)}
	case strings.HasPrefix(apiVersion, "autoscaling/") && kind == "HorizontalPodAutoscaler":
		return inventoryItem{scaler: readAutoscaler(obj, d)}
	case strings.HasPrefix(apiVersion, "rbac.authorization.k8s.io/") && (kind == "ClusterRole" || kind == "Role"):
		return inventoryItem{role: readRole(src, obj, d, b)}
	case strings.HasPrefix(apiVersion, "rbac.authorization.k8s.io/") && (kind == "ClusterRoleBinding" || kind == "RoleBinding"):
		return inventoryItem{binding: readRoleBinding(src, obj, d, b)}
	case strings.HasPrefix(apiVersion, "operators.coreos.com/") && kind == "ClusterServiceVersion":
		return inventoryItem{csv: d.Name}
	}
	t, ok := podTemplatePaths[kind]
	if !ok || (kind == "Pod" && apiVersion != "v1") {
		return inventoryItem{}
	}
	labels := map[string]string{}
	if m := walk(obj, t.labels...); m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := resolve(m.Content[i]), resolve(m.Content[i+1])
			if k != nil && v != nil && k.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode {
				labels[k.Value] = v.Value
			}
		}
	}
	// The pod spec sits beside the template's metadata.
	spec := walk(obj, append(slices.Clone(t.labels[:len(t.labels)-2]), "spec")...)
	w := &rules.Workload{
		Object:     diag.Object{APIVersion: apiVersion, Kind: kind, Name: d.Name, Namespace: d.Namespace},
		PodLabels:  labels,
		Creates:    t.creates,
		Containers: append(readContainers(mapValue(spec, "initContainers")), readContainers(mapValue(spec, "containers"))...),
		// serviceAccount is the deprecated spelling the API server still
		// copies into serviceAccountName.
		ServiceAccount: cmp.Or(scalarField(spec, "serviceAccountName"), scalarField(spec, "serviceAccount"), "default"),
		HelmTestHook:   isHelmTestHook(scalarField(walk(obj, "metadata", "annotations"), "helm.sh/hook")),
	}
	addBackendDetails(src, obj, w, b)
	return inventoryItem{workload: w}
}

// readContainers reads image, command and args of a container list,
// skipping what is not plain text.
func readContainers(list *yaml.Node) []rules.Container {
	list = resolve(list)
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	var out []rules.Container
	for _, c := range list.Content {
		c = resolve(c)
		if c == nil || c.Kind != yaml.MappingNode {
			continue
		}
		out = append(out, rules.Container{
			Image:   scalarField(c, "image"),
			Command: scalarList(mapValue(c, "command")),
			Args:    scalarList(mapValue(c, "args")),
		})
	}
	return out
}

// scalarList reads a list of plain values, skipping what is not one.
func scalarList(n *yaml.Node) []string {
	n = resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, e := range n.Content {
		if e = resolve(e); e != nil && e.Kind == yaml.ScalarNode {
			out = append(out, e.Value)
		}
	}
	return out
}

func walk(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n = mapValue(n, k); n == nil {
			return nil
		}
	}
	return n
}

// decodeLenient fills into (a pointer) as the API server's JSON decoding
// of obj would, ignoring unknown fields; false when it fails. Documents
// without aliases take the direct way first.
func decodeLenient(src *source, obj *yaml.Node, into any, b *budget) bool {
	d := &decoder{src: src, budget: b}
	if b != nil && b.plain {
		v := reflect.ValueOf(into).Elem()
		if (direct{d}).value(obj, v) {
			return true
		}
		v.SetZero()
	}
	return d.viaJSON(obj, into)
}

// viaJSON is decodeLenient's long way: obj's generic value, its JSON, and
// encoding/json.
func (d *decoder) viaJSON(obj *yaml.Node, into any) bool {
	v, err := d.generic(obj)
	if err != nil {
		return false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return json.Unmarshal(raw, into) == nil
}

// Inventory gathers, across all files of one run, what cross-object rules
// look at. The order follows the files and documents, so it is stable.
func Inventory(files []*File) *rules.Inventory {
	inv := &rules.Inventory{}
	var certFiles, workloadFiles []string
	for _, f := range files {
		for _, d := range f.Docs {
			item := d.inventory()
			if d.Config == nil {
				addLabels(inv, d)
			}
			if d.Config == nil && d.Policy == nil && d.Kind != "" {
				inv.Objects = append(inv.Objects, rules.ObjectRef{
					APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, Labels: item.labels,
					AfterConfigs: len(inv.Configs), HelmHook: item.helmHook,
				})
				if len(files) > 1 {
					inv.Objects[len(inv.Objects)-1].File = f.Name
				}
			}
			switch {
			case d.Config != nil:
				inv.Configs = append(inv.Configs, d.Config)
			case d.Policy != nil:
				inv.Policies = append(inv.Policies, d.Policy)
			case item.service != nil:
				inv.Services = append(inv.Services, item.service)
			case item.namespace != nil:
				inv.Namespaces = append(inv.Namespaces, item.namespace)
			case item.workload != nil:
				inv.Workloads = append(inv.Workloads, *item.workload)
				workloadFiles = append(workloadFiles, f.Name)
			case item.budget != nil:
				inv.DisruptionBudgets = append(inv.DisruptionBudgets, *item.budget)
			case item.scaler != nil:
				inv.Autoscalers = append(inv.Autoscalers, *item.scaler)
			case item.role != nil:
				inv.Roles = append(inv.Roles, *item.role)
			case item.binding != nil:
				inv.RoleBindings = append(inv.RoleBindings, *item.binding)
			case item.csv != "":
				inv.ClusterServiceVersions = append(inv.ClusterServiceVersions, item.csv)
			case item.crd != nil:
				inv.CRDs = append(inv.CRDs, item.crd)
			case item.cert != nil:
				inv.Certificates = append(inv.Certificates, *item.cert)
				certFiles = append(certFiles, f.Name)
			}
			if len(files) > 1 {
				recordFile(inv, d, f.Name)
			}
		}
	}
	if len(files) > 1 {
		for i := range inv.Certificates {
			inv.SetFile(&inv.Certificates[i], certFiles[i])
		}
		for i := range inv.Workloads {
			inv.SetFile(&inv.Workloads[i], workloadFiles[i])
		}
	}
	return inv
}

// recordFile notes the file of the objects rules compare across the files
// of a unit (rules.Inventory.Apart).
func recordFile(inv *rules.Inventory, d *Document, file string) {
	item := d.inventory()
	switch {
	case d.Config != nil:
		inv.SetFile(d.Config, file)
	case item.service != nil:
		inv.SetFile(item.service, file)
	case item.crd != nil:
		inv.SetFile(item.crd, file)
	}
}

// addLabels records the labels a document sets, on the object and on the
// pods a workload creates, with the first object that sets each.
func addLabels(inv *rules.Inventory, d *Document) {
	item := d.inventory()
	if len(item.labels) == 0 && (item.workload == nil || len(item.workload.PodLabels) == 0) {
		return
	}
	if inv.Labels == nil {
		inv.Labels = map[string]string{}
	}
	who := fmt.Sprintf("%s %q", d.Kind, d.Name)
	add := func(m map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if kv := k + "=" + m[k]; inv.Labels[kv] == "" {
				inv.Labels[kv] = who
			}
		}
	}
	add(item.labels)
	if w := item.workload; w != nil {
		add(w.PodLabels)
	}
}

// readLabels reads metadata.labels, skipping what is not plain text.
func readLabels(obj *yaml.Node) map[string]string {
	m := resolve(walk(obj, "metadata", "labels"))
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), resolve(m.Content[i+1])
		if k != nil && v != nil && k.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode {
			out[k.Value] = v.Value
		}
	}
	return out
}
