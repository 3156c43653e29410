package simulate

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// SchemaVersion is the version of the JSON output (docs/simulate.md,
// docs/simulate.schema.json). It changes only when a field changes
// meaning or disappears; new fields may appear within a version.
const SchemaVersion = 1

type jsonUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

type jsonRequest struct {
	Operation   string    `json:"operation"`
	Group       string    `json:"group"`
	Version     string    `json:"version"`
	Resource    string    `json:"resource"`
	Subresource string    `json:"subresource"`
	Kind        string    `json:"kind"`
	Namespace   string    `json:"namespace"`
	Name        string    `json:"name"`
	DryRun      bool      `json:"dryRun"`
	UserInfo    *jsonUser `json:"userInfo"`
	Object      string    `json:"object"`
	OldObject   string    `json:"oldObject"`
}

type jsonLabels struct {
	Labels   map[string]string `json:"labels"`
	Complete bool              `json:"complete"`
}

type jsonChain struct {
	SchemaVersion     int             `json:"schemaVersion"`
	KubernetesVersion string          `json:"kubernetesVersion"`
	Request           jsonRequest     `json:"request"`
	NamespaceLabels   *jsonLabels     `json:"namespaceLabels"`
	NeverSent         string          `json:"neverSent,omitempty"`
	Mutating          []*Call         `json:"mutating"`
	Reinvocations     []*Reinvocation `json:"reinvocations"`
	Validating        []*Call         `json:"validating"`
	// The policy fields appear only when the input had policies.
	MutatingPolicies   *[]*PolicyCall `json:"mutatingPolicies,omitempty"`
	ValidatingPolicies *[]*PolicyCall `json:"validatingPolicies,omitempty"`
	PoliciesUnknown    string         `json:"policiesUnknown,omitempty"`
	RejectedAt         string         `json:"rejectedAt,omitempty"`
	AdmissionPasses    int            `json:"admissionPasses"`
	PassesReason       string         `json:"admissionPassesReason,omitempty"`
	Latency            Latency        `json:"latency"`
	BackendDown        BackendDown    `json:"ifBackendDown"`
	Notes              []string       `json:"notes"`
	ExitCode           int            `json:"exitCode"`
}

func (p Presence) String() string {
	return [...]string{"absent", "given", "unknown"}[p]
}

// WriteJSON writes the chain as one JSON document.
func (c *Chain) WriteJSON(w io.Writer) error {
	r := c.Request
	doc := jsonChain{
		SchemaVersion: SchemaVersion, KubernetesVersion: c.KubeVersion.String(),
		Request: jsonRequest{
			Operation: string(r.Operation), Group: r.Group, Version: r.Version, Resource: r.Resource,
			Subresource: r.Subresource, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, DryRun: r.DryRun,
			Object: r.ObjectState.String(), OldObject: r.OldObjectState.String(),
		},
		NeverSent: c.NeverSent, Mutating: nonNil(c.Mutating), Reinvocations: nonNil(c.Reinvocations),
		Validating: nonNil(c.Validating), RejectedAt: c.Rejected, AdmissionPasses: c.AdmissionPasses, PassesReason: c.PassesReason, Latency: c.Latency, BackendDown: c.BackendDown,
		Notes: nonNil(c.Notes), ExitCode: c.ExitCode(),
	}
	if c.withPolicies {
		mp, vp := nonNil(c.MutatingPolicies), nonNil(c.ValidatingPolicies)
		for _, p := range slices.Concat(mp, vp) {
			p.Checks = nonNil(p.Checks)
		}
		doc.MutatingPolicies, doc.ValidatingPolicies, doc.PoliciesUnknown = &mp, &vp, c.PoliciesUnknown
	}
	if r.UserKnown {
		doc.Request.UserInfo = &jsonUser{Username: r.UserName, Groups: nonNil(r.UserGroups)}
	}
	if l := c.NamespaceLabels; l != nil {
		doc.NamespaceLabels = &jsonLabels{Labels: l.Set, Complete: !l.Partial}
	}
	for _, list := range [][]*Call{doc.Mutating, doc.Validating} {
		for _, call := range list {
			call.Checks = nonNil(call.Checks)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteText writes the chain for people.
func (c *Chain) WriteText(w io.Writer) error {
	var b strings.Builder
	r := c.Request
	fmt.Fprintf(&b, "Request: %s\n", c.requestText())
	if c.NamespaceLabels != nil {
		fmt.Fprintf(&b, "Namespace labels: %s\n", labelsText(c.NamespaceLabels))
	}
	fmt.Fprintf(&b, "Objects: object %s, oldObject %s\n", r.ObjectState, r.OldObjectState)
	if c.NeverSent != "" {
		fmt.Fprintf(&b, "No webhook sees this request: %s.\n", c.NeverSent)
	}
	switch {
	case c.AdmissionPasses == 0:
		fmt.Fprintf(&b, "Admission passes: 1 or 2: %s.\n", c.PassesReason)
	case c.AdmissionPasses > 1 || c.PassesReason != "":
		fmt.Fprintf(&b, "Admission passes: %d: %s.\n", c.AdmissionPasses, c.PassesReason)
	}
	if c.withPolicies {
		b.WriteString("\nMutating admission policies (before the mutating webhooks; the server's order among them is not defined, shown by name):\n")
		c.writePolicies(&b, c.MutatingPolicies)
	}
	b.WriteString("\nMutating webhooks (one after the other: configurations by name, webhooks in order):\n")
	writeCalls(&b, c.Mutating, true)
	if len(c.Reinvocations) > 0 {
		b.WriteString("\nReinvocation (second round, reinvocationPolicy IfNeeded):\n")
		for _, re := range c.Reinvocations {
			fmt.Fprintf(&b, "  %s/%s: %s again: %s\n", re.Configuration, re.Webhook, strings.ToUpper(string(re.Decision)), re.Reason)
		}
	}
	if c.withPolicies {
		b.WriteString("\nValidating admission policies (before the validating webhooks; all are evaluated, in an order the server does not define, shown by name):\n")
		c.writePolicies(&b, c.ValidatingPolicies)
	}
	b.WriteString("\nValidating webhooks (in parallel):\n")
	writeCalls(&b, c.Validating, false)
	l := c.Latency
	fmt.Fprintf(&b, "\nWorst-case latency: %ds (mutating %ds + reinvocation %ds + validating %ds", l.TotalSeconds,
		l.MutatingSeconds, l.ReinvocationSeconds, l.ValidatingSeconds)
	if c.AdmissionPasses != 1 {
		b.WriteString(", per admission pass")
	}
	b.WriteString(")")
	if l.WithMaybeSeconds != l.TotalSeconds {
		fmt.Fprintf(&b, "; %ds if every maybe-called webhook is called", l.WithMaybeSeconds)
	}
	b.WriteString("\n")
	if c.Rejected != "" {
		fmt.Fprintf(&b, "Outcome: the API server rejects the request at %s.\n", c.Rejected)
	}
	fmt.Fprintf(&b, "If a backend is down: %s.\n", c.BackendDown.Summary)
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *Chain) requestText() string {
	r := c.Request
	parts := []string{string(r.Operation) + " " + gvrText(r.Group, r.Version, r.Resource, r.Subresource)}
	if r.Kind != "" {
		parts = append(parts, "kind "+r.Kind)
	}
	if r.Namespace != "" {
		parts = append(parts, "namespace "+r.Namespace)
	}
	if r.Name != "" {
		parts = append(parts, "name "+r.Name)
	}
	if r.UserKnown {
		u := "user " + r.UserName
		if len(r.UserGroups) > 0 {
			u += " (groups " + strings.Join(r.UserGroups, ", ") + ")"
		}
		parts = append(parts, u)
	} else {
		parts = append(parts, "user unknown")
	}
	if r.DryRun {
		parts = append(parts, "dry run")
	}
	return strings.Join(parts, ", ") + " (Kubernetes " + c.KubeVersion.String() + ")"
}

func writeCalls(b *strings.Builder, calls []*Call, mutating bool) {
	if len(calls) == 0 {
		b.WriteString("  (none)\n")
		return
	}
	for i, c := range calls {
		fmt.Fprintf(b, "  %d. %s/%s: %s", i+1, c.Configuration, c.Webhook, strings.ToUpper(string(c.Decision)))
		if c.Reason != "" {
			fmt.Fprintf(b, ": %s", c.Reason)
		}
		b.WriteString("\n")
		for _, ch := range c.Checks {
			fmt.Fprintf(b, "       - %s (%s): %s\n", ch.Check, ch.Result, ch.Detail)
		}
		settings := fmt.Sprintf("timeout %ds, failurePolicy %s, sideEffects %s, matchPolicy %s", c.TimeoutSeconds, c.FailurePolicy, orUnset(c.SideEffects), c.MatchPolicy)
		if mutating {
			settings += ", reinvocationPolicy " + c.ReinvocationPolicy
		}
		fmt.Fprintf(b, "       %s\n", settings)
		if c.InvokedAs != nil {
			fmt.Fprintf(b, "       sent as %s, kind %s\n", gvrText(c.InvokedAs.Group, c.InvokedAs.Version, c.InvokedAs.Resource, ""), c.InvokedAs.Kind)
		}
	}
}

func (c *Chain) writePolicies(b *strings.Builder, calls []*PolicyCall) {
	switch {
	case c.PoliciesUnknown != "":
		fmt.Fprintf(b, "  (unknown: %s)\n", c.PoliciesUnknown)
		return
	case len(calls) == 0:
		b.WriteString("  (none)\n")
		return
	}
	for i, p := range calls {
		fmt.Fprintf(b, "  %d. %s/%s: %s", i+1, p.Policy, p.Binding, strings.ToUpper(string(p.Decision)))
		if p.Reason != "" {
			fmt.Fprintf(b, ": %s", p.Reason)
		}
		if p.Effect != "" {
			fmt.Fprintf(b, "; effect %s", strings.ToUpper(string(p.Effect)))
		}
		b.WriteString("\n")
		for _, ch := range slices.Concat(p.Checks, p.Validations) {
			fmt.Fprintf(b, "       - %s (%s): %s\n", ch.Check, ch.Result, ch.Detail)
		}
		settings := "failurePolicy " + p.FailurePolicy
		if p.ValidationActions != nil {
			settings += ", validationActions " + strings.Join(p.ValidationActions, ", ")
		}
		if p.ReinvocationPolicy != "" {
			settings += ", reinvocationPolicy " + p.ReinvocationPolicy
		}
		fmt.Fprintf(b, "       %s\n", settings)
		if p.Params != "" {
			fmt.Fprintf(b, "       params: %s\n", p.Params)
		}
		if p.Mutations != "" {
			fmt.Fprintf(b, "       mutations: %s\n", p.Mutations)
		}
		for _, w := range p.Warnings {
			fmt.Fprintf(b, "       warning: %s\n", w)
		}
	}
}

func orUnset(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}
