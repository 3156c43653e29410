package main

import (
	"os/exec"
	"strings"
	"testing"
)

// go vet starts webhookvet once per package of the build, dependencies
// included (1,000 to 3,000 times on a large operator), and each start pays
// the package init of everything linked in. client-go (its scheme, REST
// and discovery clients) has nothing to do here and cost 2.4 ms of init
// per start; keep it out.
func TestNoClientGo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "k8s.io/client-go/") || strings.HasPrefix(p, "helm.sh/") || strings.HasPrefix(p, "sigs.k8s.io/kustomize/") {
			t.Errorf("webhookvet links %s", p)
		}
	}
}
