package rules

import (
	"fmt"
	"strings"
)

// Provider is the Kubernetes platform the manifests are installed on.
// Some facts differ by platform (which ports the control plane can reach,
// what rewrites webhook configurations, which CA injectors exist); the
// provider-* rules judge them only when the platform is known, and the
// default, Generic, reports only what holds everywhere.
type Provider string

// The platforms webhooklint knows facts about.
const (
	Generic   Provider = "generic"
	GKE       Provider = "gke"
	EKS       Provider = "eks"
	AKS       Provider = "aks"
	OpenShift Provider = "openshift"
)

// Providers lists every accepted provider, Generic first.
var Providers = []Provider{Generic, GKE, EKS, AKS, OpenShift}

// ParseProvider reads the value of --provider and of provider in the
// configuration file; the empty string is Generic.
func ParseProvider(s string) (Provider, error) {
	t := Provider(s)
	if t == "" {
		return Generic, nil
	}
	for _, p := range Providers {
		if p == t {
			return p, nil
		}
	}
	names := make([]string, len(Providers))
	for i, p := range Providers {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown provider %q (want %s)", s, strings.Join(names, ", "))
}

// Name is how messages name the platform.
func (p Provider) Name() string {
	switch p {
	case GKE:
		return "GKE"
	case EKS:
		return "EKS"
	case AKS:
		return "AKS"
	case OpenShift:
		return "OpenShift"
	}
	return "any platform"
}

// provider is the run's platform, Generic when unset.
func (p *Pass) provider() Provider {
	if p.Settings == nil || p.Settings.Provider == "" {
		return Generic
	}
	return p.Settings.Provider
}
