package source

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/gitops"
	"github.com/webhooklint/webhooklint/source/helm"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// postRendered says what a HelmRelease's postRenderers changed: per
// object (kind/namespace/name), the fields each step set, so that a
// finding on one is reported at the step that wrote it.
type postRendered struct {
	entry   *gitops.Entry
	changed map[string][]postChange
}

type postChange struct {
	path string // as findings name fields: spec.template.spec.containers[0].image
	step gitops.PostRenderStep
}

// postRender applies an entry's postRenderers to the rendered chart, as
// helm-controller does after `helm template`: each step is one in-memory
// kustomize build over the objects as the previous step left them. Only
// the templates holding an object a step changed are rewritten, so the
// others keep their lines. Both renders are transformed when the chart
// renders twice (Again), so that only what the chart itself changes
// between renders is seen as regenerated.
func postRender(e *gitops.Entry, c *helm.Chart) (*postRendered, error) {
	p := &postRendered{entry: e, changed: map[string][]postChange{}}
	if err := transformTemplates(e.Chart.PostRender, c.Templates, func(t *helm.Template) *[]byte { return &t.Rendered }, p); err != nil {
		return nil, err
	}
	if slices.ContainsFunc(c.Templates, func(t *helm.Template) bool { return t.Again != nil }) {
		if err := transformTemplates(e.Chart.PostRender, c.Templates, func(t *helm.Template) *[]byte { return &t.Again }, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// renderedObject is one document of a template's output.
type renderedObject struct {
	key    string
	fields map[string]any // nil: not an object (empty, a comment), kept as written
	text   []byte
}

// transformTemplates runs the steps over the objects of every template
// and rewrites the templates whose objects they changed.
func transformTemplates(steps []gitops.PostRenderStep, ts []*helm.Template, out func(*helm.Template) *[]byte, record *postRendered) error {
	all, docs := splitTemplates(ts, out)
	if len(docs) == 0 {
		return nil
	}
	base, cur, err := applySteps(steps, docs, record)
	if err != nil {
		return err
	}
	for i, t := range ts {
		if !changedAny(all[i], base, cur) {
			continue
		}
		b, err := rewriteTemplate(all[i], cur)
		if err != nil {
			return err
		}
		*out(t) = b
	}
	return nil
}

// splitTemplates splits each template's output into its documents, and
// gathers the objects among them for kustomize.
func splitTemplates(ts []*helm.Template, out func(*helm.Template) *[]byte) (all [][]renderedObject, docs [][]byte) {
	for _, t := range ts {
		objs := splitRendered(*out(t))
		all = append(all, objs)
		for _, o := range objs {
			if o.fields != nil {
				docs = append(docs, o.text)
			}
		}
	}
	return all, docs
}

// applySteps builds the objects once with no step (base) and then through
// each step in turn (cur), recording the fields each step set.
func applySteps(steps []gitops.PostRenderStep, docs [][]byte, record *postRendered) (base, cur map[string]map[string]any, err error) {
	// kustomize writes every object its own way (key order, quoting): the
	// first pass, with no step, is what the steps are compared against.
	cur, err = transform(docs, nil)
	if err != nil {
		return nil, nil, &stepError{err: err}
	}
	base = cur
	for _, s := range steps {
		next, err := transform(marshalAll(cur), s.Fields)
		if err != nil {
			return nil, nil, &stepError{step: s, err: err}
		}
		if record != nil {
			for k, after := range next {
				for _, path := range diffPaths("", cur[k], after) {
					record.changed[k] = append(record.changed[k], postChange{path: path, step: s})
				}
			}
		}
		cur = next
	}
	return base, cur, nil
}

// changedAny says whether the steps changed (or deleted) an object of the
// template: only those templates are rewritten, so the others keep their
// lines.
func changedAny(objs []renderedObject, base, cur map[string]map[string]any) bool {
	for _, o := range objs {
		if o.fields != nil && !reflect.DeepEqual(base[o.key], cur[o.key]) {
			return true
		}
	}
	return false
}

// rewriteTemplate writes a template's documents again: its objects as the
// steps left them, what is not an object as it was written.
func rewriteTemplate(objs []renderedObject, cur map[string]map[string]any) ([]byte, error) {
	var b bytes.Buffer
	for j, o := range objs {
		after, kept := cur[o.key]
		if o.fields != nil && !kept {
			continue // a $patch: delete removed it
		}
		if j > 0 {
			b.WriteString("---\n")
		}
		if o.fields == nil {
			b.Write(o.text)
			continue
		}
		y, err := sigsyaml.Marshal(after)
		if err != nil {
			return nil, err
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// stepError is a post-render step kustomize could not apply (step is
// zero when the rendered objects themselves do not build).
type stepError struct {
	step gitops.PostRenderStep
	err  error
}

func (e *stepError) Error() string { return e.err.Error() }

// postRenderProblem reports a failed post-render at the step, or at the
// entry: the chart is then linted as rendered.
func postRenderProblem(e *gitops.Entry, err error) diag.Diagnostic {
	at, what := e.At, "postRenderers"
	if se := (*stepError)(nil); errors.As(err, &se) && se.step.What != "" {
		at, what = se.step.At, se.step.What
	}
	return gitopsNote(at, fmt.Sprintf("%s: %s cannot be applied (%v); its chart is linted as rendered, without postRenderers", e.Label(), what, err), true)
}

// transform runs one kustomize step and returns the objects by key.
func transform(docs [][]byte, fields map[string]any) (map[string]map[string]any, error) {
	objs, err := kustomize.Transform(docs, fields)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]any, len(objs))
	for _, o := range objs {
		var m map[string]any
		if err := sigsyaml.Unmarshal(o.YAML, &m); err != nil {
			return nil, err
		}
		out[objectKey(o.Kind, o.Namespace, o.Name)] = m
	}
	return out, nil
}

func marshalAll(objs map[string]map[string]any) [][]byte {
	var out [][]byte
	for _, k := range slices.Sorted(mapsKeys(objs)) {
		if y, err := sigsyaml.Marshal(objs[k]); err == nil {
			out = append(out, y)
		}
	}
	return out
}

func objectKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

// splitRendered splits a template's output into its documents, as the
// linter splits it.
func splitRendered(text []byte) []renderedObject {
	var out []renderedObject
	for _, doc := range manifest.Documents(text) {
		o := renderedObject{text: doc}
		var m map[string]any // a list, a scalar or nothing is kept as written
		if sigsyaml.Unmarshal(doc, &m) == nil && m["kind"] != nil {
			md, _ := m["metadata"].(map[string]any)
			name, _ := md["name"].(string)
			ns, _ := md["namespace"].(string)
			kind, _ := m["kind"].(string)
			o.key, o.fields = objectKey(kind, ns, name), m
		}
		out = append(out, o)
	}
	return out
}

// diffPaths lists the fields of after that differ from before, at the
// highest path that differs (an added map is one path).
func diffPaths(at string, before, after any) []string {
	if reflect.DeepEqual(before, after) {
		return nil
	}
	switch a := after.(type) {
	case map[string]any:
		b, ok := before.(map[string]any)
		if !ok {
			break
		}
		var out []string
		for _, k := range slices.Sorted(mapsKeys(a)) {
			out = append(out, diffPaths(fieldpath.Field(at, k), b[k], a[k])...)
		}
		return out
	case []any:
		b, ok := before.([]any)
		if !ok || len(b) != len(a) {
			break
		}
		var out []string
		for i := range a {
			out = append(out, diffPaths(fieldpath.Index(at, i), b[i], a[i])...)
		}
		return out
	}
	return []string{at}
}

// relocate moves each finding on a field a step changed to that step in
// the HelmRelease, with the template line as related location.
func (p *postRendered) relocate(ds []diag.Diagnostic) {
	if p == nil {
		return
	}
	for i := range ds {
		d := &ds[i]
		if d.Object == nil || d.Path == "" {
			continue
		}
		changes := p.changed[objectKey(d.Object.Kind, d.Object.Namespace, d.Object.Name)]
		if changes == nil { // rendered without a namespace, linted in the release's
			changes = p.changed[objectKey(d.Object.Kind, "", d.Object.Name)]
		}
		for j := len(changes) - 1; j >= 0; j-- {
			c := changes[j]
			if !fieldpath.Within(d.Path, c.path) {
				continue
			}
			moveToEntry(d, c.step.At, "the chart's template writes it here, before postRenderers")
			d.Origin = fmt.Sprintf("%s (%s)", p.entry.Label(), c.step.What)
			break
		}
	}
}
