package gclplugin

import (
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
)

func TestNew(t *testing.T) {
	p, err := New(map[string]any{"kubeVersion": "1.34", "disable": []any{}, "minSeverity": "info"})
	if err != nil {
		t.Fatal(err)
	}
	as, err := p.BuildAnalyzers()
	if err != nil || len(as) != 1 || as[0].Name != "webhooklint" {
		t.Fatalf("BuildAnalyzers() = %v, %v; want the webhooklint analyzer", as, err)
	}
	if p.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", p.GetLoadMode(), register.LoadModeTypesInfo)
	}
}

func TestNewRejectsBadSettings(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]any
		want     string
	}{
		{map[string]any{"kubeVersoin": "1.34"}, "kubeVersoin"},
		{map[string]any{"kubeVersion": "latest"}, `invalid Kubernetes version "latest"`},
		{map[string]any{"disable": []any{"no-such-rule"}}, `unknown rule "no-such-rule"`},
		{map[string]any{"minSeverity": "notice"}, `minSeverity: unknown severity "notice"`},
	} {
		_, err := New(tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v) error = %v, want it to mention %q", tc.settings, err, tc.want)
		}
	}
}

func TestRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin("webhooklint")
	if err != nil || newPlugin == nil {
		t.Fatalf("webhooklint is not registered: %v", err)
	}
}
