package analyzer

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// BenchmarkMarkers measures the marker front end with every registered
// rule on a package of 200 kubebuilder markers (about ten times a large
// operator): parse, generate, run the rules, place the findings.
func BenchmarkMarkers(b *testing.B) {
	var src strings.Builder
	src.WriteString("package p\n")
	for i := range 200 {
		fmt.Fprintf(&src, "\n// +kubebuilder:webhook:path=/validate-v1-r%d,mutating=%t,failurePolicy=fail,sideEffects=None,groups=apps;\"\",resources=r%d;pods,verbs=create;update,versions=v1,name=v%d.example.com,admissionReviewVersions=v1,timeoutSeconds=%d\n",
			i, i%2 == 0, i, i, 5+i%30)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src.String(), parser.ParseComments)
	if err != nil {
		b.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	pass := &analysis.Pass{Fset: fset, Files: []*ast.File{f}, Pkg: pkg, TypesInfo: info,
		Report: func(analysis.Diagnostic) { n++ }}
	b.ReportAllocs()
	for b.Loop() {
		if err := run(pass, &Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(200*b.N)/b.Elapsed().Seconds(), "markers/s")
	b.ReportMetric(float64(n)/float64(b.N), "findings/op")
}
