package source

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// Argo CD syncs an Application's objects in steps: by phase (PreSync
// hooks, then the objects, then PostSync hooks), then by sync wave
// (`argocd.argoproj.io/sync-wave`, 0 by default, lowest first), applying
// a step only once everything of the steps before is synced and healthy
// (gitops-engine's sync tasks). Within a step the objects are applied
// together, in kind order, without waiting for health. A webhook
// configuration is healthy as soon as it exists: registered in an earlier
// step than its backend, a fail-closed webhook rejects whatever of the
// steps up to the backend's it intercepts, and the backend's step never
// comes. argoWaveFindings reports that, inside one Application's unit.

// syncStep is where Argo CD applies an object: phase, then wave.
type syncStep struct{ phase, wave int }

func (s syncStep) before(t syncStep) bool {
	return cmp.Or(cmp.Compare(s.phase, t.phase), cmp.Compare(s.wave, t.wave)) < 0
}

func (s syncStep) String() string {
	name := [...]string{"PreSync hook", "sync", "PostSync hook"}[s.phase+1]
	if s.phase == 0 {
		return fmt.Sprintf("sync wave %d", s.wave)
	}
	return fmt.Sprintf("%s wave %d", name, s.wave)
}

// syncObject is what Argo CD's ordering reads of one object.
type syncObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name        string            `yaml:"name"`
		Namespace   string            `yaml:"namespace"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
}

// step is where Argo CD applies o; false for an object a sync does not
// apply (a Skip, SyncFail or deletion hook, a Helm test). Helm hooks are
// Argo CD hooks of the matching phase, their weight the wave.
func (o *syncObject) step() (syncStep, bool) {
	a := o.Metadata.Annotations
	s := syncStep{}
	wave := a["argocd.argoproj.io/sync-wave"]
	if hook, ok := a["argocd.argoproj.io/hook"]; ok {
		switch strings.TrimSpace(strings.Split(hook, ",")[0]) {
		case "PreSync":
			s.phase = -1
		case "Sync":
		case "PostSync":
			s.phase = 1
		default:
			return s, false
		}
	} else if hook, ok := a["helm.sh/hook"]; ok {
		switch {
		case strings.Contains(hook, "pre-install") || strings.Contains(hook, "pre-upgrade"):
			s.phase = -1
		case strings.Contains(hook, "post-install") || strings.Contains(hook, "post-upgrade"):
			s.phase = 1
		default:
			return s, false
		}
		if wave == "" {
			wave = a["helm.sh/hook-weight"]
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(wave)); err == nil {
		s.wave = n
	}
	return s, true
}

// argoWaveFindings are the gitops-order findings of an Argo CD
// Application's unit (files, as linted): a fail-closed webhook, or a CRD's
// conversion webhook, applied in an earlier step than its backend, that
// intercepts what a step up to the backend's applies. Each is on the
// webhook's configuration (its sync-wave annotation when it has one),
// positioned in its file; the caller locates it further as it locates
// the rules' findings.
func argoWaveFindings(u *unit, files []*manifest.File) []diag.Diagnostic {
	if u.gitops == nil || !strings.HasPrefix(u.gitops.Kind, "Argo CD") {
		return nil
	}
	w := &waveCheck{ns: u.gitops.DefaultNamespace, byKey: map[string]syncStep{}, inv: manifest.Inventory(files)}
	for _, f := range files {
		w.readSteps(f)
	}
	for _, f := range files {
		for _, doc := range f.Docs {
			switch {
			case doc.Config != nil:
				w.webhooks(doc)
			case doc.CRD != nil:
				w.conversion(doc)
			}
		}
	}
	return w.out
}

// waveCheck is what argoWaveFindings compares in one Application: the
// step of every object it applies, and the findings so far.
type waveCheck struct {
	ns    string // the destination namespace, for objects that name none
	objs  []placedObject
	byKey map[string]syncStep
	inv   *rules.Inventory
	out   []diag.Diagnostic
}

// placedObject is an object the Application applies, at its step.
type placedObject struct {
	o    *syncObject
	step syncStep
}

func stepKey(kind, ns, name string) string { return kind + "/" + ns + "/" + name }

// readSteps places the objects of one file at their sync steps, from the
// text (hooks and waves are annotations the typed objects drop).
func (w *waveCheck) readSteps(f *manifest.File) {
	data := f.Data
	if data == nil {
		data, _ = overlay.ReadFile(f.Name)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		o := &syncObject{}
		if err := dec.Decode(o); err != nil {
			var typeErr *yaml.TypeError
			if !errors.As(err, &typeErr) {
				return // the end, or text the linter reports
			}
		}
		if o.Metadata.Namespace == "" {
			o.Metadata.Namespace = w.ns // cluster-scoped kinds ignore it
		}
		s, applied := o.step()
		if o.Kind == "" || !applied {
			continue
		}
		w.objs = append(w.objs, placedObject{o, s})
		w.byKey[stepKey(o.Kind, o.Metadata.Namespace, o.Metadata.Name)] = s
	}
}

// stepOf is the step of an object, looked up as written, then in the
// destination namespace it is applied in, then cluster-scoped.
func (w *waveCheck) stepOf(kind, ns, name string) (syncStep, bool) {
	if s, ok := w.byKey[stepKey(kind, ns, name)]; ok {
		return s, true
	}
	s, ok := w.byKey[stepKey(kind, w.ns, name)]
	if !ok {
		s, ok = w.byKey[stepKey(kind, "", name)]
	}
	return s, ok
}

// backendStep is the last step that applies the Service ref names or a
// workload it selects, with what it is; false when the unit has no such
// Service.
func (w *waveCheck) backendStep(ns, name string) (syncStep, string, bool) {
	var last syncStep
	what, found := "", false
	for _, svc := range w.inv.Services {
		if svc == nil || svc.Name != name || (svc.Namespace != ns && svc.Namespace != "") {
			continue
		}
		s, ok := w.stepOf("Service", svc.Namespace, svc.Name)
		if !ok {
			continue
		}
		last, what, found = s, fmt.Sprintf("Service %q", ns+"/"+name), true
		if len(svc.Spec.Selector) == 0 {
			continue
		}
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		for _, wl := range w.inv.Workloads {
			if (wl.Object.Namespace != ns && wl.Object.Namespace != "") || !sel.Matches(labels.Set(wl.PodLabels)) {
				continue
			}
			if s, ok := w.stepOf(wl.Object.Kind, wl.Object.Namespace, wl.Object.Name); ok && last.before(s) {
				last, what = s, fmt.Sprintf("%s %q", wl.Object.Kind, ns+"/"+wl.Object.Name)
			}
		}
	}
	return last, what, found
}

// report adds a finding at the object's sync-wave annotation (or its
// metadata, when it has none).
func (w *waveCheck) report(doc *manifest.Document, meta map[string]string, msg string) {
	path := "metadata"
	if _, ok := meta["argocd.argoproj.io/sync-wave"]; ok {
		path = "metadata.annotations[argocd.argoproj.io/sync-wave]"
	}
	at := doc.Locate(path, false)
	w.out = append(w.out, diag.Diagnostic{
		Span:     at.In(doc.File),
		Severity: rules.MustLookup(rules.GitOpsOrderRule).Severity, Rule: rules.GitOpsOrderRule,
		Object: doc.Object(), Path: path, Message: msg,
	})
}

// webhooks reports each fail-closed webhook of a configuration applied
// before its backend that would reject an object applied in between.
func (w *waveCheck) webhooks(doc *manifest.Document) {
	c := doc.Config
	hook, ok := w.stepOf(c.Kind, c.Meta.Namespace, c.Meta.Name)
	if !ok {
		return
	}
	for _, wh := range c.Webhooks {
		svc := wh.ClientConfig.Service
		closed := (wh.FailurePolicy == nil && c.APIVersion == rules.V1) || (wh.FailurePolicy != nil && *wh.FailurePolicy == admissionv1.Fail)
		if svc == nil || !closed {
			continue
		}
		backend, what, found := w.backendStep(svc.Namespace, svc.Name)
		if !found || !hook.before(backend) {
			continue
		}
		sim := wh.Simulator()
		for _, p := range w.objs {
			if !hook.before(p.step) || backend.before(p.step) {
				continue
			}
			req, ok := createRequest(w.inv, p.o)
			if !ok || sim.Simulate(req).Outcome != rules.Called {
				continue
			}
			w.report(doc, c.Meta.Annotations, fmt.Sprintf(
				"webhook %q fails closed from %s and rejects CREATE %s %q of %s, where its backend %s comes; move the webhook to %s or later",
				wh.Name, hook, req.Resource, p.o.Metadata.Name, p.step, what, backend))
			break
		}
	}
}

// conversion reports a CRD whose conversion webhook is applied before its
// backend while a custom resource at another version than the stored one
// is applied in between.
func (w *waveCheck) conversion(doc *manifest.Document) {
	crd := doc.CRD
	cv := crd.Spec.Conversion
	if cv == nil || cv.Strategy != apiextensionsv1.WebhookConverter || cv.Webhook == nil || cv.Webhook.ClientConfig == nil || cv.Webhook.ClientConfig.Service == nil {
		return
	}
	hook, ok := w.stepOf("CustomResourceDefinition", "", crd.Name)
	if !ok {
		return
	}
	svc := cv.Webhook.ClientConfig.Service
	backend, what, found := w.backendStep(svc.Namespace, svc.Name)
	if !found || !hook.before(backend) {
		return
	}
	storage := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	for _, p := range w.objs {
		group, version, _ := strings.Cut(p.o.APIVersion, "/")
		if group != crd.Spec.Group || p.o.Kind != crd.Spec.Names.Kind || version == storage ||
			!hook.before(p.step) || backend.before(p.step) {
			continue
		}
		w.report(doc, crd.Annotations, fmt.Sprintf(
			"the conversion webhook of CRD %s is called from %s for %s %q (%s), before its backend %s in %s; apply the backend in %s or earlier",
			crd.Name, hook, p.o.Kind, p.o.Metadata.Name, p.step, what, backend, hook))
		return
	}
}

// createRequest is the request Argo CD's apply of o makes when o does not
// exist yet; false when o's resource is not known (a kind of no CRD the
// unit has).
func createRequest(inv *rules.Inventory, o *syncObject) (*rules.Request, bool) {
	return rules.CreateRequest(inv, &rules.ObjectRef{
		APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, Labels: o.Metadata.Labels,
	})
}
