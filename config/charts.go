package config

import (
	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v4/pkg/strvals"
)

// Chart says how to render one chart, as `helm template` would be told:
// webhooklint renders a chart with each entry that names it (an entry per
// environment lints each), and with Helm's defaults otherwise.
type Chart struct {
	// Path is the chart folder, relative to the configuration file's
	// folder in the file and made absolute-or-relative-to-cwd by Load.
	Path string
	// Values are values files, in order (helm --values), resolved like
	// Path.
	Values []string
	// Set and SetString are --set and --set-string expressions.
	Set, SetString []string
	// ReleaseName and Namespace are .Release.Name and .Release.Namespace.
	ReleaseName, Namespace string
}

// charts reads the charts: list.
func (p *parser) charts(n *yaml.Node, dir string) []Chart {
	var out []Chart
	p.sequence(n, "charts", func(item *yaml.Node) {
		var c Chart
		p.mapping(item, "a charts entry", func(k, v *yaml.Node) {
			switch k.Value {
			case "path":
				if s, ok := p.scalar(v, "charts path", "!!str"); ok {
					c.Path = p.path(v, "charts path", s, dir)
				}
			case "values":
				p.sequence(v, "charts values", func(e *yaml.Node) {
					if s, ok := p.scalar(e, "charts values entry", "!!str"); ok {
						c.Values = append(c.Values, p.path(e, "charts values entry", s, dir))
					}
				})
			case "set", "setString":
				p.sequence(v, "charts "+k.Value, func(e *yaml.Node) {
					s, ok := p.scalar(e, "charts "+k.Value+" entry", "!!str")
					if !ok {
						return
					}
					// Checked now, with a position, rather than at render time.
					if _, err := strvals.Parse(s); err != nil {
						p.errorf(e, "charts %s: %v", k.Value, err)
						return
					}
					if k.Value == "set" {
						c.Set = append(c.Set, s)
					} else {
						c.SetString = append(c.SetString, s)
					}
				})
			case "releaseName":
				if s, ok := p.scalar(v, "charts releaseName", "!!str"); ok {
					c.ReleaseName = s
				}
			case "namespace":
				if s, ok := p.scalar(v, "charts namespace", "!!str"); ok {
					c.Namespace = s
				}
			default:
				p.errorf(k, "unknown key %q in a charts entry (want path, values, set, setString, releaseName or namespace)", k.Value)
			}
		})
		if c.Path == "" && item.Kind == yaml.MappingNode {
			p.errorf(item, "a charts entry needs a path")
			return
		}
		out = append(out, c)
	})
	return out
}
