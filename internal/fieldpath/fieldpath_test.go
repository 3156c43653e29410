package fieldpath

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	got := Split("webhooks[0].objectSelector.matchLabels[app.kubernetes.io/name].x[")
	want := []Step{{Key: "webhooks", Index: -1}, {Index: 0}, {Key: "objectSelector", Index: -1},
		{Key: "matchLabels", Index: -1}, {Key: "app.kubernetes.io/name", Index: -1}, {Key: "x", Index: -1}, {Key: "", Index: -1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Split = %+v\nwant    %+v", got, want)
	}
	if len(Split("")) != 0 {
		t.Fatal("empty path has steps")
	}
}
