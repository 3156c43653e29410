package report

import (
	"bytes"
	"slices"
	"testing"
)

type streamItem struct {
	Name string   `json:"name"`
	Tags []string `json:"tags,omitempty"`
}

type streamDoc struct {
	Head  string `json:"head"`
	Inner struct {
		Items []streamItem `json:"items"`
		After int          `json:"after"`
	} `json:"inner"`
}

func docWith(items []streamItem) streamDoc {
	var d streamDoc
	d.Head = `<a href="x">"items": []</a>`
	d.Inner.Items, d.Inner.After = items, 7
	return d
}

// A streamed document is byte for byte what encoding it whole gives, at
// any depth, with HTML escaped or not, for no, one or many elements; a
// document without the array is encoded whole.
func TestEncodeStreamedIsEncode(t *testing.T) {
	for _, items := range [][]streamItem{
		{},
		{{Name: "one"}},
		{{Name: "a<b>&c", Tags: []string{"x", "y"}}, {Name: "two\nlines"}, {Name: ""}},
	} {
		for _, escape := range []bool{true, false} {
			var want, got bytes.Buffer
			if err := encode(&want, docWith(items), escape); err != nil {
				t.Fatal(err)
			}
			whole := func() any { return docWith(items) }
			if err := encodeStreamed(&got, docWith([]streamItem{}), "items", escape, slices.Values(items), whole); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%d items, escape %v:\ngot\n%s\nwant\n%s", len(items), escape, got.String(), want.String())
			}
		}
	}
	var got, want bytes.Buffer
	items := []streamItem{{Name: "kept"}}
	whole := func() any { return docWith(items) }
	if err := encodeStreamed(&got, docWith([]streamItem{}), "missing", true, slices.Values(items), whole); err != nil {
		t.Fatal(err)
	}
	_ = encode(&want, docWith(items), true)
	if got.String() != want.String() {
		t.Errorf("without the key: got\n%s\nwant\n%s", got.String(), want.String())
	}
}

// A document that is the array itself (GitLab's report) streams the same.
func TestEncodeStreamedTopLevelArray(t *testing.T) {
	for _, items := range [][]streamItem{{}, {{Name: "a"}, {Name: "b", Tags: []string{"<x>"}}}} {
		var want, got bytes.Buffer
		_ = encode(&want, items, false)
		whole := func() any { return items }
		if err := encodeStreamed(&got, []streamItem{}, "", false, slices.Values(items), whole); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
		}
	}
}
