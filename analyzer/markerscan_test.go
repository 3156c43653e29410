package analyzer

import (
	"fmt"
	"testing"
)

func TestScanMarkerArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // key=[value] as located
	}{
		{`path=/a,mutating=false`, []string{`path=[/a]`, `mutating=[false]`}},
		{`verbs=create;update,name=x.io`, []string{`verbs=[create;update]`, `name=[x.io]`}},
		{`groups={apps,""},versions={v1}`, []string{`groups=[{apps,""}]`, `versions=[{v1}]`}},
		{`url="https://h:9443/p,q",path=/x`, []string{`url=["https://h:9443/p,q"]`, `path=[/x]`}},
		{"patch=`{\"a\":[1,2]}`,name=n", []string{"patch=[`{\"a\":[1,2]}`]", `name=[n]`}},
		{`url=https://h/p`, []string{`url=[https://h/p]`}},
		{`name=x.io // note`, []string{`name=[x.io // note]`}},
		{`port 9443`, nil},
		{``, nil},
	} {
		var got []string
		for _, a := range scanMarkerArgs(tc.in) {
			if tc.in[a.KeyStart:a.KeyStart+len(a.Key)] != a.Key {
				t.Errorf("%q: key %q not at offset %d", tc.in, a.Key, a.KeyStart)
			}
			got = append(got, fmt.Sprintf("%s=[%s]", a.Key, tc.in[a.ValueStart:a.ValueEnd]))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("scanMarkerArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzScanMarkerArgs(f *testing.F) {
	f.Add(`path=/a,verbs=create;update,groups={apps,""},patch=` + "`{}`")
	f.Fuzz(func(t *testing.T, in string) {
		for _, a := range scanMarkerArgs(in) {
			if a.KeyStart < 0 || a.ValueStart < a.KeyStart || a.ValueEnd < a.ValueStart || a.ValueEnd > len(in) {
				t.Fatalf("%q: bad offsets %+v", in, a)
			}
		}
	})
}

func TestItemSpan(t *testing.T) {
	for _, tc := range []struct {
		value string
		k     int
		want  string // "" means not found
	}{
		{"create;connect", 1, "connect"},
		{"create;connect", 0, "create"},
		{"create;connect", 2, ""},
		{"{create, connect}", 1, "connect"},
		{`{"a,b",c}`, 0, `"a,b"`},
		{`"";apps`, 1, "apps"},
		{"v1", 0, "v1"},
	} {
		s, e, ok := itemSpan(tc.value, tc.k)
		got := ""
		if ok {
			got = tc.value[s:e]
		}
		if got != tc.want {
			t.Errorf("itemSpan(%q, %d) = %q, want %q", tc.value, tc.k, got, tc.want)
		}
	}
}
