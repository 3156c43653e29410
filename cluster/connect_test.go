package cluster

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without any kubeconfig, the command says in one line where it looked,
// not client-go's KUBERNETES_MASTER hint.
func TestNoKubeconfigSaysWhereItLooked(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{missing + string(os.PathListSeparator) + empty, nil,
			"webhooklint cluster: no cluster to connect to: looked for a kubeconfig in $KUBECONFIG: " + missing + " (no such file), " + empty +
				" (empty) and for the in-cluster service account (KUBERNETES_SERVICE_HOST unset); give one with --kubeconfig FILE\n"},
		{"", []string{"--kubeconfig", missing}, "webhooklint cluster: --kubeconfig " + missing + ": no such file\n"},
		{"", []string{"simulate", "--kubeconfig", missing, "--operation", "CREATE", "--resource", "pods", "--namespace", "x"},
			"webhooklint cluster simulate: --kubeconfig " + missing + ": no such file\n"},
	} {
		t.Setenv("KUBECONFIG", c.env)
		var out, errOut bytes.Buffer
		code := Main(c.args, &out, &errOut)
		if code != exitUsage || out.Len() > 0 || errOut.String() != c.want {
			t.Errorf("KUBECONFIG=%s %q: exit %d, stderr\n%s\nwant\n%s", c.env, c.args, code, errOut.String(), c.want)
		}
	}
	// Unset: ~/.kube/config is where it looked.
	if err := os.Unsetenv("KUBECONFIG"); err != nil {
		t.Fatal(err)
	}
	if home, _ := os.UserHomeDir(); home != "" {
		if _, err := os.Stat(filepath.Join(home, ".kube", "config")); err == nil {
			t.Skip("this machine has a ~/.kube/config")
		}
	}
	var errOut bytes.Buffer
	if code := Main(nil, &bytes.Buffer{}, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "looked for a kubeconfig at ") ||
		!strings.Contains(errOut.String(), filepath.Join(".kube", "config")+" (no such file)") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
