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
	"fmt"

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
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: c.Context}
	// The deferred loader falls back to the in-cluster config (service
	// account token and KUBERNETES_SERVICE_HOST) when no kubeconfig is found.
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot load cluster connection: %w", err)
	}
	cfg.UserAgent = "webhooklint"
	return cfg, nil
}
