package rules

import "github.com/webhooklint/webhooklint/diag"

// YAMLSyntaxRule names the loader's finding for input that is not valid YAML or JSON.
const YAMLSyntaxRule = "yaml-syntax"

func init() {
	register(&Rule{
		Name:     YAMLSyntaxRule,
		Summary:  "the file is not valid YAML or JSON, or is too large to read",
		Severity: diag.Error,
		Category: Input,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "kubectl and the API server cannot read a document that does not parse, so nothing in it is applied. " +
				"webhooklint reports the first syntax error of each document with its line and keeps linting the other documents and files. " +
				"A `.json` file that names neither `\"apiVersion\"` nor `\"kind\"` holds no Kubernetes object whatever it is " +
				"(a `tsconfig.json` with comments, an editor's settings), so its syntax is not reported, as a valid one's content is not.",
			Fix: "Correct the indentation or quoting at the reported line. For Helm templates, lint the rendered chart instead.",
			Sources: []string{
				"https://yaml.org/spec/1.2.2/",
			},
		},
	})
}
