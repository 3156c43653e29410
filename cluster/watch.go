package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/webhooklint/webhooklint/rules"
)

// StreamMode chooses how a watch gets its initial state.
type StreamMode string

const (
	// StreamAuto uses the streaming form (a watch with sendInitialEvents)
	// and falls back to list-then-watch when the server refuses it.
	StreamAuto StreamMode = "auto"
	// StreamAlways fails instead of falling back.
	StreamAlways StreamMode = "always"
	// StreamNever always lists, then watches from the list's version.
	StreamNever StreamMode = "never"
)

// ParseStreamMode accepts auto, always and never.
func ParseStreamMode(s string) (StreamMode, error) {
	switch m := StreamMode(strings.ToLower(s)); m {
	case StreamAuto, StreamAlways, StreamNever:
		return m, nil
	}
	return "", fmt.Errorf("--watch-list must be auto, always or never, not %q", s)
}

// initialEventsEnd is the annotation of the bookmark that ends the initial
// events of a streaming list.
const initialEventsEnd = metav1.InitialEventsAnnotationKey

// update is what a kind's watch loop tells the state owner.
type update struct {
	resource string
	kind     string
	snapshot []*rules.Config // a complete state of the kind (after a list)
	policies []*rules.Policy // the same, for a policy kind
	isSnap   bool
	upsert   *rules.Config
	remove   *rules.Config
	// upsertPolicy and removePolicy are upsert and remove for a policy kind.
	upsertPolicy *rules.Policy
	removePolicy *rules.Policy
	note         string
	// forbidden reports that RBAC denies listing or watching a policy
	// kind: the loop of that kind has stopped.
	forbidden bool
}

// errGone signals a 410 on a running watch: the loop relists.
var errGone = errors.New("410 Gone")

// kindWatcher keeps one kind's state flowing to the state owner: it gets
// the initial state, watches from its resourceVersion with bookmarks, and
// on 410 Gone gets a fresh complete state (which the owner diffs against
// what it knows, so nothing is reported twice or missed).
type kindWatcher struct {
	k    *kind
	list ListOptions
	mode StreamMode
	out  chan<- update
	// seed starts from a known state at a known version instead of
	// reading one (tests use it to watch from a compacted version).
	seedRV string

	backoff func(attempt int) time.Duration
}

func (w *kindWatcher) send(ctx context.Context, u update) bool {
	u.resource, u.kind = w.k.Resource, w.k.Kind
	select {
	case w.out <- u:
		return true
	case <-ctx.Done():
		return false
	}
}

func (w *kindWatcher) note(ctx context.Context, format string, args ...any) {
	w.send(ctx, update{note: fmt.Sprintf(format, args...)})
}

// streamingAllowed: the streaming form only exists with NotOlderThan, so
// an Exact read of an old version is always list-then-watch.
func (w *kindWatcher) streamingAllowed() bool {
	return w.mode != StreamNever && w.list.ResourceVersionMatch != metav1.ResourceVersionMatchExact
}

// run returns nil when ctx ends, or an error that retrying cannot fix.
func (w *kindWatcher) run(ctx context.Context) error {
	streaming := w.streamingAllowed()
	if w.mode == StreamAlways && !streaming {
		return fmt.Errorf("--watch-list=always cannot serve --resource-version-match=Exact")
	}
	rv := w.seedRV
	first := rv == ""
	failures := 0
	for ctx.Err() == nil {
		var stream watch.Interface
		var err error
		if rv == "" {
			opts := w.list
			if !first {
				// A relist wants the current state, whatever was asked first.
				opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
			}
			if streaming {
				stream, rv, err = w.streamInitial(ctx, opts)
				if err != nil && w.mode == StreamAuto && ctx.Err() == nil && streamingRefused(err) {
					streaming = false
					w.note(ctx, "%s: no streaming list from this server (%v); falling back to list then watch", w.k.Resource, err)
					continue
				}
			} else {
				rv, err = w.listInitial(ctx, opts)
				if err == nil {
					stream, err = w.k.watch(ctx, watchOptions(rv))
				}
			}
			if rv != "" {
				first = false
			}
		} else {
			stream, err = w.k.watch(ctx, watchOptions(rv))
		}
		if err == nil {
			var lastRV string
			lastRV, err = w.consume(ctx, stream)
			if lastRV != "" {
				rv = lastRV
			}
			if err == nil {
				failures = 0
				continue // the server closed the watch: resume from rv
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		var gone *GoneError
		switch {
		case errors.As(err, &gone):
			return err // the version the user asked for is gone
		case errors.Is(err, errGone) || isExpired(err):
			w.note(ctx, "%s: watch from resourceVersion %s expired (410 Gone); relisting and reporting only what changed", w.k.Resource, rv)
			rv = ""
			continue
		case fatal(err):
			return fmt.Errorf("watch %s: %w", w.k.Resource, err)
		}
		failures++
		w.note(ctx, "%s: %v; retrying", w.k.Resource, err)
		if !sleep(ctx, w.delay(failures)) {
			return nil
		}
	}
	return nil
}

func (w *kindWatcher) delay(attempt int) time.Duration {
	if w.backoff != nil {
		return w.backoff(attempt)
	}
	return min(time.Second<<min(attempt-1, 5), 30*time.Second)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func watchOptions(rv string) metav1.ListOptions {
	return metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}
}

// fatal errors are those a retry cannot fix.
func fatal(err error) bool {
	return apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) || apierrors.IsNotFound(err) ||
		apierrors.IsBadRequest(err) || apierrors.IsInvalid(err) || apierrors.IsMethodNotSupported(err)
}

// streamingRefused tells whether a failed streaming list should fall back
// to list-then-watch. As client-go does, any failure before the
// initial-events-end bookmark counts: a server without the WatchList
// feature rejects the parameters as invalid, and one whose etcd cannot
// report watch progress (etcd < 3.4.31/3.5.13) answers with an error event
// ("the required storage feature RequestWatchProgress is disabled"). Only
// a 410 for a version the user asked for is final.
func streamingRefused(err error) bool {
	var gone *GoneError
	return !errors.As(err, &gone)
}

// listInitial lists the kind and hands the snapshot to the owner.
func (w *kindWatcher) listInitial(ctx context.Context, o ListOptions) (string, error) {
	snap, err := list(ctx, w.k, o)
	if err != nil {
		return "", err
	}
	w.noteSnapshot(ctx, snap)
	w.send(ctx, update{snapshot: snap.Configs, policies: snap.Policies, isSnap: true})
	return snap.ResourceVersion, nil
}

func (w *kindWatcher) noteSnapshot(ctx context.Context, snap *Snapshot) {
	if snap.MaybeStale {
		w.note(ctx, "%s: listed at resourceVersion 0 (any version): the state shown may be stale", w.k.Resource)
	}
	if snap.Restarts > 0 {
		w.note(ctx, "%s: the list was restarted %d time(s) after its continue token expired", w.k.Resource, snap.Restarts)
	}
	if snap.Inconsistent {
		w.note(ctx, "%s: continued with the token of a 410 response: the list may be inconsistent", w.k.Resource)
	}
}

// streamInitial opens a watch that first sends the current state as ADDED
// events and then a bookmark annotated k8s.io/initial-events-end; that
// state goes to the owner as a snapshot, and the same stream continues as
// the watch.
func (w *kindWatcher) streamInitial(ctx context.Context, o ListOptions) (watch.Interface, string, error) {
	send := true
	stream, err := w.k.watch(ctx, metav1.ListOptions{
		SendInitialEvents:    &send,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		ResourceVersion:      o.ResourceVersion,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		if isExpired(err) && o.ResourceVersion != "" {
			return nil, "", &GoneError{Resource: w.k.Resource, ResourceVersion: o.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Err: err}
		}
		return nil, "", err
	}
	byName := map[string]*rules.Config{}
	policyByName := map[string]*rules.Policy{}
	for {
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-stream.ResultChan():
		case <-ctx.Done():
			stream.Stop()
			return nil, "", ctx.Err()
		}
		if !ok {
			return nil, "", fmt.Errorf("the streaming list ended before its initial-events-end bookmark")
		}
		switch ev.Type {
		case watch.Added, watch.Modified:
			switch c, pol, _ := objectOf(ev.Object); {
			case c != nil:
				byName[c.Meta.Name] = c
			case pol != nil:
				policyByName[pol.Meta.Name] = pol
			}
		case watch.Deleted:
			switch c, pol, _ := objectOf(ev.Object); {
			case c != nil:
				delete(byName, c.Meta.Name)
			case pol != nil:
				delete(policyByName, pol.Meta.Name)
			}
		case watch.Bookmark:
			m, err := meta.Accessor(ev.Object)
			if err != nil || m.GetAnnotations()[initialEventsEnd] != "true" {
				continue
			}
			configs := make([]*rules.Config, 0, len(byName))
			for _, c := range byName {
				configs = append(configs, c)
			}
			slices.SortFunc(configs, func(a, b *rules.Config) int { return strings.Compare(a.Meta.Name, b.Meta.Name) })
			var policies []*rules.Policy
			for _, p := range policyByName {
				policies = append(policies, p)
			}
			slices.SortFunc(policies, func(a, b *rules.Policy) int { return strings.Compare(a.Meta.Name, b.Meta.Name) })
			if o.ResourceVersion == "0" {
				w.note(ctx, "%s: streamed at resourceVersion 0 (any version): the state shown may be stale", w.k.Resource)
			}
			w.send(ctx, update{snapshot: configs, policies: policies, isSnap: true})
			return stream, m.GetResourceVersion(), nil
		case watch.Error:
			stream.Stop()
			return nil, "", apierrors.FromObject(ev.Object)
		}
	}
}

// consume forwards watch events until the stream ends; it returns the last
// resourceVersion seen (bookmarks included) and errGone on a 410.
func (w *kindWatcher) consume(ctx context.Context, stream watch.Interface) (string, error) {
	defer stream.Stop()
	rv := ""
	for {
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-stream.ResultChan():
		case <-ctx.Done():
			return rv, nil
		}
		if !ok {
			return rv, nil
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			c, pol, ok := objectOf(ev.Object)
			if !ok {
				return rv, fmt.Errorf("unexpected object %T in watch", ev.Object)
			}
			var u update
			switch {
			case c != nil && ev.Type == watch.Deleted:
				rv, u = c.Meta.ResourceVersion, update{remove: c}
			case c != nil:
				rv, u = c.Meta.ResourceVersion, update{upsert: c}
			case ev.Type == watch.Deleted:
				rv, u = pol.Meta.ResourceVersion, update{removePolicy: pol}
			default:
				rv, u = pol.Meta.ResourceVersion, update{upsertPolicy: pol}
			}
			if !w.send(ctx, u) {
				return rv, nil
			}
		case watch.Bookmark:
			if m, err := meta.Accessor(ev.Object); err == nil {
				rv = m.GetResourceVersion()
			}
		case watch.Error:
			err := apierrors.FromObject(ev.Object)
			if isExpired(err) {
				return rv, errGone
			}
			return rv, err
		}
	}
}
