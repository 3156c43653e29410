package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// fakeAPI is an API server for validatingwebhookconfigurations whose every
// answer the test scripts: it records each request's query and hands it to
// serve, which writes a list, a status or a watch stream.
type fakeAPI struct {
	t *testing.T
	// resource is the one resource served (default
	// validatingwebhookconfigurations).
	resource string

	mu    sync.Mutex
	reqs  []url.Values
	serve func(n int, q url.Values, w *fakeResponse)
}

type fakeResponse struct {
	w   http.ResponseWriter
	t   *testing.T
	ctx context.Context
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resource := f.resource
	if resource == "" {
		resource = "validatingwebhookconfigurations"
	}
	if !strings.HasSuffix(r.URL.Path, "/"+resource) {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, r.URL.Query())
	n := len(f.reqs)
	f.mu.Unlock()
	f.serve(n, r.URL.Query(), &fakeResponse{w: w, t: f.t, ctx: r.Context()})
}

func (f *fakeAPI) requests() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.reqs...)
}

func vwc(name, rv string) admissionv1.ValidatingWebhookConfiguration {
	return admissionv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv, UID: types.UID("uid-" + name)},
	}
}

func (r *fakeResponse) json(code int, v any) {
	r.w.Header().Set("Content-Type", "application/json")
	r.w.WriteHeader(code)
	if err := json.NewEncoder(r.w).Encode(v); err != nil {
		r.t.Error(err)
	}
}

func (r *fakeResponse) list(rv, cont string, items ...admissionv1.ValidatingWebhookConfiguration) {
	r.json(200, admissionv1.ValidatingWebhookConfigurationList{
		TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfigurationList"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont},
		Items:    items,
	})
}

func (r *fakeResponse) status(err *apierrors.StatusError) {
	s := err.ErrStatus
	s.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
	r.json(int(s.Code), s)
}

// watch streams events; each is {type, object}. It returns when done,
// ending the stream, or blocks until the client goes if hold is set.
func (r *fakeResponse) watch(hold <-chan struct{}, events ...metav1.WatchEvent) {
	r.w.Header().Set("Content-Type", "application/json")
	r.w.WriteHeader(200)
	for _, e := range events {
		if err := json.NewEncoder(r.w).Encode(e); err != nil {
			return
		}
		r.w.(http.Flusher).Flush()
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.ctx.Done():
		}
	}
}

func event(typ string, obj any) metav1.WatchEvent {
	b, _ := json.Marshal(obj)
	return metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: b}}
}

func bookmark(rv string, initialEnd bool) metav1.WatchEvent {
	o := vwc("", rv)
	if initialEnd {
		o.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return event("BOOKMARK", o)
}

func statusEvent(err *apierrors.StatusError) metav1.WatchEvent {
	s := err.ErrStatus
	s.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
	return event("ERROR", s)
}

func startFake(t *testing.T, serve func(n int, q url.Values, w *fakeResponse)) (*fakeAPI, *kind) {
	f := &fakeAPI{t: t, serve: serve}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	return f, kindsOf(c)[0]
}

func expiredContinue(token string) *apierrors.StatusError {
	e := apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result.")
	e.ErrStatus.Continue = token
	return e
}

func TestListPagesAndRestartsOnExpiredContinue(t *testing.T) {
	expireOnce := true
	f, k := startFake(t, func(n int, q url.Values, w *fakeResponse) {
		switch q.Get("continue") {
		case "":
			w.list("100", "c1", vwc("a", "90"), vwc("b", "91"))
		case "c1":
			if expireOnce {
				expireOnce = false
				w.status(expiredContinue("inconsistent"))
				return
			}
			w.list("100", "c2", vwc("c", "92"), vwc("d", "93"))
		case "c2":
			w.list("100", "", vwc("e", "94"))
		default:
			t.Errorf("unexpected continue %q", q.Get("continue"))
		}
	})
	snap, err := list(context.Background(), k, ListOptions{ChunkSize: 2, ResourceVersion: "80", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Restarts != 1 || snap.Pages != 3 || snap.ResourceVersion != "100" || len(snap.Configs) != 5 || snap.Inconsistent {
		t.Errorf("snapshot: restarts=%d pages=%d rv=%s configs=%d inconsistent=%v", snap.Restarts, snap.Pages, snap.ResourceVersion, len(snap.Configs), snap.Inconsistent)
	}
	var got []string
	for _, q := range f.requests() {
		got = append(got, fmt.Sprintf("limit=%s rv=%s match=%s continue=%s", q.Get("limit"), q.Get("resourceVersion"), q.Get("resourceVersionMatch"), q.Get("continue")))
	}
	want := []string{
		"limit=2 rv=80 match=NotOlderThan continue=",
		"limit=2 rv= match= continue=c1", // expired: start over
		"limit=2 rv=80 match=NotOlderThan continue=",
		"limit=2 rv= match= continue=c1",
		"limit=2 rv= match= continue=c2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestListContinuesInconsistentlyOnRequest(t *testing.T) {
	f, k := startFake(t, func(n int, q url.Values, w *fakeResponse) {
		switch q.Get("continue") {
		case "":
			w.list("100", "c1", vwc("a", "90"))
		case "c1":
			w.status(expiredContinue("fresh"))
		case "fresh":
			w.list("120", "", vwc("b", "110"))
		}
	})
	snap, err := list(context.Background(), k, ListOptions{ChunkSize: 1, AllowInconsistent: true})
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Inconsistent || snap.Restarts != 0 || len(snap.Configs) != 2 || snap.ResourceVersion != "120" || len(f.requests()) != 3 {
		t.Errorf("inconsistent=%v restarts=%d configs=%d rv=%s requests=%d", snap.Inconsistent, snap.Restarts, len(snap.Configs), snap.ResourceVersion, len(f.requests()))
	}
	if notes := snapshotNotes(snap); len(notes) != 1 || !strings.Contains(notes[0], "may be inconsistent") {
		t.Errorf("notes %q", notes)
	}
}

func TestListGivesUpAfterRepeatedExpiry(t *testing.T) {
	_, k := startFake(t, func(n int, q url.Values, w *fakeResponse) {
		if q.Get("continue") == "" {
			w.list("100", "c1", vwc("a", "90"))
			return
		}
		w.status(expiredContinue(""))
	})
	_, err := list(context.Background(), k, ListOptions{ChunkSize: 1, MaxRestarts: 2})
	if err == nil || !strings.Contains(err.Error(), "continue token expired 3 times") {
		t.Errorf("err = %v", err)
	}
}

func TestListGoneVersion(t *testing.T) {
	_, k := startFake(t, func(n int, q url.Values, w *fakeResponse) {
		w.status(apierrors.NewResourceExpired("The resourceVersion for the provided list is too old."))
	})
	_, err := list(context.Background(), k, ListOptions{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	var gone *GoneError
	if !errors.As(err, &gone) || !strings.Contains(err.Error(), "at resourceVersion 5 (Exact): 410 Gone") {
		t.Errorf("err = %v", err)
	}
}

func TestListOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o    ListOptions
		want string
	}{
		{ListOptions{}, ""},
		{ListOptions{ResourceVersion: "0"}, ""},
		{ListOptions{ResourceVersion: "7", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, ""},
		{ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchExact}, "needs --resource-version"},
		{ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, "forbidden for --resource-version=0"},
		{ListOptions{ResourceVersion: "7", ResourceVersionMatch: "Newest"}, "must be Exact or NotOlderThan"},
		{ListOptions{ChunkSize: -1}, "negative"},
	} {
		err := tc.o.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}

// collect runs a kind watcher until it has sent n updates.
func collect(t *testing.T, kw *kindWatcher, n int) []update {
	t.Helper()
	out := make(chan update)
	kw.out = out
	kw.backoff = func(int) time.Duration { return time.Millisecond }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kw.run(ctx) }()
	var got []update
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case u := <-out:
			got = append(got, u)
		case err := <-done:
			t.Fatalf("watcher stopped: %v after %d updates", err, len(got))
		case <-timeout:
			t.Fatalf("timed out after %d updates", len(got))
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return got
}

func describe(us []update) string {
	var lines []string
	for _, u := range us {
		switch {
		case u.note != "":
			lines = append(lines, "note")
		case u.isSnap:
			var names []string
			for _, c := range u.snapshot {
				names = append(names, c.Meta.Name+"@"+c.Meta.ResourceVersion)
			}
			for _, p := range u.policies {
				names = append(names, p.Meta.Name+"@"+p.Meta.ResourceVersion)
			}
			lines = append(lines, "snapshot "+strings.Join(names, ","))
		case u.upsert != nil:
			lines = append(lines, "upsert "+u.upsert.Meta.Name+"@"+u.upsert.Meta.ResourceVersion)
		case u.remove != nil:
			lines = append(lines, "remove "+u.remove.Meta.Name)
		case u.upsertPolicy != nil:
			lines = append(lines, "upsert "+u.upsertPolicy.Meta.Name+"@"+u.upsertPolicy.Meta.ResourceVersion)
		case u.removePolicy != nil:
			lines = append(lines, "remove "+u.removePolicy.Meta.Name)
		}
	}
	return strings.Join(lines, "\n")
}

func TestWatchStreamsInitialStateThenResumes(t *testing.T) {
	hold := make(chan struct{})
	f, k := startFake(t, func(n int, q url.Values, w *fakeResponse) {
		switch n {
		case 1: // the streaming list, ended by the server after one change
			w.watch(nil, event("ADDED", vwc("b", "11")), event("ADDED", vwc("a", "10")), bookmark("12", false),
				bookmark("15", true), event("MODIFIED", vwc("a", "16")), bookmark("17", false))
		default: // the resumed watch
			w.watch(hold, event("DELETED", vwc("b", "18")))
		}
	})
	t.Cleanup(func() { close(hold) }) // before the server closes: cleanups run last-in first-out
	got := collect(t, &kindWatcher{k: k, mode: StreamAuto}, 3)
	if want := "snapshot a@10,b@11\nupsert a@16\nremove b"; describe(got) != want {
		t.Errorf("updates:\n%s\nwant:\n%s", describe(got), want)
	}
	reqs := f.requests()
	if q := reqs[0]; q.Get("sendInitialEvents") != "true" || q.Get("resourceVersionMatch") != "NotOlderThan" || q.Get("allowWatchBookmarks") != "true" || q.Get("watch") != "true" {
		t.Errorf("streaming request %v", q)
	}
	if q := reqs[1]; q.Get("sendInitialEvents") != "" || q.Get("resourceVersion") != "17" || q.Get("allowWatchBookmarks") != "true" {
		t.Errorf("resumed watch %v, want it from the last bookmark's resourceVersion 17", q)
	}
}

func TestWatchFallsBackToListThenWatch(t *testing.T) {
	hold := make(chan struct{})
	f, k := startFake(t, func(n int, q url.Values, w *fakeResponse) {
		switch {
		case q.Get("sendInitialEvents") == "true":
			w.status(apierrors.NewInvalid(schema.GroupKind{Kind: "ListOptions"}, "", nil))
		case q.Get("watch") != "true":
			w.list("20", "", vwc("a", "10"))
		default:
			w.watch(hold, event("ADDED", vwc("c", "21")))
		}
	})
	t.Cleanup(func() { close(hold) }) // before the server closes: cleanups run last-in first-out
	got := collect(t, &kindWatcher{k: k, mode: StreamAuto}, 3)
	if want := "note\nsnapshot a@10\nupsert c@21"; describe(got) != want {
		t.Errorf("updates:\n%s\nwant:\n%s", describe(got), want)
	}
	if q := f.requests()[2]; q.Get("resourceVersion") != "20" || q.Get("watch") != "true" {
		t.Errorf("watch request %v, want it from the list's resourceVersion 20", q)
	}
}

func TestWatchRelistsAfterGone(t *testing.T) {
	hold := make(chan struct{})
	lists := 0
	f, k := startFake(t, func(n int, q url.Values, w *fakeResponse) {
		switch {
		case q.Get("watch") != "true":
			lists++
			if lists == 1 {
				w.list("20", "", vwc("a", "10"), vwc("b", "11"))
			} else {
				w.list("40", "", vwc("a", "30"))
			}
		case q.Get("resourceVersion") == "20":
			w.watch(nil, statusEvent(apierrors.NewResourceExpired("too old resource version: 20 (35)")))
		default:
			w.watch(hold)
		}
	})
	t.Cleanup(func() { close(hold) }) // before the server closes: cleanups run last-in first-out
	got := collect(t, &kindWatcher{k: k, mode: StreamNever}, 3)
	if want := "snapshot a@10,b@11\nnote\nsnapshot a@30"; describe(got) != want {
		t.Errorf("updates:\n%s\nwant:\n%s", describe(got), want)
	}
	if !strings.Contains(got[1].note, "410 Gone") {
		t.Errorf("note %q", got[1].note)
	}
	// The relist asks for the most recent state, not the original version.
	var relist url.Values
	for _, q := range f.requests() {
		if q.Get("watch") != "true" {
			relist = q
		}
	}
	if relist.Get("resourceVersion") != "" {
		t.Errorf("relist %v", relist)
	}
}

func TestWatchExactVersionNeverStreams(t *testing.T) {
	kw := &kindWatcher{mode: StreamAlways, list: ListOptions{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchExact}}
	if err := kw.run(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot serve") {
		t.Errorf("err = %v", err)
	}
}
