package kustomize

import (
	"encoding/json"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// printYAML prints what sigs.k8s.io/yaml's JSONToYAML prints, on the
// values that read differently as YAML than as JSON.
func TestPrintYAML(t *testing.T) {
	long := strings.Repeat("a fairly long value ", 8)
	for _, j := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"a":"<b>&"}},"data":{"octal":"0o17","old":"017","y":"y","on":"on","no":"no","null":"null","tilde":"~","empty":"","num":"1e3","t":"true","long":"` + long + `","lines":"a\nb\n","tab":"a\tb","u":"\u2028é😀"}}`,
		`{"spec":{"replicas":3,"neg":-2,"zero":0,"negzero":-0,"big":12345678901234567890,"min":-9223372036854775808,"max":9223372036854775807,"f":1.5,"e":1e+21,"small":1e-7,"huge":1e400,"whole":2.0,"t":true,"f2":false,"n":null}}`,
		`{"list":[],"map":{},"nested":[[1,[2,{"a":[]}]],{"b":{}}],"keys":{"a10":1,"a2":2,"A":3,"1":4,"-":5,"true":6,"":7,"a b":8}}`,
		`{"` + strings.Repeat("k", 1200) + `":1}`,
		`{"a":1} {"b":2}`,
		`{"a":1}  `,
	} {
		want, werr := sigsyaml.JSONToYAML([]byte(j))
		got, gerr := printYAML([]byte(j))
		if (werr != nil) != (gerr != nil) || string(got) != string(want) {
			t.Errorf("%.60s:\n got %q, %v\nwant %q, %v", j, got, gerr, want, werr)
		}
	}
}

// FuzzPrintYAML: on any JSON, printYAML prints what JSONToYAML prints.
func FuzzPrintYAML(f *testing.F) {
	f.Add([]byte(`{"a":[1,-0,1.0,1e3,"1e3",true,null,{"b":"y"}]}`))
	f.Add([]byte(`{"n":18446744073709551615,"m":-9223372036854775809}`))
	f.Fuzz(func(t *testing.T, j []byte) {
		if !json.Valid(j) {
			return
		}
		want, err := sigsyaml.JSONToYAML(j)
		if err != nil {
			return // yaml.v2 does not read it; printYAML may
		}
		got, err := printYAML(j)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%q:\n got %q, %v\nwant %q", j, got, err, want)
		}
	})
}
