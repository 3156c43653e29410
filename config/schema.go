package config

import (
	"encoding/json"
	"fmt"

	"github.com/webhooklint/webhooklint/rules"
)

// SchemaPath is where the published schema lives in the repository.
const SchemaPath = "docs/config.schema.json"

// JSONSchema renders the JSON schema (draft 2020-12) of .webhooklint.yaml
// from the rule registry, for editors (yaml-language-server) and for
// docs/config.schema.json. It admits exactly what Parse admits, except that
// it cannot check globs.
func JSONSchema() []byte {
	ruleProps := map[string]any{}
	for _, r := range allRules() {
		props := map[string]any{
			"enabled": map[string]any{"type": "boolean", "default": true},
			"severity": map[string]any{
				"enum": []string{"error", "warning", "info"}, "default": r.Severity.String(),
			},
		}
		if len(r.Options) > 0 {
			opts := map[string]any{}
			for _, o := range r.Options {
				opts[o.Name] = optionSchema(o)
			}
			props["options"] = map[string]any{"type": "object", "additionalProperties": false, "properties": opts}
		} else {
			props["options"] = map[string]any{"type": "object", "additionalProperties": false, "maxProperties": 0}
		}
		ruleProps[r.Name] = map[string]any{
			"description": r.Summary + ".",
			"oneOf": []any{
				map[string]any{"type": "boolean", "description": "Shorthand for enabled."},
				map[string]any{"type": "object", "additionalProperties": false, "properties": props},
			},
		}
	}
	schema := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  "https://github.com/webhooklint/webhooklint/blob/main/" + SchemaPath,
		"title":                "webhooklint configuration (.webhooklint.yaml)",
		"type":                 []string{"object", "null"},
		"additionalProperties": false,
		"properties": map[string]any{
			"kubeVersion": map[string]any{
				"description": "Kubernetes version the manifests are for, MAJOR.MINOR.",
				"type":        []string{"string", "number"},
				"pattern":     `^v?1\.[0-9]+(\.[0-9]+)?$`,
				"default":     rules.DefaultKubeVersion.String(),
			},
			"provider": map[string]any{
				"description": "Platform the manifests are installed on; generic reports only what holds everywhere.",
				"enum":        providerNames(),
				"default":     string(rules.Generic),
			},
			"ignore": map[string]any{
				"description": "Globs of paths not to lint, relative to the configuration file's folder.",
				"type":        []string{"array", "null"},
				"items":       map[string]any{"type": "string", "minLength": 1},
			},
			"inlineSuppressions": map[string]any{
				"description": "false makes webhooklint:ignore comments and webhooklint.io/ignore annotations findings instead of suppressions; the suppressions below still apply.",
				"type":        "boolean",
				"default":     true,
			},
			"suppressions": map[string]any{
				"description": "Findings to accept, each for one rule, with a reason; they apply whatever inlineSuppressions says.",
				"type":        []string{"array", "null"},
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []string{"rule", "reason"},
					"properties": map[string]any{
						"rule":    map[string]any{"description": "The rule whose findings are silenced.", "enum": ruleNames()},
						"paths":   map[string]any{"description": "Globs of the files it applies to, relative to the configuration file's folder (default: every file).", "type": "array", "items": map[string]any{"type": "string", "minLength": 1}},
						"webhook": map[string]any{"description": "Only findings on the webhook of this name.", "type": "string"},
						"reason":  map[string]any{"description": "Why the finding is acceptable.", "type": "string", "pattern": `\S`},
					},
				},
			},
			"charts": map[string]any{
				"description": "How to render Helm charts, as helm template would be told; a chart named by two entries is linted with each.",
				"type":        []string{"array", "null"},
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []string{"path"},
					"properties": map[string]any{
						"path":        map[string]any{"description": "Chart folder, relative to the configuration file's folder.", "type": "string", "minLength": 1},
						"values":      map[string]any{"description": "Values files, in order (helm --values), relative to the configuration file's folder.", "type": []string{"array", "null"}, "items": map[string]any{"type": "string"}},
						"set":         map[string]any{"description": "helm --set expressions (a.b=c,list[0]=d).", "type": []string{"array", "null"}, "items": map[string]any{"type": "string"}},
						"setString":   map[string]any{"description": "helm --set-string expressions.", "type": []string{"array", "null"}, "items": map[string]any{"type": "string"}},
						"releaseName": map[string]any{"description": "Release name (.Release.Name); default release-name.", "type": "string"},
						"namespace":   map[string]any{"description": "Release namespace (.Release.Namespace); default default.", "type": "string"},
					},
				},
			},
			"units": map[string]any{
				"description":          "What is deployed together, where the layout alone does not tell.",
				"type":                 []string{"object", "null"},
				"additionalProperties": false,
				"properties": map[string]any{
					"entries": map[string]any{
						"description": "Root kustomization and chart folders that are deployed, relative to the configuration file's folder; the other roots are linted as bases. A plain folder or a file named here is applied as written.",
						"type":        []string{"array", "null"}, "items": map[string]any{"type": "string", "minLength": 1},
					},
					"folders": map[string]any{
						"description": "How loose manifests group into units; by default the files of one folder are one unit (kubectl apply -f DIR).",
						"type":        []string{"array", "null"},
						"items": map[string]any{
							"type":                 "object",
							"additionalProperties": false,
							"required":             []string{"path"},
							"properties": map[string]any{
								"path":      map[string]any{"description": "Folder, relative to the configuration file's folder.", "type": "string", "minLength": 1},
								"recursive": map[string]any{"description": "The folder and every folder below it are one unit (kubectl apply -R, Argo CD directory.recurse, Flux).", "type": "boolean"},
								"split":     map[string]any{"description": "Each file of the folder is linted on its own.", "type": "boolean"},
							},
						},
					},
					"gitops": map[string]any{
						"description":          "Flux and Argo CD entries, built as their controllers build them.",
						"type":                 []string{"object", "null"},
						"additionalProperties": false,
						"properties": map[string]any{
							"discovery": map[string]any{"description": "Look for entries among the linted files (default true).", "type": "boolean"},
							"entries": map[string]any{
								"description": "Files holding entries, read in every run whatever is linted, relative to the configuration file's folder.",
								"type":        []string{"array", "null"}, "items": map[string]any{"type": "string", "minLength": 1},
							},
							"repoURLs": map[string]any{
								"description": "URLs that name this repository in entries' sources, besides its Git remotes.",
								"type":        []string{"array", "null"}, "items": map[string]any{"type": "string", "minLength": 1},
							},
						},
					},
				},
			},
			"rules": map[string]any{
				"description":          "Per-rule settings, by rule name.",
				"type":                 []string{"object", "null"},
				"additionalProperties": false,
				"properties":           ruleProps,
			},
		},
	}
	b, err := json.MarshalIndent(schema, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("config: rendering schema: %v", err)) // only maps of plain values
	}
	return append(b, '\n')
}

func providerNames() []string {
	out := make([]string, len(rules.Providers))
	for i, p := range rules.Providers {
		out[i] = string(p)
	}
	return out
}

func optionSchema(o rules.Option) map[string]any {
	s := map[string]any{"description": o.Doc, "default": o.Default}
	switch o.Default.(type) {
	case int:
		s["type"] = "integer"
	case bool:
		s["type"] = "boolean"
	case string:
		s["type"] = "string"
	case []string:
		s["type"] = "array"
		s["items"] = map[string]any{"type": "string"}
	}
	return s
}
