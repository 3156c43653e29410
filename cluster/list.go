package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/rules"
)

// ListOptions are the read semantics of one list, as the API defines them.
type ListOptions struct {
	// ChunkSize is the page size (limit); 0 lists in one page.
	ChunkSize int64
	// ResourceVersion "" asks for a consistent read of the most recent
	// state; "0" for any state the server has at hand (possibly stale);
	// anything else is interpreted according to ResourceVersionMatch.
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
	// AllowInconsistent continues a list whose continue token expired with
	// the token the server returned in the 410 status, instead of
	// restarting; the result may then mix states.
	AllowInconsistent bool
	// MaxRestarts bounds the restarts after expired continue tokens
	// (default 3).
	MaxRestarts int

	// afterPage runs after each page (tests use it to expire tokens).
	afterPage func(resource string, page int)
}

// Validate applies the API server's own rules for these parameters, so a
// bad combination is a usage error before anything is sent.
func (o ListOptions) Validate() error {
	if o.ChunkSize < 0 {
		return fmt.Errorf("--chunk-size must not be negative")
	}
	switch o.ResourceVersionMatch {
	case "":
	case metav1.ResourceVersionMatchExact, metav1.ResourceVersionMatchNotOlderThan:
		if o.ResourceVersion == "" {
			return fmt.Errorf("--resource-version-match needs --resource-version (resourceVersionMatch is forbidden unless resourceVersion is provided)")
		}
		if o.ResourceVersionMatch == metav1.ResourceVersionMatchExact && o.ResourceVersion == "0" {
			return fmt.Errorf(`--resource-version-match=Exact is forbidden for --resource-version=0 ("0" means any version)`)
		}
	default:
		return fmt.Errorf("--resource-version-match must be Exact or NotOlderThan, not %q", o.ResourceVersionMatch)
	}
	return nil
}

// ParseMatch accepts the API's spellings of resourceVersionMatch, case-insensitively.
func ParseMatch(s string) (metav1.ResourceVersionMatch, error) {
	switch strings.ToLower(s) {
	case "":
		return "", nil
	case "exact":
		return metav1.ResourceVersionMatchExact, nil
	case "notolderthan":
		return metav1.ResourceVersionMatchNotOlderThan, nil
	}
	return "", fmt.Errorf("--resource-version-match must be Exact or NotOlderThan, not %q", s)
}

// Snapshot is the result of listing one kind.
type Snapshot struct {
	Resource string
	Configs  []*rules.Config // sorted by name
	// Policies are the admission policies or bindings of a policy kind,
	// sorted by name (Configs is then empty).
	Policies []*rules.Policy
	// ResourceVersion is the list's resourceVersion: the state the
	// snapshot shows, and where a watch continues from.
	ResourceVersion string
	Pages           int
	// Restarts counts lists started over after an expired continue token.
	Restarts int
	// Inconsistent is set when the list was continued with the token of a
	// 410 response: objects changed meanwhile may be missing or doubled.
	Inconsistent bool
	// MaybeStale is set for resourceVersion "0": the server may have
	// answered from a cache that lags behind etcd.
	MaybeStale bool
}

// GoneError reports that the requested resourceVersion is no longer
// available (410 Gone / Expired): etcd compacted it.
type GoneError struct {
	Resource             string
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
	Err                  error
}

func (e *GoneError) Error() string {
	rv := e.ResourceVersion
	if e.ResourceVersionMatch != "" {
		rv += " (" + string(e.ResourceVersionMatch) + ")"
	}
	return fmt.Sprintf("list %s at resourceVersion %s: 410 Gone: that version is no longer available (compacted); "+
		"list without --resource-version for the most recent state, or pick a newer version (server said: %v)",
		e.Resource, rv, e.Err)
}

func (e *GoneError) Unwrap() error { return e.Err }

// isExpired reports a 410: Expired (continue tokens, watch caches) or Gone.
func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// list reads one kind in pages. A continue token that expires (410) makes
// the list start over, so the snapshot is one consistent state; with
// AllowInconsistent it goes on with the token the 410 carried instead.
func list(ctx context.Context, k *kind, o ListOptions) (*Snapshot, error) {
	maxRestarts := o.MaxRestarts
	if maxRestarts == 0 {
		maxRestarts = 3
	}
	restarts := 0
	for {
		snap, err := listOnce(ctx, k, o)
		var expired *expiredContinueError
		if errors.As(err, &expired) {
			restarts++
			if restarts > maxRestarts {
				return nil, fmt.Errorf("list %s: continue token expired %d times in a row; use a larger --chunk-size or --allow-inconsistent-continue: %w",
					k.Resource, restarts, expired.err)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		snap.Restarts = restarts
		return snap, nil
	}
}

type expiredContinueError struct{ err error }

func (e *expiredContinueError) Error() string { return e.err.Error() }

func listOnce(ctx context.Context, k *kind, o ListOptions) (*Snapshot, error) {
	snap := &Snapshot{Resource: k.Resource, MaybeStale: o.ResourceVersion == "0"}
	opts := metav1.ListOptions{Limit: o.ChunkSize, ResourceVersion: o.ResourceVersion, ResourceVersionMatch: o.ResourceVersionMatch}
	for {
		items, policies, meta, err := k.list(ctx, opts)
		if err != nil {
			switch {
			case !isExpired(err):
				return nil, fmt.Errorf("list %s: %w", k.Resource, err)
			case opts.Continue == "":
				// The first page: the requested version itself is gone.
				return nil, &GoneError{Resource: k.Resource, ResourceVersion: o.ResourceVersion, ResourceVersionMatch: o.ResourceVersionMatch, Err: err}
			case o.AllowInconsistent && inconsistentToken(err) != "":
				opts.Continue = inconsistentToken(err)
				snap.Inconsistent = true
				continue
			default:
				return nil, &expiredContinueError{err}
			}
		}
		snap.Pages++
		snap.Configs = append(snap.Configs, items...)
		snap.Policies = append(snap.Policies, policies...)
		snap.ResourceVersion = meta.ResourceVersion
		if o.afterPage != nil {
			o.afterPage(k.Resource, snap.Pages)
		}
		if meta.Continue == "" {
			break
		}
		// A continue token carries the version and the match semantics;
		// the API forbids repeating them beside it.
		opts = metav1.ListOptions{Limit: o.ChunkSize, Continue: meta.Continue}
	}
	slices.SortFunc(snap.Configs, func(a, b *rules.Config) int { return strings.Compare(a.Meta.Name, b.Meta.Name) })
	slices.SortFunc(snap.Policies, func(a, b *rules.Policy) int { return strings.Compare(a.Meta.Name, b.Meta.Name) })
	return snap, nil
}

// inconsistentToken is the continue token a 410 for an expired continue
// token carries (status.metadata.continue), if the server offered one.
func inconsistentToken(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return se.Status().Continue
	}
	return ""
}
