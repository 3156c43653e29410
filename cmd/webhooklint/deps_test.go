package main

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// testOnlyCarriers are the packages of other modules that link a test
// package into the binaries from their own, non-test files, with what they
// are needed for. Nothing else may (issue 38 item 2: a cold build compiles
// what the binaries link, and a test package is never needed).
var testOnlyCarriers = map[string]string{
	// Both call testing.Testing; every Helm package that renders a chart
	// imports them.
	"helm.sh/helm/v4/internal/version": "helm-render", "helm.sh/helm/v4/pkg/chart/common": "helm-render",
	// fake.go, which the typed clients' package holds, imports
	// client-go/testing: every client-go client links it.
	"k8s.io/client-go/gentype": "the cluster command",
}

// testLike reports whether a package is one that only tests need.
func testLike(path, module string, testOnly map[string]bool) bool {
	if testOnly[path] {
		return true
	}
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return strings.HasPrefix(rest, "hack/") || strings.HasSuffix(rest, "test")
	}
	if path == "testing" || strings.HasPrefix(path, "testing/") {
		return true
	}
	for _, part := range strings.Split(path, "/") {
		if part == "fake" || part == "testing" || part == "testutil" || part == "testrestmapper" || part == "testdata" {
			return true
		}
	}
	return false
}

type listed struct {
	ImportPath, Name, Module           string
	Imports, TestImports, XTestImports []string
	Standard                           bool
}

func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,TestImports,XTestImports"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// No package that only tests or development commands need is linked into
// webhooklint or webhookvet: not this module's test helpers (the packages
// only _test files import, internal/*test, hack/), and not the test
// packages of dependencies (testing, fake clients), except where a
// dependency's own code imports one (testOnlyCarriers).
func TestBinariesLinkNoTestPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list on the module")
	}
	const module = "github.com/webhooklint/webhooklint"
	// This module's packages that only tests import.
	testOnly := map[string]bool{}
	imported := map[string]bool{}
	for _, p := range goList(t, "./...") {
		for _, i := range p.Imports {
			imported[i] = true
		}
		for _, i := range append(p.TestImports, p.XTestImports...) {
			if strings.HasPrefix(i, module+"/") {
				testOnly[i] = true
			}
		}
	}
	for p := range testOnly {
		if imported[p] {
			delete(testOnly, p)
		}
	}
	if !testOnly[module+"/internal/linewidth"] {
		t.Errorf("internal/linewidth, which only tests import, is not found test-only: %v", testOnly)
	}
	for _, bin := range []string{"./cmd/webhooklint", "./cmd/webhookvet"} {
		deps := goList(t, "-deps", bin)
		importers := map[string][]string{}
		for _, p := range deps {
			for _, i := range p.Imports {
				importers[i] = append(importers[i], p.ImportPath)
			}
		}
		linked := 0
		for _, p := range deps {
			if !testLike(p.ImportPath, module, testOnly) {
				continue
			}
			linked++
			// A test package is allowed only through a carrier, or another
			// test package of a dependency (the fake clients import each
			// other and client-go/testing).
			for _, by := range importers[p.ImportPath] {
				_, carrier := testOnlyCarriers[by]
				dependency := !strings.HasPrefix(by, module+"/")
				if !carrier && (!dependency || !testLike(by, module, testOnly)) {
					t.Errorf("%s links %s, which only tests need (imported by %s)", bin, p.ImportPath, by)
				}
			}
		}
		t.Logf("%s: %d packages, %d test packages its dependencies link", bin, len(deps), linked)
		if slices.ContainsFunc(deps, func(p listed) bool { return strings.HasPrefix(p.ImportPath, module+"/hack/") }) {
			t.Errorf("%s links a hack/ command", bin)
		}
	}
}
