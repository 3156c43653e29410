package rules

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	serverchecker "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/internal/openapi"
	"github.com/webhooklint/webhooklint/internal/policytypes"
)

// TestPolicyTypesIsTheServers checks internal/policytypes against the
// type checker it stands for, k8s.io/apiserver's validating.TypeChecker
// (which the binaries do not link): the same warnings, in the same order,
// for every ValidatingAdmissionPolicy of the repository's fixtures,
// examples, conformance corpus and the shared real-world corpus, each
// with the CustomResourceDefinitions of its file, and for policies that
// reach the checker's corners (params, variables, more kinds than it
// checks, wildcards, subresources, resources it cannot map).
func TestPolicyTypesIsTheServers(t *testing.T) {
	cat, err := openapi.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	type source struct {
		name string
		vaps []*admissionv1.ValidatingAdmissionPolicy
		crds []*apiextensionsv1.CustomResourceDefinition
	}
	var sources []source
	for _, root := range []string{"../testdata", "examples", "../examples", "../../shared/corpus"} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil || !bytes.Contains(data, []byte("ValidatingAdmissionPolicy")) {
				return nil
			}
			s := source{name: p}
			s.vaps, s.crds = policiesAndCRDs(data)
			if len(s.vaps) > 0 {
				sources = append(sources, s)
			}
			return nil
		})
	}
	corners, crds := policiesAndCRDs([]byte(typeCheckCorners))
	sources = append(sources, source{name: "typeCheckCorners", vaps: corners, crds: crds})

	// The server names each kind's type after the clock's nanoseconds.
	typeNames := regexp.MustCompile(`\b([A-Z][A-Za-z]*)[0-9]{1,9}\b`)
	policies, warnings := 0, 0
	for _, s := range sources {
		for _, vap := range s.vaps {
			types := &unitTypes{cat: cat, crds: s.crds}
			got := policytypes.Check(vap, types)
			want := (&serverchecker.TypeChecker{SchemaResolver: types, RestMapper: types}).Check(vap)
			for _, ws := range [][]admissionv1.ExpressionWarning{got, want} {
				for i := range ws {
					ws[i].Warning = typeNames.ReplaceAllString(ws[i].Warning, "${1}N")
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: policy %s:\npolicytypes.Check: %q\nvalidating.TypeChecker: %q", s.name, vap.Name, got, want)
			}
			policies++
			warnings += len(want)
		}
	}
	// Enough to say something: the fixtures of admission-policy-types alone
	// hold a dozen warnings.
	if policies < 50 || warnings < 12 {
		t.Errorf("compared %d policies and %d warnings; want at least 50 and 12", policies, warnings)
	}
	t.Logf("%d policies, %d warnings, from %d files", policies, warnings, len(sources))
}

func policiesAndCRDs(data []byte) (vaps []*admissionv1.ValidatingAdmissionPolicy, crds []*apiextensionsv1.CustomResourceDefinition) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) || err != nil {
			return vaps, crds
		}
		var head struct{ APIVersion, Kind string }
		if yaml.Unmarshal(doc, &head) != nil {
			continue
		}
		switch {
		case head.Kind == "ValidatingAdmissionPolicy" && head.APIVersion == "admissionregistration.k8s.io/v1":
			var vap admissionv1.ValidatingAdmissionPolicy
			if yaml.Unmarshal(doc, &vap) == nil {
				vaps = append(vaps, &vap)
			}
		case head.Kind == "CustomResourceDefinition":
			var crd apiextensionsv1.CustomResourceDefinition
			if yaml.Unmarshal(doc, &crd) == nil {
				crds = append(crds, &crd)
			}
		}
	}
}

// typeCheckCorners are policies that take the checker's less common
// paths.
const typeCheckCorners = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: limits.example.com}
spec:
  group: example.com
  names: {kind: Limit, plural: limits}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              max: {type: integer}
              names: {type: array, items: {type: string}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: params-and-variables}
spec:
  paramKind: {apiVersion: example.com/v1, kind: Limit}
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments", "statefulsets", "deployments/scale", "*"]
  variables:
  - name: replicas
    expression: "object.spec.replicas"
  - name: wrong
    expression: "object.spec.replica"
  validations:
  - expression: "variables.replicas <= params.spec.max"
    messageExpression: "'too many: ' + variables.replicas"
  - expression: "params.spec.maximum > 0"
  - expression: "variables.wrong == 1"
  - expression: "object.metadata.name in params.spec.names && request.userInfo.username != '' && authorizer.group('apps').resource('deployments').check('get').allowed()"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: unmapped-params-and-resources}
spec:
  paramKind: {apiVersion: example.com/v2, kind: Missing}
  matchConstraints:
    resourceRules:
    - apiGroups: ["example.com"]
      apiVersions: ["v9"]
      operations: ["CREATE"]
      resources: ["nothings"]
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "object.data.size() < params.max"
  - expression: "object.dta.size() < 3"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: more-kinds-than-checked}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["", "apps", "batch"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods", "services", "configmaps", "secrets", "deployments", "daemonsets", "jobs", "cronjobs", "replicasets", "statefulsets", "serviceaccounts", "endpoints"]
  validations:
  - expression: "object.spec.replicas > 0"
  - expression: "has(object.metadata.labels) && object.metadata.labels.size() > 0"
    messageExpression: "object.metadata.nam"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: wildcards}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["*"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
    - apiGroups: [""]
      apiVersions: ["*"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "object.spec.nothing == 1"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: syntax}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "object.spec.containers.all(c, c.image.startsWith('registry.example.com/')"
  - expression: "object.spec.containers.size() + 'a'"
`
