// Package cluster is the live-cluster front end of webhooklint: it reads
// the webhook configurations an API server holds (once, or continuously
// with list and watch), together with what only a live cluster knows
// (Services, EndpointSlices, Namespaces, discovery), and lints them with
// the same rules as manifests.
//
// The list/watch loop is written by hand rather than built on client-go's
// reflector and informers: the command has to report, and the tests have
// to pin down, exactly which resourceVersion each read used, when a list
// was restarted after an expired continue token, when the streaming
// (sendInitialEvents) form fell back to list-then-watch, and that a relist
// after 410 Gone is diffed against the known state instead of replayed.
// The reflector hides all of these decisions behind a store.
package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Connection says how to reach the API server. Empty fields take the usual
// defaults: $KUBECONFIG (a list of files) or ~/.kube/config, the current
// context, and the in-cluster service account when no kubeconfig exists.
type Connection struct {
	Kubeconfig string
	Context    string
}

// RESTConfig resolves c into a client configuration.
func (c Connection) RESTConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules() // honors $KUBECONFIG
	if c.Kubeconfig != "" {
		rules.ExplicitPath = c.Kubeconfig
		if _, err := os.Stat(c.Kubeconfig); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--kubeconfig %s: no such file", c.Kubeconfig)
		}
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: c.Context}
	// The deferred loader falls back to the in-cluster config (service
	// account token and KUBERNETES_SERVICE_HOST) when no kubeconfig is found.
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, noCluster(rules.Precedence)
		}
		return nil, fmt.Errorf("cannot load cluster connection: %w", err)
	}
	cfg.UserAgent = "webhooklint"
	return cfg, nil
}

// noCluster says, in one line, where a connection was looked for: the
// kubeconfig files ($KUBECONFIG's, else ~/.kube/config) and the in-cluster
// service account. client-go's own message suggests KUBERNETES_MASTER,
// which nothing here reads.
func noCluster(files []string) error {
	var looked []string
	for _, f := range files {
		state := "empty"
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			state = "no such file"
		}
		looked = append(looked, f+" ("+state+")")
	}
	where := "a kubeconfig at " + strings.Join(looked, ", ")
	if v, ok := os.LookupEnv("KUBECONFIG"); ok && v != "" {
		where = "a kubeconfig in $KUBECONFIG: " + strings.Join(looked, ", ")
	}
	if len(looked) == 0 {
		where = "a kubeconfig ($KUBECONFIG and ~/.kube/config unset)"
	}
	inCluster := "KUBERNETES_SERVICE_HOST unset"
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		inCluster = "no token at " + serviceAccountToken
	}
	return fmt.Errorf("no cluster to connect to: looked for %s and for the in-cluster service account (%s); give one with --kubeconfig FILE", where, inCluster)
}

// serviceAccountToken is where a pod's service account token is mounted.
const serviceAccountToken = "/var/run/secrets/kubernetes.io/serviceaccount/token"
