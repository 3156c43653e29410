package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ParseJobs must give what Parse gives, document for document, whatever
// the files hold: Lists, syntax errors, aliases, JSON streams.
func TestParseJobsIsParse(t *testing.T) {
	var files []string
	for _, root := range []string{"../testdata/rules", "../testdata/corpus", "../../shared/corpus/real"} {
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".yaml") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 50 {
		t.Fatalf("only %d files to compare", len(files))
	}
	// A file of many documents, some broken, so the goroutines share work.
	var many strings.Builder
	for i := range 200 {
		switch i % 7 {
		case 3:
			many.WriteString("---\nkind: [unclosed\n")
		case 5:
			many.WriteString("---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: s}, spec: {ports: [{port: 443}]}}\n")
		default:
			many.WriteString("---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\nwebhooks:\n- name: a.example.com\n  timeoutSeconds: 40\n")
		}
	}
	inputs := map[string][]byte{"many.yaml": []byte(many.String())}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for name, data := range inputs {
		want := Parse(name, data)
		for _, jobs := range []int{2, 5} {
			got := ParseJobs(name, data, jobs)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: ParseJobs(%d) differs from Parse: %d docs, %d diagnostics; want %d, %d",
					name, jobs, len(got.Docs), len(got.Diagnostics), len(want.Docs), len(want.Diagnostics))
			}
		}
	}
}
