package helm

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	write(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n- name: common\n  version: 1.x\n  repository: https://charts.example.com\n")
	write(t, filepath.Join(dir, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	c, err := Render(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Dependency{{Name: "common", Repository: "https://charts.example.com", Line: 5, Column: 3}}
	if len(c.Templates) != 1 || !reflect.DeepEqual(c.Skipped, want) {
		t.Fatalf("templates %d, skipped %+v", len(c.Templates), c.Skipped)
	}
}

func TestTemplateErrorIsPositioned(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: broken\nversion: 0.1.0\n")
	write(t, filepath.Join(dir, "templates", "w.yaml"), "kind: ConfigMap\nmetadata:\n  name: {{ required \"name is required\" .Values.name }}\n")
	_, err := Render(dir, Options{})
	var he *Error
	if !errors.As(err, &he) || he.Line != 3 || !strings.HasSuffix(he.File, filepath.Join("templates", "w.yaml")) || !strings.Contains(he.Msg, "name is required") {
		t.Fatalf("got %#v", err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
