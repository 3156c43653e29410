package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

// Options configure a run against a cluster.
type Options struct {
	List ListOptions
	// Live enables the live checks (reading Services, EndpointSlices,
	// Namespaces and discovery).
	Live bool
	// LiveRefresh re-reads the live state this often while watching (0:
	// only at start and after each relist).
	LiveRefresh time.Duration
	Stream      StreamMode
	Settings    *rules.Settings
	// Enabled and Severity come from the configuration file, as for files.
	Enabled  func(rule string) bool
	Severity map[string]diag.Severity
}

func (o Options) lintOptions() lint.Options {
	return lint.Options{Settings: o.Settings, Enabled: o.Enabled, Severity: o.Severity}
}

// Result is a one-shot lint of the cluster.
type Result struct {
	Diagnostics []diag.Diagnostic
	Snapshots   []*Snapshot
	Notes       []string
}

// Lint lists every kind once (the webhook configurations, and the
// admission policies and bindings the server serves) and lints them.
func Lint(ctx context.Context, c kubernetes.Interface, o Options) (*Result, error) {
	if err := o.List.Validate(); err != nil {
		return nil, err
	}
	res := &Result{}
	st := newStateWith(o.lintOptions())
	policyKinds, notes := policyKindsOf(c)
	res.Notes = append(res.Notes, notes...)
	type listed struct {
		k    *kind
		snap *Snapshot
	}
	var all []listed
	for _, k := range kindsOf(c) {
		snap, err := list(ctx, k, o.List)
		if err != nil {
			return nil, err
		}
		all = append(all, listed{k, snap})
	}
	webhookKinds := len(all)
	for _, k := range policyKinds {
		snap, err := list(ctx, k, o.List)
		if apierrors.IsForbidden(err) {
			// Policies and bindings are judged together (a binding names
			// its policy): with one kind hidden by RBAC, none is read.
			res.Notes = append(res.Notes, policiesForbidden(k.Resource))
			all = all[:webhookKinds]
			break
		}
		if err != nil {
			return nil, err
		}
		all = append(all, listed{k, snap})
	}
	for _, l := range all {
		res.Snapshots = append(res.Snapshots, l.snap)
		res.Notes = append(res.Notes, snapshotNotes(l.snap)...)
		st.syncKind(l.k.Kind, l.snap.Configs, l.snap.Policies)
	}
	if o.Live {
		live, notes := readLive(ctx, c, liveChunk(o.List.ChunkSize))
		res.Notes = append(res.Notes, notes...)
		st.setLive(live)
	} else {
		st.relint()
	}
	res.Diagnostics = st.diagnostics()
	if len(st.internal) > 0 {
		return res, errors.Join(st.internal...)
	}
	return res, nil
}

func liveChunk(n int64) int64 {
	if n == 0 {
		return 500
	}
	return n
}

func snapshotNotes(s *Snapshot) []string {
	var out []string
	if s.MaybeStale {
		out = append(out, fmt.Sprintf("%s: listed at resourceVersion 0 (any version): the state shown may be stale", s.Resource))
	}
	if s.Restarts > 0 {
		out = append(out, fmt.Sprintf("%s: the list was restarted %d time(s) after its continue token expired", s.Resource, s.Restarts))
	}
	if s.Inconsistent {
		out = append(out, fmt.Sprintf("%s: continued with the token of a 410 response: the list may be inconsistent", s.Resource))
	}
	return out
}

// Watcher lints continuously: every change of a configuration or of the
// live state is reported through Sink as the findings that appeared and
// those that were resolved.
type Watcher struct {
	Client  kubernetes.Interface
	Options Options
	Sink    func(Change)

	// seeds, when set, start a kind from a known state at a known
	// resourceVersion instead of reading one: tests use it to watch from a
	// compacted version.
	seeds map[string]*Snapshot
	// backoff overrides the retry delays (tests).
	backoff func(int) time.Duration
}

// Run watches until ctx ends (nil) or an error retrying cannot fix.
// The current findings when it stops are returned either way.
func (w *Watcher) Run(ctx context.Context) ([]diag.Diagnostic, error) {
	o := w.Options
	if err := o.List.Validate(); err != nil {
		return nil, err
	}
	if o.Stream == "" {
		o.Stream = StreamAuto
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	st := newStateWith(o.lintOptions())
	// publish sends changes, then any rule failure of that lint as a note.
	publish := func(cs []Change) {
		emit(w.Sink, cs)
		reportInternal(w.Sink, st)
	}
	updates := make(chan update)
	policyKinds, notes := policyKindsOf(w.Client)
	for _, n := range notes {
		w.Sink(Change{Type: Note, Reason: n})
	}
	kinds := append(kindsOf(w.Client), policyKinds...)
	// Every kind's loop may fail once without waiting for the owner.
	errs := make(chan error, len(kinds))
	var wg sync.WaitGroup
	pending := map[string]bool{}
	for _, k := range kinds {
		kw := &kindWatcher{k: k, list: o.List, mode: o.Stream, out: updates, backoff: w.backoff}
		if seed := w.seeds[k.Resource]; seed != nil {
			kw.seedRV = seed.ResourceVersion
			publish(st.syncKind(k.Kind, seed.Configs, seed.Policies))
		} else {
			pending[k.Resource] = true
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := kw.run(ctx); err != nil {
				if rules.IsPolicyKind(rules.V1, k.Kind) && apierrors.IsForbidden(err) {
					select {
					case updates <- update{resource: k.Resource, kind: k.Kind, forbidden: true}:
					case <-ctx.Done():
					}
					return
				}
				errs <- err
				cancel()
			}
		}()
	}
	defer wg.Wait()

	refreshLive := func() {
		if !o.Live {
			return
		}
		live, notes := readLive(ctx, w.Client, liveChunk(o.List.ChunkSize))
		if ctx.Err() != nil {
			return
		}
		for _, n := range notes {
			w.Sink(Change{Type: Note, Reason: n})
		}
		publish(st.setLive(live))
	}
	refreshLive()
	var tick <-chan time.Time
	if o.Live && o.LiveRefresh > 0 {
		t := time.NewTicker(o.LiveRefresh)
		defer t.Stop()
		tick = t.C
	}
	if len(pending) == 0 {
		w.Sink(Change{Type: Synced})
	}
	policiesOff := false

	for {
		select {
		case <-ctx.Done():
			select {
			case err := <-errs:
				return st.diagnostics(), err
			default:
				return st.diagnostics(), nil
			}
		case err := <-errs:
			return st.diagnostics(), err
		case <-tick:
			refreshLive()
		case u := <-updates:
			if policiesOff && rules.IsPolicyKind(rules.V1, u.kind) {
				continue
			}
			switch {
			case u.forbidden:
				// As in Lint: with one policy kind hidden by RBAC, none
				// is judged.
				policiesOff = true
				w.Sink(Change{Type: Note, Reason: policiesForbidden(u.resource)})
				waited := len(pending) > 0
				for _, k := range policyKinds {
					publish(st.syncKind(k.Kind, nil, nil))
					delete(pending, k.Resource)
				}
				if waited && len(pending) == 0 {
					w.Sink(Change{Type: Synced})
				}
			case u.note != "":
				w.Sink(Change{Type: Note, Reason: u.note})
			case u.isSnap:
				publish(st.syncKind(u.kind, u.snapshot, u.policies))
				if pending[u.resource] {
					delete(pending, u.resource)
					if len(pending) == 0 {
						w.Sink(Change{Type: Synced})
					}
				} else {
					// A relist: the live state may have moved on as well.
					refreshLive()
				}
			case u.upsert != nil:
				publish(st.upsert(u.upsert))
			case u.remove != nil:
				publish(st.remove(u.remove))
			case u.upsertPolicy != nil:
				publish(st.upsertPolicy(u.upsertPolicy))
			case u.removePolicy != nil:
				publish(st.removePolicy(u.removePolicy))
			}
		}
	}
}

func emit(sink func(Change), cs []Change) {
	for _, c := range cs {
		sink(c)
	}
}

// reportInternal turns rule failures into notes, so a watch goes on.
func reportInternal(sink func(Change), st *state) {
	for _, e := range st.internal {
		sink(Change{Type: Note, Reason: e.Error()})
	}
	st.internal = nil
}
