// Package simulate answers "which admission webhooks does this request
// meet?": it replays the API server's admission chain for one request
// against a set of webhook configurations — mutating webhooks in order,
// with reinvocation, then validating ones — and says for each webhook
// whether it is called and why, what it costs in latency, and what
// happens when its backend is down.
//
// The matching is the rules package's (rules/match.go, verified against
// the API server's own matchers) and matchConditions are evaluated by the
// API server's CEL runtime (internal/celcheck); this package only chains
// them the way the server's dispatchers do and explains the result.
package simulate

import (
	"fmt"
	"os"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/rules"
)

// Presence says whether the request carries an object, and whether the
// simulation knows it.
type Presence int

const (
	// Absent: the request carries none (no old object on CREATE, no
	// object on DELETE); CEL sees null.
	Absent Presence = iota
	// Given: the object was given (--object, --old-object).
	Given
	// Unknown: the request carries one, but it was not given.
	Unknown
)

// Request is one admission request, resolved and checked.
type Request struct {
	Operation admissionv1.OperationType
	// Group, Version, Resource, Subresource and Kind are what the API
	// server puts in the AdmissionReview (request.resource, request.kind).
	Group, Version, Resource, Subresource, Kind string
	// Namespaced is the resource's scope.
	Namespaced bool
	// Namespace is empty for cluster-scoped resources and the object's own
	// name for namespaces, as the server sets it.
	Namespace string
	Name      string
	// Object and OldObject are set when Given.
	Object, OldObject           *unstructured.Unstructured
	ObjectState, OldObjectState Presence
	// HasObjectMeta is false for the options objects of CONNECT requests,
	// which no objectSelector matches.
	HasObjectMeta bool
	// UserKnown says whether --user was given; UserName and UserGroups are
	// then exactly what the request carries.
	UserKnown  bool
	UserName   string
	UserGroups []string
	// NamespaceLabels are the labels given with --namespace-labels; nil
	// when not given (the caller's source of namespaces then decides).
	NamespaceLabels map[string]string
	DryRun          bool
	// Changes names the mutating webhooks that change the object ("name"
	// or "configuration/name"); nil when not said, which leaves
	// reinvocation a possibility instead of a prediction.
	Changes []string
}

// UsageError is a bad flag or flag combination (exit status 2).
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }

// Spec is the request as the flags describe it, before resolution.
type Spec struct {
	Operation                  string
	Resource, Subresource      string
	APIGroup, APIVersion, Kind string
	Namespace, Name            string
	ObjectFile, OldObjectFile  string
	User                       string
	Groups                     []string
	NamespaceLabels            []string
	DryRun                     bool
	Changes                    []string
}

// Resolve checks s and fills in what the built-in resource table knows
// (group, version, kind, scope). Every problem is a UsageError.
func (s Spec) Resolve() (*Request, error) {
	r := &Request{DryRun: s.DryRun, Changes: s.Changes}
	op := admissionv1.OperationType(strings.ToUpper(s.Operation))
	switch op {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
	case "":
		return nil, usagef("--operation is required: CREATE, UPDATE, DELETE or CONNECT")
	default:
		return nil, usagef("--operation must be CREATE, UPDATE, DELETE or CONNECT, not %q", s.Operation)
	}
	r.Operation = op
	if s.Resource == "" {
		return nil, usagef("--resource is required (for example --resource pods, --resource deployments.apps)")
	}
	res, sub, hasSub := strings.Cut(s.Resource, "/")
	if hasSub {
		if s.Subresource != "" && s.Subresource != sub {
			return nil, usagef("--resource %s and --subresource %s name different subresources", s.Resource, s.Subresource)
		}
		s.Subresource = sub
	}
	group := s.APIGroup
	if name, g, ok := strings.Cut(res, "."); ok {
		if s.APIGroup != "" && s.APIGroup != g {
			return nil, usagef("--resource %s names group %q but --api-group is %q", s.Resource, g, s.APIGroup)
		}
		res, group = name, g
	}
	if res == "" || strings.ContainsAny(res, " */") {
		return nil, usagef("--resource %q is not a resource name", s.Resource)
	}
	r.Group, r.Resource, r.Subresource = group, res, s.Subresource
	if err := r.resolveType(s); err != nil {
		return nil, err
	}
	if err := r.readObjects(s); err != nil {
		return nil, err
	}
	if err := r.resolveNames(s); err != nil {
		return nil, err
	}
	if s.User != "" {
		r.UserKnown, r.UserName, r.UserGroups = true, s.User, append([]string{}, s.Groups...)
	} else if len(s.Groups) > 0 {
		return nil, usagef("--group needs --user: the simulation does not guess the user name")
	}
	if len(s.NamespaceLabels) > 0 {
		r.NamespaceLabels = map[string]string{}
		for _, l := range s.NamespaceLabels {
			set, err := labels.ConvertSelectorToLabelsMap(l)
			if err != nil {
				return nil, usagef("--namespace-labels %q: want key=value[,key=value…]: %v", l, err)
			}
			for k, v := range set {
				r.NamespaceLabels[k] = v
			}
		}
		if !r.Namespaced && r.Resource != "namespaces" {
			return nil, usagef("--namespace-labels: %s are cluster-scoped, so no namespace is involved", r.resourceName())
		}
	}
	return r, nil
}

// resolveType fills version, kind and scope from the built-in table, or
// from the flags for other APIs.
func (r *Request) resolveType(s Spec) error {
	b, builtin := rules.LookupBuiltin(r.Group, r.Resource, r.Subresource)
	switch {
	case builtin && b.RemovedIn != "":
		return usagef("%s is no longer served (removed in Kubernetes %s)", b, b.RemovedIn)
	case builtin:
		r.Version = b.Versions[0]
		if s.APIVersion != "" {
			if !slices.Contains(b.Versions, s.APIVersion) {
				return usagef("%s is served as %s, not %s", b, strings.Join(b.Versions, ", "), s.APIVersion)
			}
			r.Version = s.APIVersion
		}
		r.Kind = b.Kind
		if s.Kind != "" && s.Kind != b.Kind {
			return usagef("requests on %s carry kind %s, not %s", b, b.Kind, s.Kind)
		}
		if !slices.Contains(b.Operations, r.Operation) {
			return usagef("requests on %s are %s, never %s", b, joinOps(b.Operations), r.Operation)
		}
		r.Namespaced = b.Namespaced
		r.HasObjectMeta = b.HasObjectMeta()
	case rules.IsBuiltinGroup(r.Group):
		gname := r.Group
		if gname == "" {
			gname = "core"
		}
		return usagef("the %s API group has no resource %q (a typo? resources are plural and lower-case, like pods)", gname, r.resourceName())
	default:
		if s.APIVersion == "" {
			return usagef("--api-version is required for %s, which is not a built-in resource", r.resourceName())
		}
		r.Version, r.Kind = s.APIVersion, s.Kind
		r.Namespaced = s.Namespace != ""
		r.HasObjectMeta = r.Operation != admissionv1.Connect
	}
	return nil
}

// readObjects reads --object and --old-object, after checking the
// operation carries them.
func (r *Request) readObjects(s Spec) error {
	r.ObjectState, r.OldObjectState = Unknown, Unknown
	switch r.Operation {
	case admissionv1.Create, admissionv1.Connect:
		r.OldObjectState = Absent
	case admissionv1.Delete:
		r.ObjectState = Absent
	}
	read := func(flagName, path string, state *Presence) (*unstructured.Unstructured, error) {
		if path == "" {
			return nil, nil
		}
		if *state == Absent {
			what := map[string]string{"--object": "object", "--old-object": "old object"}[flagName]
			return nil, usagef("%s: %s requests carry no %s", flagName, r.Operation, what)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, usagef("%s: %v", flagName, err)
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, usagef("%s %s: not a YAML or JSON object: %v", flagName, path, err)
		}
		if len(m) == 0 {
			return nil, usagef("%s %s: the file holds no object", flagName, path)
		}
		u := &unstructured.Unstructured{Object: m}
		if err := checkMetadata(u); err != nil {
			return nil, usagef("%s %s: %v (the API server rejects such an object before admission)", flagName, path, err)
		}
		if k := u.GetKind(); k != "" && r.Kind != "" && k != r.Kind {
			return nil, usagef("%s %s is a %s, but requests on %s carry a %s", flagName, path, k, r.resourceName(), r.Kind)
		}
		*state = Given
		return u, nil
	}
	var err error
	if r.Object, err = read("--object", s.ObjectFile, &r.ObjectState); err != nil {
		return err
	}
	if r.OldObject, err = read("--old-object", s.OldObjectFile, &r.OldObjectState); err != nil {
		return err
	}
	if r.Kind == "" {
		for _, o := range []*unstructured.Unstructured{r.Object, r.OldObject} {
			if o != nil && o.GetKind() != "" {
				r.Kind = o.GetKind()
				break
			}
		}
	}
	return nil
}

// checkMetadata rejects metadata the matchers would silently misread.
func checkMetadata(u *unstructured.Unstructured) error {
	md, ok := u.Object["metadata"]
	if !ok || md == nil {
		return nil
	}
	if _, ok := md.(map[string]any); !ok {
		return fmt.Errorf("metadata is not an object")
	}
	for _, f := range []string{"labels", "annotations"} {
		if _, _, err := unstructured.NestedStringMap(u.Object, "metadata", f); err != nil {
			return fmt.Errorf("metadata.%s must map strings to strings", f)
		}
	}
	for _, f := range []string{"name", "namespace", "generateName"} {
		if _, _, err := unstructured.NestedString(u.Object, "metadata", f); err != nil {
			return fmt.Errorf("metadata.%s must be a string", f)
		}
	}
	return nil
}

// resolveNames fills name and namespace from the flags or the objects, and
// sets on the objects what the API server sets before admission.
func (r *Request) resolveNames(s Spec) error {
	meta := r.Object
	if meta == nil || !r.HasObjectMeta {
		meta = r.OldObject
	}
	r.Name = s.Name
	if r.Name == "" && meta != nil {
		r.Name = meta.GetName()
	}
	ns := s.Namespace
	if ns == "" && meta != nil && r.Namespaced {
		ns = meta.GetNamespace()
	}
	switch {
	case r.Resource == "namespaces" && r.Group == "":
		if s.Namespace != "" && s.Namespace != r.Name {
			return usagef("--namespace: requests on namespaces carry the namespace's own name (%q) as their namespace", r.Name)
		}
		// The server sets the request namespace of a namespace to its name.
		ns = r.Name
	case r.Namespaced && ns == "":
		return usagef("%s are namespaced: give --namespace", r.resourceName())
	case !r.Namespaced && ns != "":
		return usagef("--namespace: %s are cluster-scoped", r.resourceName())
	}
	r.Namespace = ns
	for _, o := range []*unstructured.Unstructured{r.Object, r.OldObject} {
		if o == nil || !r.HasObjectMeta {
			continue
		}
		if r.Namespaced && r.Resource != "namespaces" {
			if got := o.GetNamespace(); got != "" && got != ns {
				return usagef("the object is in namespace %q, the request in %q", got, ns)
			}
			o.SetNamespace(ns) // the server fills it in from the URL
		}
		if r.Resource == "namespaces" && r.Group == "" && r.Subresource == "" && o.GetName() != "" {
			// Defaulting gives every namespace this label before admission.
			l := o.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			l[rules.LabelMetadataName] = o.GetName()
			o.SetLabels(l)
		}
	}
	return nil
}

func (r *Request) resourceName() string {
	s := r.Resource
	if r.Group != "" {
		s += "." + r.Group
	}
	if r.Subresource != "" {
		s += "/" + r.Subresource
	}
	return s
}

func joinOps(ops []admissionv1.OperationType) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, " or ")
}
