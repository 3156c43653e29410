package source

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source/gitops"
)

// The ordering step runs once every unit is linted: Flux applies each
// Kustomization and HelmRelease on its own unless dependsOn orders them,
// so what one entry's webhooks and custom resources need (a backend's
// pods, a CRD) must come from an entry it depends on. It compares what
// the entries' units applied; a dependsOn that names no entry, or a cycle
// of them, is reported too (Flux then applies none of the entries that
// wait). Findings go to the entry's dependsOn, or its spec when it has
// none.

// applied is what a Flux entry's unit applies, as the ordering step
// reads it; the objects themselves are dropped with the unit. Its fields
// are exported for the cache, which keeps it with the unit's findings.
type applied struct {
	Services map[string]bool // namespace/name
	// Hooks are the webhooks that reject requests while their backend is
	// down: admission webhooks failing closed, CRD conversion webhooks.
	Hooks []backendHook
	// CRDs are the CRDs by group/Kind, and Custom the first object of
	// each group/Kind of a named API group (`Policy guard-system/deny`).
	CRDs, Custom map[string]string
}

type backendHook struct {
	What    string // `fail-closed webhook "x"`, `the conversion webhook of CRD y`
	Service string // namespace/name
}

// appliedBy summarizes a unit's files; objects without a namespace are
// applied in ns.
func appliedBy(files []*manifest.File, ns string) *applied {
	a := &applied{Services: map[string]bool{}, CRDs: map[string]string{}, Custom: map[string]string{}}
	inv := manifest.Inventory(files)
	for _, o := range inv.Objects {
		namespace := o.Namespace
		if namespace == "" {
			namespace = ns
		}
		group, _, named := strings.Cut(o.APIVersion, "/")
		switch {
		case o.Kind == "Service" && o.APIVersion == "v1":
			a.Services[namespace+"/"+o.Name] = true
		case named && strings.Contains(group, ".") && o.Kind != "CustomResourceDefinition":
			if gk := group + "/" + o.Kind; a.Custom[gk] == "" {
				a.Custom[gk] = o.Kind + " " + strings.TrimPrefix(o.Namespace+"/"+o.Name, "/")
			}
		}
	}
	for _, c := range inv.Configs {
		for _, w := range c.Webhooks {
			s := w.ClientConfig.Service
			// v1 fails closed by default; v1beta1, removed, failed open.
			closed := (w.FailurePolicy == nil && c.APIVersion == rules.V1) ||
				(w.FailurePolicy != nil && *w.FailurePolicy == admissionv1.Fail)
			if s != nil && closed {
				a.Hooks = append(a.Hooks, backendHook{What: fmt.Sprintf("fail-closed webhook %q", w.Name), Service: s.Namespace + "/" + s.Name})
			}
		}
	}
	for _, crd := range inv.CRDs {
		a.CRDs[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = crd.Name
		if cv := crd.Spec.Conversion; cv != nil && cv.Strategy == apiextensionsv1.WebhookConverter &&
			cv.Webhook != nil && cv.Webhook.ClientConfig != nil && cv.Webhook.ClientConfig.Service != nil {
			s := cv.Webhook.ClientConfig.Service
			a.Hooks = append(a.Hooks, backendHook{What: "the conversion webhook of CRD " + crd.Name, Service: s.Namespace + "/" + s.Name})
		}
	}
	return a
}

// fluxEntry reports whether the unit is a Flux Kustomization or
// HelmRelease, whose objects the ordering step compares.
func fluxEntry(u *unit) bool {
	return u.gitops != nil && strings.HasPrefix(u.gitops.Kind, "Flux ")
}

// fluxNode is one Flux entry in the ordering graph.
type fluxNode struct {
	unit    int
	e       *gitops.Entry
	key     string      // `Kustomization flux-system/apps`
	deps    []*fluxNode // by e.DependsOn; nil where the name matches no entry
	parents []*fluxNode // the Flux Kustomizations that apply it
	// clusters are the folders of the entries at the top of its parents:
	// entries of different clusters are not compared.
	clusters []string
	applied  *applied
}

func (n *fluxNode) kind() string { return strings.TrimPrefix(n.e.Kind, "Flux ") }

// name names m in a finding on n: `Kustomization infra-controllers`, with
// its namespace when it is not n's.
func (n *fluxNode) name(m *fluxNode) string {
	if m.e.Namespace == n.e.Namespace {
		return m.kind() + " " + m.e.Name
	}
	return m.key
}

// orderFindings adds the ordering findings of the Flux entries among
// units to their results.
func orderFindings(req *request, units []*unit, results []*unitResult) {
	nodes := fluxGraph(units)
	if len(nodes) == 0 {
		return
	}
	for _, n := range nodes {
		n.applied = results[n.unit].applied
	}
	add := func(n *fluxNode, at diag.Span, msg string) {
		results[n.unit].diags = append(results[n.unit].diags, diag.Diagnostic{
			Span:     diag.Point(at.File, max(at.Line, 1), max(at.Column, 1)),
			Severity: rules.MustLookup(rules.GitOpsOrderRule).Severity, Rule: rules.GitOpsOrderRule,
			Message: msg, Origin: n.e.Label(),
		})
	}
	for _, n := range nodes {
		for j, d := range n.e.DependsOn {
			if n.deps[j] == nil && !req.fluxEntries[n.kind()+" "+d.Name] && fullyLinted(req, n.e.At.File) {
				add(n, d.At, fmt.Sprintf("dependsOn %s names no Flux %s in the linted files, so Flux never applies this entry; fix the name",
					d.Name, n.kind()))
			}
		}
	}
	for _, c := range dependencyCycles(nodes) {
		first := c[0]
		var names []string
		for _, n := range c {
			names = append(names, n.e.Namespace+"/"+n.e.Name)
		}
		at := first.e.DependsOnAt
		if j := slices.Index(first.deps, c[1%len(c)]); j >= 0 {
			at = first.e.DependsOn[j].At
		}
		add(first, at, fmt.Sprintf("dependsOn cycle %s -> %s: Flux applies none of these %ss; remove one dependency",
			strings.Join(names, " -> "), names[0], first.kind()))
	}
	for _, n := range nodes {
		for _, msg := range orderProblems(n, nodes) {
			add(n, n.e.DependsOnAt, msg)
		}
	}
}

// fluxGraph links the Flux entries among units: the Kustomizations that
// apply each, the clusters they are in, the entries their dependsOn name.
// It reads what discovery knows (the files each build reads), not what
// the units applied.
func fluxGraph(units []*unit) []*fluxNode {
	var nodes []*fluxNode
	byKey := map[string][]*fluxNode{}
	for i, u := range units {
		if !fluxEntry(u) {
			continue
		}
		n := &fluxNode{unit: i, e: u.gitops}
		n.key = n.kind() + " " + u.gitops.Namespace + "/" + u.gitops.Name
		nodes = append(nodes, n)
		byKey[n.key] = append(byKey[n.key], n)
	}
	// The Kustomizations by the files their builds read: a workspace's
	// thousands of entries are not each compared with every other.
	byRead := map[string][]*fluxNode{}
	byEntry := map[*gitops.Entry][]*fluxNode{}
	for _, k := range nodes {
		if k.kind() != "Kustomization" {
			continue
		}
		byEntry[k.e] = append(byEntry[k.e], k)
		if u := units[k.unit]; u.kind == kustomizeUnit {
			for f := range u.reads {
				if appliesFile(u, f) {
					byRead[f] = append(byRead[f], k)
				}
			}
		}
	}
	for _, n := range nodes {
		if n.e.AppliedBy != nil {
			// Read from that build's output: applied by it alone.
			for _, k := range byEntry[n.e.AppliedBy] {
				if k != n {
					n.parents = append(n.parents, k)
				}
			}
			continue
		}
		for _, k := range byRead[n.e.At.File] {
			if k != n {
				n.parents = append(n.parents, k)
			}
		}
	}
	for _, n := range nodes {
		n.clusters = clusterOf(n)
	}
	for _, n := range nodes {
		n.deps = make([]*fluxNode, len(n.e.DependsOn))
		for j, d := range n.e.DependsOn {
			n.deps[j] = resolve(n, byKey[n.kind()+" "+d.Name])
		}
	}
	return nodes
}

// appliesFile reports whether a Flux Kustomization's build reads file:
// then the entries written in it are applied by the Kustomization. The
// Kustomization's own file is among its unit's reads (findings on what
// it sets go there) but applied by it only when inside its folder.
func appliesFile(k *unit, file string) bool {
	if !k.reads[file] {
		return false
	}
	return file != k.gitops.At.File || within(file, k.dir)
}

// clusterOf lists the folders of the entries at the top of n's parents
// (n's own when it has none): the cluster folders whose Flux applies it.
func clusterOf(n *fluxNode) []string {
	var out []string
	seen := map[*fluxNode]bool{}
	var up func(m *fluxNode)
	up = func(m *fluxNode) {
		if seen[m] {
			return
		}
		seen[m] = true
		if len(m.parents) == 0 {
			if dir := filepath.Dir(m.e.At.File); !slices.Contains(out, dir) {
				out = append(out, dir)
			}
		}
		for _, p := range m.parents {
			up(p)
		}
	}
	up(n)
	if len(out) == 0 { // parents in a cycle: its folder stands for them
		out = []string{filepath.Dir(n.e.At.File)}
	}
	slices.Sort(out)
	return out
}

func sameCluster(a, b *fluxNode) bool {
	return slices.ContainsFunc(a.clusters, func(c string) bool { return slices.Contains(b.clusters, c) })
}

// resolve picks the entry a dependsOn name means among those of that
// kind and name: one of the same cluster, else the first (a repository
// whose clusters cannot be told apart); nil when there is none.
func resolve(n *fluxNode, candidates []*fluxNode) *fluxNode {
	for _, c := range candidates {
		if sameCluster(n, c) {
			return c
		}
	}
	if len(candidates) > 0 {
		return candidates[0]
	}
	return nil
}

// fullyLinted reports whether file is inside a folder the user named, or
// the editor's workspace:
// then its sibling entries were read, and a dependsOn naming none of them
// is wrong rather than outside the run.
func fullyLinted(req *request, file string) bool {
	if req.workspace != nil && req.workspace.Holds(file) {
		return true
	}
	for _, i := range req.dirs {
		if within(file, req.paths[i].abs) {
			return true
		}
	}
	return false
}

// dependencyCycles finds each cycle of dependsOn once, starting at its
// entry written first.
func dependencyCycles(nodes []*fluxNode) [][]*fluxNode {
	const (
		white = iota
		grey
		black
	)
	color := map[*fluxNode]int{}
	var stack []*fluxNode
	var out [][]*fluxNode
	seen := map[string]bool{}
	var visit func(n *fluxNode)
	visit = func(n *fluxNode) {
		color[n] = grey
		stack = append(stack, n)
		for _, d := range n.deps {
			switch {
			case d == nil:
			case color[d] == grey:
				c := slices.Clone(stack[slices.Index(stack, d):])
				first := 0
				for i, m := range c {
					if posLess(m.e.At, c[first].e.At) {
						first = i
					}
				}
				c = append(c[first:], c[:first]...)
				id := fmt.Sprint(c)
				if !seen[id] {
					seen[id] = true
					out = append(out, c)
				}
			case color[d] == white:
				visit(d)
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	for _, n := range nodes {
		if color[n] == white {
			visit(n)
		}
	}
	return out
}

func posLess(a, b diag.Span) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line
}

// before lists the entries Flux has applied before it applies n: those n
// depends on, transitively, and those its parents (the Kustomizations
// that apply it) depend on.
func before(n *fluxNode) map[*fluxNode]bool {
	out := map[*fluxNode]bool{}
	for m := range reach(n, func(m *fluxNode) []*fluxNode { return append(slices.Clip(m.deps), m.parents...) }) {
		for _, d := range m.deps {
			if d != nil {
				out[d] = true
			}
		}
	}
	for _, d := range n.deps {
		if d != nil {
			out[d] = true
		}
	}
	return out
}

// ancestors are the Kustomizations that apply n, up to the top.
func ancestors(n *fluxNode) map[*fluxNode]bool {
	return reach(n, func(m *fluxNode) []*fluxNode { return m.parents })
}

// reach lists the nodes reached from n by steps, each once: a cycle of
// dependsOn or of parents ends the walk.
func reach(n *fluxNode, steps func(*fluxNode) []*fluxNode) map[*fluxNode]bool {
	out := map[*fluxNode]bool{}
	todo := []*fluxNode{n}
	for len(todo) > 0 {
		m := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, next := range steps(m) {
			if next != nil && !out[next] {
				out[next] = true
				todo = append(todo, next)
			}
		}
	}
	return out
}

// gate is the entry of done through which b is applied before another
// entry: b itself, or the first Kustomization up its parents that is;
// nil when none is.
func gate(b *fluxNode, done map[*fluxNode]bool) *fluxNode {
	seen := map[*fluxNode]bool{}
	var up func(m *fluxNode) *fluxNode
	up = func(m *fluxNode) *fluxNode {
		if seen[m] {
			return nil
		}
		seen[m] = true
		if done[m] {
			return m
		}
		for _, p := range m.parents {
			if g := up(p); g != nil {
				return g
			}
		}
		return nil
	}
	return up(b)
}

// orderProblems lists what n applies before an entry of its cluster
// applies what it needs: a webhook's backend Service, ready (the entry
// applying it, or one above it, waits for health), a custom resource's
// CRD, applied. One finding per entry to fix and problem (one cause, one
// finding), naming the first object that needs it and how many more.
func orderProblems(n *fluxNode, nodes []*fluxNode) []string {
	if n.applied == nil {
		return nil
	}
	c := &orderCheck{
		n:    n,
		done: before(n),
		// What the Kustomizations above n apply is applied with n's own
		// object (CRDs first, as kustomize-controller applies them);
		// depending on one of them would deadlock a parent that waits for n.
		above:    ancestors(n),
		nodes:    nodes,
		problems: map[string]*orderProblem{},
	}
	c.backends()
	c.crds()
	return c.lines()
}

// orderCheck is what orderProblems compares for one entry n, and the
// problems found so far, grouped by the entry to fix and the problem.
type orderCheck struct {
	n           *fluxNode
	done, above map[*fluxNode]bool
	nodes       []*fluxNode
	others      []*fluxNode // the other entries of n's cluster, once listed
	listed      bool

	order    []string // the groups, in the order found
	problems map[string]*orderProblem
}

type orderProblem struct {
	msg, fix string
	more     int
}

// listOthers lists the entries compared with n once one of its objects
// needs another's: most entries apply their webhooks' backends themselves.
func (c *orderCheck) listOthers() []*fluxNode {
	if !c.listed {
		n := c.n
		c.others = slices.DeleteFunc(slices.Clone(c.nodes), func(m *fluxNode) bool { return m == n || m.applied == nil || !sameCluster(n, m) })
		c.listed = true
	}
	return c.others
}

// report adds a problem, or counts one more of its group.
func (c *orderCheck) report(group, msg, fix string) {
	if p := c.problems[group]; p != nil {
		p.more++
		return
	}
	c.problems[group] = &orderProblem{msg: msg, fix: fix}
	c.order = append(c.order, group)
}

// backends finds the webhooks of n whose backend Service another entry
// applies without being Ready (or applied at all) before n.
func (c *orderCheck) backends() {
	n, a := c.n, c.n.applied
	for _, h := range a.Hooks {
		if a.Services[h.Service] {
			continue
		}
		var by []*fluxNode
		for _, m := range c.listOthers() {
			if m.applied.Services[h.Service] {
				by = append(by, m)
			}
		}
		if len(by) == 0 || slices.ContainsFunc(by, func(m *fluxNode) bool { g := gate(m, c.done); return c.above[m] || (g != nil && g.e.Waits) }) {
			continue
		}
		b := by[0]
		switch g := gate(b, c.done); {
		case g == b:
			c.report("wait "+b.key, fmt.Sprintf("%s applies the backend of %s, Ready before its pods", n.name(b), h.What), "set wait: true on it")
		case g != nil:
			c.report("wait "+g.key, fmt.Sprintf("%s applies %s, backend of %s, Ready before its pods", n.name(g), n.name(b), h.What), "set wait: true on it")
		case before(b)[n]:
			c.report("reversed "+b.key, fmt.Sprintf("%s applies the backend of %s and depends on this entry", n.name(b), h.What), "apply the webhook with it or after it")
		default:
			c.report("order "+b.key, fmt.Sprintf("%s applies the backend of %s", n.name(b), h.What), "add it to dependsOn")
		}
	}
}

// crds finds the custom resources of n whose CRD another entry applies
// after n.
func (c *orderCheck) crds() {
	n, a := c.n, c.n.applied
	for _, gk := range sortedKeys(a.Custom) {
		if a.CRDs[gk] != "" {
			continue
		}
		for _, m := range c.listOthers() {
			crd := m.applied.CRDs[gk]
			if crd == "" {
				continue
			}
			if g := gate(m, c.done); c.above[m] || g == m || (g != nil && g.e.Waits) {
				break
			}
			if before(m)[n] {
				c.report("reversed "+m.key, fmt.Sprintf("%s applies CRD %s of %s and depends on this entry", n.name(m), crd, a.Custom[gk]), "apply the CRD before it")
			} else {
				c.report("order "+m.key, fmt.Sprintf("%s applies CRD %s of %s", n.name(m), crd, a.Custom[gk]), "add it to dependsOn")
			}
			break
		}
	}
}

// lines is one line a problem group: the first problem, how many more,
// and the fix.
func (c *orderCheck) lines() []string {
	var out []string
	for _, group := range c.order {
		p := c.problems[group]
		more := ""
		if p.more > 0 {
			more = fmt.Sprintf(" (and %d more)", p.more)
		}
		out = append(out, p.msg+more+"; "+p.fix)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
