package fieldpath

import (
	"slices"
	"testing"
)

func TestParentLastName(t *testing.T) {
	for _, c := range []struct{ path, parent, last, name string }{
		{"", "", "", ""},
		{"webhooks", "", "webhooks", "webhooks"},
		{"webhooks[0]", "webhooks", "[0]", "0"},
		{"webhooks[0].rules", "webhooks[0]", ".rules", "rules"},
		{"a.b[1].c", "a.b[1]", ".c", "c"},
		{"metadata.labels[app.kubernetes.io/name]", "metadata.labels", "[app.kubernetes.io/name]", "app.kubernetes.io/name"},
		{"spec.x]", "spec", ".x]", "x]"},
	} {
		if got := Parent(c.path); got != c.parent {
			t.Errorf("Parent(%q) = %q, want %q", c.path, got, c.parent)
		}
		if got := Last(c.path); got != c.last {
			t.Errorf("Last(%q) = %q, want %q", c.path, got, c.last)
		}
		if got := Name(c.path); got != c.name {
			t.Errorf("Name(%q) = %q, want %q", c.path, got, c.name)
		}
	}
}

func TestElements(t *testing.T) {
	for path, want := range map[string][]string{
		"":                       nil,
		"webhooks":               {"webhooks"},
		"webhooks[0].rules[1].x": {"webhooks", "[0]", ".rules", "[1]", ".x"},
		"metadata.labels[a.b/c]": {"metadata", ".labels", "[a.b/c]"},
	} {
		if got := Elements(path); !slices.Equal(got, want) {
			t.Errorf("Elements(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		path, ancestor string
		want           bool
	}{
		{"webhooks[0]", "webhooks[0]", true},
		{"webhooks[0].name", "webhooks[0]", true},
		{"webhooks[0]", "webhooks", true},
		{"webhooks[0].rules[1]", "webhooks[0].rules", true},
		{"webhooks[10]", "webhooks[1]", false},
		{"webhooksX", "webhooks", false},
		{"webhooks", "webhooks[0]", false},
		{"", "", true},
		{"webhooks", "", false},
	} {
		if got := Within(c.path, c.ancestor); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.path, c.ancestor, got)
		}
	}
}

func TestJoin(t *testing.T) {
	for got, want := range map[string]string{
		Field("", "webhooks"):               "webhooks",
		Field(WebhookPath(2), "name"):       "webhooks[2].name",
		Index("webhooks[0].rules", 3):       "webhooks[0].rules[3]",
		Key("metadata.labels", "a.b/c"):     "metadata.labels[a.b/c]",
		Field(Key("data", "k"), "x"):        "data[k].x",
		Index(Field("spec", "versions"), 0): "spec.versions[0]",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestSplitIndex(t *testing.T) {
	for _, c := range []struct {
		path, list string
		i          int
		ok         bool
	}{
		{"a.b[3]", "a.b", 3, true},
		{"webhooks[0].rules[12]", "webhooks[0].rules", 12, true},
		{"a.b", "", 0, false},
		{"a[key]", "a", 0, false},
		{"a[-1]", "a", 0, false},
		{"a[]", "a", 0, false},
		{"a]", "", 0, false},
	} {
		list, i, ok := SplitIndex(c.path)
		if ok != c.ok || ok && (list != c.list || i != c.i) {
			t.Errorf("SplitIndex(%q) = %q, %d, %v", c.path, list, i, ok)
		}
	}
}

func TestWebhook(t *testing.T) {
	for _, c := range []struct {
		path  string
		i     int
		rest  string
		ok    bool
		whole bool
	}{
		{"webhooks[3]", 3, "", true, true},
		{"webhooks[3].rules[0].verbs", 3, ".rules[0].verbs", true, false},
		{"webhooks[12].name", 12, ".name", true, false},
		{"webhooks", 0, "", false, false},
		{"webhooks[", 0, "", false, false},
		{"webhooks[]", 0, "", false, false},
		{"webhooks[x]", 0, "", false, false},
		{"webhooks[+1]", 0, "", false, false},
		{"webhooks[-1]", 0, "", false, false},
		{"metadata.name", 0, "", false, false},
		{"spec.webhooks[0]", 0, "", false, false},
	} {
		i, rest, ok := Webhook(c.path)
		if ok != c.ok || ok && (i != c.i || rest != c.rest) {
			t.Errorf("Webhook(%q) = %d, %q, %v", c.path, i, rest, ok)
		}
		if IsWebhook(c.path) != c.whole {
			t.Errorf("IsWebhook(%q) = %v", c.path, !c.whole)
		}
	}
}

func TestFields(t *testing.T) {
	for path, want := range map[string]string{
		".rules[0].operations[1]":      "rules.operations",
		"webhooks[0].clientConfig.url": "webhooks.clientConfig.url",
		"metadata.labels[a.b]":         "metadata.labels",
		"":                             "",
	} {
		if got := Fields(path); got != want {
			t.Errorf("Fields(%q) = %q, want %q", path, got, want)
		}
	}
}
