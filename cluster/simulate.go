package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/simulate"
)

const clusterSimulateUsage = `Usage: webhooklint cluster simulate --operation OP --resource RESOURCE [flags]

The admission chain the cluster's API server runs for one request (see
webhooklint help simulate), from the webhook configurations, admission
policies and bindings, namespace labels and served versions the cluster
reports; when RBAC forbids reading the policies, they are shown as unknown. Exit status as for webhooklint
simulate; 3 when the cluster cannot be read.

Flags:
`

// simulateFlags are the values of webhooklint cluster simulate's flags.
type simulateFlags struct {
	conn    Connection
	f       simulate.Flags
	timeout time.Duration
}

func (v *simulateFlags) flagSet() *pflag.FlagSet {
	fs := cliflag.New("webhooklint cluster simulate")
	v.conn.bind(fs)
	fs.DurationVar(&v.timeout, "timeout", time.Minute, "give up reading the cluster after this long")
	v.f.Bind(fs)
	return fs
}

// runSimulate is `webhooklint cluster simulate`: the admission chain of one
// request against the configurations the cluster holds, with the real
// labels of the request's namespace, the versions the cluster serves (for
// matchPolicy Equivalent) and the cluster's Kubernetes version (for CEL).
// It only reads; the request itself is never sent.
func runSimulate(ctx context.Context, args []string, stdout, stderr io.Writer, restConfig *rest.Config) int {
	var v simulateFlags
	fs := v.flagSet()
	if err := cliflag.Parse(fs, args); err != nil {
		if errors.Is(err, cliflag.ErrHelp) {
			fmt.Fprint(stdout, clusterSimulateUsage)
			cliflag.PrintFlags(stdout, fs)
			return exitClean
		}
		fmt.Fprintln(stderr, cliflag.UsageError("webhooklint cluster simulate", err))
		return exitUsage
	}
	conn, f, timeout := v.conn, v.f, v.timeout
	usage := func(err error) int {
		fmt.Fprintf(stderr, "webhooklint cluster simulate: %v\n", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usage(fmt.Errorf("unexpected arguments %q (cluster simulate reads no files)", fs.Args()))
	}
	if err := f.Check(); err != nil {
		return usage(err)
	}
	req, err := f.Spec.Resolve()
	if err != nil {
		return usage(err)
	}
	if restConfig == nil {
		if restConfig, err = conn.RESTConfig(); err != nil {
			return usage(err)
		}
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return usage(err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	configs, opts, notes, err := readForSimulation(ctx, client, req)
	if err != nil {
		fmt.Fprintf(stderr, "webhooklint cluster simulate: %v\n", err)
		return exitFailure
	}
	chain := simulate.Simulate(configs, req, opts)
	chain.Notes = append(chain.Notes, notes...)
	answer := &simulate.Answer{Units: []simulate.Unit{{Chain: chain}}}
	if err := simulate.Write(stdout, f.Format, ToolVersion, answer); err != nil {
		fmt.Fprintf(stderr, "webhooklint cluster simulate: writing output: %v\n", err)
		return exitFailure
	}
	return answer.ExitCode()
}

// readForSimulation reads both configuration kinds, the admission
// policies and bindings, the request's namespace, the served versions and
// the server version.
func readForSimulation(ctx context.Context, c kubernetes.Interface, req *simulate.Request) ([]*rules.Config, simulate.Options, []string, error) {
	var configs []*rules.Config
	var notes []string
	for _, k := range kindsOf(c) {
		snap, err := list(ctx, k, ListOptions{ChunkSize: 500})
		if err != nil {
			return nil, simulate.Options{}, nil, err
		}
		configs = append(configs, snap.Configs...)
	}
	opts := simulate.Options{}
	if v, err := serverVersion(c.Discovery()); err == nil {
		opts.KubeVersion = v
	} else {
		notes = append(notes, fmt.Sprintf("server version unknown (%v); simulating Kubernetes %s", err, rules.DefaultKubeVersion))
	}
	newNamespace := req.Resource == "namespaces" && req.Group == "" && req.Operation == admissionv1.Create
	if req.Namespace != "" && req.NamespaceLabels == nil && !newNamespace {
		labels, note, err := namespaceLabels(ctx, c, req.Namespace)
		if err != nil {
			return nil, simulate.Options{}, nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		opts.NamespaceLabels = func(string) *rules.Labels { return labels }
	}
	policies, unknown, policyNotes, err := readPolicies(ctx, c)
	if err != nil {
		return nil, simulate.Options{}, nil, err
	}
	notes = append(notes, policyNotes...)
	opts.Policies, opts.PoliciesUnknown = policies, unknown
	// Without a bound MutatingAdmissionPolicy only webhooks can trigger
	// reinvocation.
	opts.NoMutatingPolicies = unknown == "" && !slices.ContainsFunc(policies, func(p *rules.Policy) bool { return p.Kind == rules.MutatingPolicyBinding })
	served, unavailable, err := servedResources(c.Discovery())
	switch {
	case err != nil:
		notes = append(notes, fmt.Sprintf("discovery failed (%v): matchPolicy Equivalent uses the built-in versions", err))
	default:
		if len(unavailable) > 0 {
			notes = append(notes, "discovery failed for "+strings.Join(unavailable, ", "))
		}
		opts.EquivalentVersions = func(group, resource, sub string) []string {
			name := resource
			if sub != "" {
				name += "/" + sub
			}
			var versions []string
			for _, s := range served {
				if s.Group == group && s.Resource == name {
					versions = append(versions, s.Version)
				}
			}
			return versions // nil when not served: the built-in table decides
		}
	}
	return configs, opts, notes, nil
}

// readPolicies lists the admission policies and bindings of the kinds
// discovery says the server serves (a kind it does not serve has none).
// When discovery fails or RBAC forbids a kind, unknown says why and no
// policy is returned: the chain then says the policies are unknown
// instead of pretending there are none.
func readPolicies(ctx context.Context, c kubernetes.Interface) (policies []*rules.Policy, unknown string, notes []string, err error) {
	kinds, notes, err := servedPolicyKinds(c)
	if err != nil {
		return nil, err.Error(), nil, nil
	}
	for _, k := range kinds {
		snap, err := list(ctx, k, ListOptions{ChunkSize: 500})
		switch {
		case apierrors.IsForbidden(err):
			return nil, policiesForbidden(k.Resource), nil, nil
		case err != nil:
			return nil, "", nil, err
		}
		policies = append(policies, snap.Policies...)
	}
	return policies, "", notes, nil
}

// namespaceLabels reads the labels of ns. A namespace that does not exist
// has unknown labels (it may be created before the request is sent).
func namespaceLabels(ctx context.Context, c kubernetes.Interface, ns string) (*rules.Labels, string, error) {
	n, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return &rules.Labels{Set: map[string]string{rules.LabelMetadataName: ns}, Partial: true},
			fmt.Sprintf("namespace %s does not exist in the cluster, so its labels are unknown", ns), nil
	case apierrors.IsForbidden(err):
		return &rules.Labels{Set: map[string]string{rules.LabelMetadataName: ns}, Partial: true},
			fmt.Sprintf("cannot read namespace %s (%v), so its labels are unknown", ns, err), nil
	case err != nil:
		return nil, "", fmt.Errorf("read namespace %s: %w", ns, err)
	}
	set := map[string]string{}
	for k, v := range n.Labels {
		set[k] = v
	}
	set[rules.LabelMetadataName] = ns
	return rules.KnownLabels(set), "", nil
}
