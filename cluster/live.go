package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"

	"github.com/webhooklint/webhooklint/rules"
)

// readLive reads what the live rules and the backend checks need. A part that cannot be read
// (typically Forbidden by RBAC) is left unknown, so the rules depending on
// it stay silent, and a note says why.
func readLive(ctx context.Context, c kubernetes.Interface, chunk int64) (*rules.LiveInventory, []string) {
	live := &rules.LiveInventory{}
	var notes []string
	skip := func(what string, err error) {
		notes = append(notes, fmt.Sprintf("live checks without %s: %v", what, err))
	}

	if items, err := pages(ctx, chunk, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Namespace, string, error) {
		l, err := c.CoreV1().Namespaces().List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	}); err != nil {
		skip("namespaces", err)
	} else {
		live.Namespaces = pointers(items)
	}

	if items, err := pages(ctx, chunk, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Service, string, error) {
		l, err := c.CoreV1().Services("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	}); err != nil {
		skip("services", err)
	} else {
		live.Services = pointers(items)
	}

	if items, err := pages(ctx, chunk, func(ctx context.Context, o metav1.ListOptions) ([]discoveryv1.EndpointSlice, string, error) {
		l, err := c.DiscoveryV1().EndpointSlices("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	}); err != nil {
		skip("endpointslices", err)
	} else {
		live.EndpointSlices = pointers(items)
	}

	if items, err := pages(ctx, chunk, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Pod, string, error) {
		l, err := c.CoreV1().Pods("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		for i := range l.Items {
			l.Items[i] = slimPod(&l.Items[i])
		}
		return l.Items, l.Continue, nil
	}); err != nil {
		skip("pods", err)
	} else {
		live.Pods = pointers(items)
	}

	if items, err := pages(ctx, chunk, func(ctx context.Context, o metav1.ListOptions) ([]policyv1.PodDisruptionBudget, string, error) {
		l, err := c.PolicyV1().PodDisruptionBudgets("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	}); err != nil {
		skip("poddisruptionbudgets", err)
	} else {
		live.DisruptionBudgets = pointers(items)
	}

	served, unavailable, err := servedResources(c.Discovery())
	if err != nil {
		skip("discovery", err)
	} else {
		live.Served, live.UnavailableGroups = served, unavailable
	}
	return live, notes
}

// slimPod keeps what the backend checks read of a pod (rules.SummarizePod,
// owner, labels), so a cluster's pods cost little memory between reads.
func slimPod(p *corev1.Pod) corev1.Pod {
	out := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: p.Namespace, Name: p.Name, Labels: p.Labels,
			OwnerReferences: p.OwnerReferences, DeletionTimestamp: p.DeletionTimestamp,
		},
		Spec: corev1.PodSpec{NodeName: p.Spec.NodeName, TopologySpreadConstraints: p.Spec.TopologySpreadConstraints},
	}
	if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		out.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: a.PodAntiAffinity}
	}
	slim := func(c corev1.Container) corev1.Container {
		s := corev1.Container{Name: c.Name, Ports: c.Ports, RestartPolicy: c.RestartPolicy}
		if c.ReadinessProbe != nil {
			s.ReadinessProbe = &corev1.Probe{} // only its presence is judged
		}
		return s
	}
	for _, c := range p.Spec.Containers {
		out.Spec.Containers = append(out.Spec.Containers, slim(c))
	}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil {
			out.Spec.InitContainers = append(out.Spec.InitContainers, slim(c))
		}
	}
	return out
}

// pages lists all items of a kind, page by page. These lists feed checks,
// not a snapshot anyone watches from, so an expired token simply restarts.
func pages[T any](ctx context.Context, chunk int64, list func(context.Context, metav1.ListOptions) ([]T, string, error)) ([]T, error) {
	for restarts := 0; ; restarts++ {
		var out []T
		opts := metav1.ListOptions{Limit: chunk}
		var err error
		for {
			var items []T
			var cont string
			items, cont, err = list(ctx, opts)
			if err != nil {
				break
			}
			out = append(out, items...)
			if cont == "" {
				return out, nil
			}
			opts.Continue = cont
		}
		if !isExpired(err) || opts.Continue == "" || restarts >= 3 {
			return nil, err
		}
	}
}

func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// servedResources flattens discovery. Group/versions whose discovery
// failed (an aggregated API server that is down) are returned apart.
func servedResources(d discovery.DiscoveryInterface) ([]rules.ServedResource, []string, error) {
	_, lists, err := d.ServerGroupsAndResources()
	var unavailable []string
	if err != nil {
		var partial *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &partial) {
			return nil, nil, err
		}
		for gv := range partial.Groups {
			unavailable = append(unavailable, gv.String())
		}
		sort.Strings(unavailable)
	}
	served := []rules.ServedResource{}
	for _, l := range lists {
		group, version, ok := strings.Cut(l.GroupVersion, "/")
		if !ok {
			group, version = "", l.GroupVersion
		}
		for _, r := range l.APIResources {
			served = append(served, rules.ServedResource{Group: group, Version: version, Resource: r.Name, Namespaced: r.Namespaced})
		}
	}
	return served, unavailable, nil
}

// serverVersion is the cluster's Kubernetes minor version, so the rules
// judge for the version actually running.
func serverVersion(d discovery.DiscoveryInterface) (rules.KubeVersion, error) {
	v, err := d.ServerVersion()
	if err != nil {
		return rules.KubeVersion{}, err
	}
	major, err1 := strconv.Atoi(strings.TrimRight(v.Major, "+"))
	minor, err2 := strconv.Atoi(strings.TrimRight(v.Minor, "+"))
	if err1 != nil || err2 != nil {
		return rules.KubeVersion{}, fmt.Errorf("unparsable server version %q.%q", v.Major, v.Minor)
	}
	return rules.KubeVersion{Major: major, Minor: minor}, nil
}
