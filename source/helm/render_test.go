package helm

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

const chartDir = "../../testdata/sources/helm/webhook-chart"

func render(t *testing.T, values ...string) *Chart {
	t.Helper()
	var vf []string
	for _, v := range values {
		vf = append(vf, filepath.Join(chartDir, v))
	}
	c, err := Render(chartDir, Options{ValuesFiles: vf, KubeVersion: "v1.37.0"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func template(t *testing.T, c *Chart, name string) *Template {
	t.Helper()
	for _, tpl := range c.Templates {
		if tpl.Name == name {
			return tpl
		}
	}
	t.Fatalf("no template %s rendered", name)
	return nil
}

func TestRenderSkipsHelpersAndNotes(t *testing.T) {
	c := render(t)
	var names []string
	for _, tpl := range c.Templates {
		names = append(names, tpl.Name)
	}
	want := "webhook-chart/templates/deployment.yaml webhook-chart/templates/service.yaml webhook-chart/templates/webhook.yaml"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("rendered %s, want %s", got, want)
	}
	w := template(t, c, "webhook-chart/templates/webhook.yaml")
	if !strings.HasSuffix(w.File, filepath.Join("webhook-chart", "templates", "webhook.yaml")) || len(w.Source) == 0 {
		t.Errorf("template file %q, source %d bytes", w.File, len(w.Source))
	}
}

// The two values files switch failurePolicy and the namespaceSelector.
func TestRenderValuesSwitch(t *testing.T) {
	def := string(template(t, render(t), "webhook-chart/templates/webhook.yaml").Rendered)
	strict := string(template(t, render(t, "values-strict.yaml"), "webhook-chart/templates/webhook.yaml").Rendered)
	for _, want := range []string{"failurePolicy: Ignore\n  timeoutSeconds: 5", "namespaceSelector:", "operator: NotIn", "name: release-name-webhook-chart"} {
		if !strings.Contains(def, want) {
			t.Errorf("default values: %q not rendered in\n%s", want, def)
		}
	}
	if !strings.Contains(strict, "failurePolicy: Fail") || strings.Contains(strict, "namespaceSelector") {
		t.Errorf("values-strict.yaml not applied:\n%s", strict)
	}
}

func TestTraceWebhookTemplate(t *testing.T) {
	w := template(t, render(t), "webhook-chart/templates/webhook.yaml")
	cases := []struct {
		path           string
		line, col      int
		exact, literal bool
	}{
		{"", 2, 1, false, false},
		{"webhooks[0].failurePolicy", 15, 18, true, false},
		{"webhooks[0].timeoutSeconds", 16, 19, true, false},
		{"webhooks[1].failurePolicy", 38, 18, true, true},
		{"webhooks[1].matchPolicy", 39, 16, true, true},
		{"webhooks[1].clientConfig.service.path", 44, 13, true, true},
		{"webhooks[0].clientConfig.service.path", 28, 13, true, true},
		// Flow lists are one line: the list.
		{"webhooks[0].rules[0].operations[1]", 33, 17, true, true},
		// Written by toYaml from values: the enclosing key is the line.
		{"webhooks[0].namespaceSelector.matchExpressions[0].operator", 18, 3, false, false},
		// Not written at all: the closest written ancestor (the webhook).
		{"webhooks[1].timeoutSeconds", 35, 1, false, false},
		{"metadata.labels[app.kubernetes.io/name]", 6, 29, true, false},
	}
	for _, c := range cases {
		got := w.Trace(0, c.path)
		if got.Line != c.line || got.Column != c.col || got.Exact != c.exact || got.Literal != c.literal {
			t.Errorf("%s: got %+v, want line %d col %d exact %v literal %v", c.path, got, c.line, c.col, c.exact, c.literal)
		}
	}
}

// A dependency that would have to be downloaded is skipped, not fetched,
// and said so; the chart's own templates still render.
func TestMissingDependencyIsSkippedNotFetched(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n- name: common\n  version: 1.x\n  repository: https://charts.example.com\n")
	testkit.WriteFile(t, filepath.Join(dir, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	c, err := Render(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Dependency{{Name: "common", Repository: "https://charts.example.com", Line: 5, Column: 3}}
	if len(c.Templates) != 1 || !reflect.DeepEqual(c.MissingDeps, want) {
		t.Fatalf("templates %d, missing %+v", len(c.Templates), c.MissingDeps)
	}
}

func TestTemplateErrorIsPositioned(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: broken\nversion: 0.1.0\n")
	testkit.WriteFile(t, filepath.Join(dir, "templates", "w.yaml"), "kind: ConfigMap\nmetadata:\n  name: {{ required \"name is required\" .Values.name }}\n")
	testkit.WriteFile(t, filepath.Join(dir, "templates", "ok.yaml"), "kind: ConfigMap\nmetadata:\n  name: ok\n")
	c, err := Render(dir, Options{})
	if err != nil || len(c.Skipped) != 1 {
		t.Fatalf("got %v", err)
	}
	he := c.Skipped[0]
	if he.Line != 3 || !strings.HasSuffix(he.File, filepath.Join("templates", "w.yaml")) || !strings.HasPrefix(he.Msg, "chart needs name:") || strings.Contains(he.Msg, "\n") {
		t.Fatalf("got %#v", he)
	}
	if len(c.Templates) != 1 || c.Templates[0].Name != "broken/templates/ok.yaml" {
		t.Errorf("the other template was not rendered: %v", c.Templates)
	}
}

// A parse error names a line but no column; it is placed there, not at
// Chart.yaml.
func TestParseErrorIsPositioned(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: broken\nversion: 0.1.0\n")
	testkit.WriteFile(t, filepath.Join(dir, "templates", "w.yaml"), "kind: ConfigMap\nmetadata:\n  name: x\n  x: {{ if }}\n")
	c, err := Render(dir, Options{})
	if err != nil || len(c.Skipped) != 1 {
		t.Fatalf("got %v", err)
	}
	if he := c.Skipped[0]; he.Line != 4 || !strings.HasSuffix(he.File, filepath.Join("templates", "w.yaml")) {
		t.Fatalf("got %#v", he)
	}
}

// Templates that would run for minutes or take the machine's memory stop
// at a limit, reported at the action; the chart's other templates are
// rendered. Each case would take gigabytes or hang without the budget.
func TestRenderLimits(t *testing.T) {
	cases := []struct{ name, tpl, want string }{
		{"until", "{{ range until 100000000 }}x{{ end }}", "until of 100000000 elements"},
		{"untilStep", "{{ range untilStep 0 100000000 1 }}x{{ end }}", "untilStep of 100000000 elements"},
		{"seq", "{{ seq 1 100000000 }}", "seq of 99999999 elements"},
		{"repeat", "{{ repeat 100000000 \"xx\" }}", "repeat 100000000 times"},
		{"nested loops", "{{ range until 100000 }}{{ range until 100000 }}{{ range until 100000 }}xxxxxxxx{{ end }}{{ end }}{{ end }}", "rendering took more than"},
	}
	defer func(m uint64) { maxRenderHeap = m }(maxRenderHeap)
	maxRenderHeap = 16 << 20 // the same check, reached sooner
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: hostile\nversion: 0.1.0\n")
			testkit.WriteFile(t, filepath.Join(dir, "templates", "bad.yaml"), "kind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  x: |\n    "+c.tpl+"\n")
			testkit.WriteFile(t, filepath.Join(dir, "templates", "ok.yaml"), "kind: ConfigMap\nmetadata:\n  name: ok\n")
			ch, err := Render(dir, Options{})
			if err != nil || len(ch.Skipped) != 1 {
				t.Fatalf("got %v", err)
			}
			e := ch.Skipped[0]
			if e.Line != 6 || !strings.HasSuffix(e.File, "bad.yaml") || !strings.Contains(e.Msg, c.want) {
				t.Errorf("got %s:%d:%d %s", e.File, e.Line, e.Column, e.Msg)
			}
			if len(ch.Templates) != 1 {
				t.Errorf("rendered %d templates, want the other one", len(ch.Templates))
			}
		})
	}
}

// Rendering opens no socket: a dependency's repository, a lookup and a
// DNS function get nothing from a recording loopback server.
func TestRenderIsOffline(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: net\nversion: 0.1.0\n")
	testkit.WriteFile(t, filepath.Join(dir, "values.yaml"), "url: "+srv.URL+"\n")
	testkit.WriteFile(t, filepath.Join(dir, "templates", "cm.yaml"), `kind: ConfigMap
metadata:
  name: x
data:
  lookup: {{ lookup "v1" "Namespace" "" "default" | quote }}
  dns: {{ getHostByName "`+host+`" | quote }}
  url: {{ .Values.url | quote }}
`)
	if _, err := Render(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: net\nversion: 0.1.0\ndependencies:\n- name: dep\n  version: 1.x\n  repository: "+srv.URL+"\n")
	if c, err := Render(dir, Options{}); err != nil || len(c.MissingDeps) != 1 {
		t.Fatalf("a missing dependency is not skipped and reported: %v", err)
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("rendering made %d requests", n)
	}
}

// A webhook list written in a named template and included below
// `webhooks:` is traced into the define block, item by item; the
// including template's own fields stay where they are.
func TestTraceIntoNamedTemplate(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: hooks\nversion: 0.1.0\n")
	testkit.WriteFile(t, filepath.Join(dir, "templates", "_webhooks.tpl"), `{{- define "hooks.webhooks" -}}
- name: a.hooks.example.com
  {{- if .Values.strict }}
  failurePolicy: Fail
  {{- end }}
  sideEffects: None
- name: b.hooks.example.com
  timeoutSeconds: 30
{{- end }}
`)
	testkit.WriteFile(t, filepath.Join(dir, "templates", "webhook.yaml"), `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: hooks
webhooks:
{{ include "hooks.webhooks" . }}
`)
	c, err := Render(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := template(t, c, "hooks/templates/webhook.yaml")
	helpers := filepath.Join(dir, "templates", "_webhooks.tpl")
	for _, tc := range []struct {
		path      string
		file      string
		line, col int
	}{
		{"webhooks[1].timeoutSeconds", helpers, 8, 19},
		{"webhooks[0].sideEffects", helpers, 6, 16},
		{"metadata.name", "", 4, 9},
	} {
		got := w.Trace(0, tc.path)
		if got.File != tc.file || got.Line != tc.line || got.Column != tc.col || !got.Exact {
			t.Errorf("%s: got %+v, want %s:%d:%d", tc.path, got, tc.file, tc.line, tc.col)
		}
	}
}

// A render's time is spent when both its wall-clock time and as much CPU
// time of the process have passed: on a machine where the process gets a
// tenth of a CPU, a chart is not cut off at the wall-clock deadline, and a
// loop is still stopped once it has had its CPU time.
func TestRenderTimeIsCPUTime(t *testing.T) {
	defer func(d time.Duration, cpu func() (time.Duration, bool)) { renderTimeout, processCPU = d, cpu }(renderTimeout, processCPU)
	renderTimeout = 100 * time.Millisecond
	start := time.Now()
	processCPU = func() (time.Duration, bool) { return time.Since(start) / 10, true }
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: busy\nversion: 0.1.0\n")
	testkit.WriteFile(t, filepath.Join(dir, "templates", "loop.yaml"), "kind: ConfigMap\nmetadata:\n  name: loop\ndata:\n  x: |\n"+
		"    {{ range until 1000000 }}{{ range until 1000000 }}{{ add 1 1 }}{{ end }}{{ end }}\n")
	began := time.Now()
	ch, err := Render(dir, Options{})
	took := time.Since(began)
	if err != nil || len(ch.Skipped) != 1 || !strings.Contains(ch.Skipped[0].Msg, "rendering ran longer than 100ms") {
		t.Fatalf("got %v, %+v", err, ch)
	}
	// The process's clock passes 100ms of CPU after a second of wall time.
	if took < time.Second {
		t.Errorf("the loop was stopped after %s, before it had its CPU time", took)
	}
}
