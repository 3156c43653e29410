package kustomize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/lazy"
)

// Problem is something in a kustomization's inputs that stops webhooklint
// from building it: a reference that would have to be downloaded, or a file
// whose aliases expand beyond what is read. It is positioned in the file
// that holds it.
type Problem struct {
	diag.Span
	Msg string
	// Remote is set on a reference webhooklint does not download: the
	// input could not be linted offline, which is no rejection. Ref is
	// the reference as written.
	Remote bool
	Ref    string
}

func (p *Problem) Error() string { return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Msg) }

// Problems are every Problem found in a kustomization tree; the build is
// not run when there is one.
type Problems []*Problem

func (ps Problems) Error() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Error()
	}
	return strings.Join(s, "; ")
}

// remoteProblem reports a scalar kustomize would fetch.
func remoteProblem(file string, n *yaml.Node) *Problem {
	return &Problem{
		Span:   diag.LineSpan(file, n.Line, n.Column, n.Column+max(1, utf8.RuneCountInString(n.Value))),
		Remote: true, Ref: n.Value,
		Msg: fmt.Sprintf("remote reference %q is not downloaded (webhooklint builds offline): vendor it into the repository, or lint the build output with `kustomize build | webhooklint -`", n.Value),
	}
}

// remoteRef matches what kustomize fetches: a URL of any scheme (it
// downloads http and https files and hands the rest to `git`), and the
// spellings of a git repository its loader accepts without a scheme
// (git@host:org/repo, git::…, github.com/org/repo, a ?ref= query, a .git or
// _git path segment). It is deliberately wider than kustomize's parser: a
// false match costs a finding, a miss would cost a download.
var remoteRef = lazy.Regexp(`^[a-zA-Z][a-zA-Z0-9+.-]*://|^[\w.-]+@[\w.-]+:|^git::|^(?:[\w-]+\.)*(?:github\.com|gitlab\.com|bitbucket\.org)[/:]|\?ref=|\?version=|\.git(?:/|$|\?)|(?:^|/)_git/`)

// isRemote reports whether kustomize would fetch s rather than read a file.
// A generator's `key=path` file source counts by its path.
func isRemote(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.Contains(s, "\n") {
		return false
	}
	if m := keyedSource().FindStringSubmatch(s); m != nil && remoteRef().MatchString(m[1]) {
		return true
	}
	return remoteRef().MatchString(s)
}

// RemoteName names a remote reference short, for a list of them: the
// owner/repository on a Git forge (`fluxcd/flux2`, from a repository, a
// release download or a raw file), else the host.
func RemoteName(ref string) string {
	s := strings.TrimSpace(ref)
	if m := keyedSource().FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	s = strings.TrimPrefix(s, "git::")
	if _, rest, ok := strings.Cut(s, "://"); ok {
		s = rest
	}
	s, _, _ = strings.Cut(s, "?")
	if at := strings.IndexByte(s, '@'); at >= 0 && at < strings.IndexAny(s+"/", "/:") {
		s = s[at+1:] // user@host
	}
	host, rest, _ := strings.Cut(strings.Replace(s, ":", "/", 1), "/")
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) >= 2 && parts[0] != "" && parts[1] != "" && strings.Contains(forges, "|"+host+"|") {
		return parts[0] + "/" + strings.TrimSuffix(parts[1], ".git")
	}
	return host
}

// forges are the hosts whose paths start with owner/repository.
const forges = "|github.com|raw.githubusercontent.com|gitlab.com|bitbucket.org|"

var keyedSource = lazy.Regexp(`^[\w.-]+=(.+)$`)

// dataKeys hold values that kustomize copies into objects or uses as
// text (labels, literals, inline patches, image names, selectors), never as
// something to load. Every other scalar of a kustomization or of a
// generator or transformer configuration is a reference kustomize may
// load, so a field kustomize adds later is covered without a list of the
// fields that load things.
var dataKeys = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true,
	"commonAnnotations": true, "commonLabels": true, "labels": true, "annotations": true,
	"images": true, "replicas": true, "namePrefix": true, "nameSuffix": true, "prefix": true, "suffix": true,
	"namespace": true, "vars": true, "buildMetadata": true, "sortOptions": true,
	"patch": true, "target": true, "select": true, "reject": true, "fieldSpecs": true,
	"literals": true, "options": true, "generatorOptions": true, "behavior": true,
	"source": true, "targets": true, "version": true,
	// Helm inflation runs `helm`, which plugins-off builds refuse anyway.
	"helmCharts": true, "helmGlobals": true, "helmChartInflationGenerator": true,
}

// remoteRefs lists every scalar of a kustomization or plugin configuration
// document that kustomize would fetch.
func remoteRefs(file string, root *yaml.Node) []*Problem {
	var out []*Problem
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if !dataKeys[n.Content[i].Value] {
					walk(n.Content[i+1], depth+1)
				}
			}
		case yaml.ScalarNode:
			if isRemote(n.Value) {
				out = append(out, remoteProblem(file, n))
			}
		}
	}
	walk(root, 0)
	return out
}

// maxExpandedNodes bounds how many YAML nodes one kustomize input may
// expand to once its aliases are followed: the same bound the manifest
// loader puts on one document. kustomize de-anchors resources and
// webhooklint's patch table follows aliases, so a kilobyte of nested
// aliases would otherwise become gigabytes.
const maxExpandedNodes = 1 << 20

// aliasBomb reports the first alias of data at which its documents expand
// beyond maxExpandedNodes, counted over the whole file. Sizes are
// memoized per node, so the check itself stays linear in the text.
func aliasBomb(file string, data []byte) *Problem {
	if !bytes.Contains(data, []byte("*")) {
		return nil // no alias, nothing expands
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	total := 0
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) || err != nil {
			return nil // kustomize reports syntax errors itself
		}
		sizes := map[*yaml.Node]int{}
		var at *yaml.Node // the largest alias seen
		var size func(n *yaml.Node, depth int) int
		size = func(n *yaml.Node, depth int) int {
			if n == nil || depth > 1000 {
				return 1
			}
			if s, ok := sizes[n]; ok {
				return s
			}
			sizes[n] = maxExpandedNodes + 1 // in progress: a cycle counts as too big
			s := 1
			if n.Kind == yaml.AliasNode {
				s = size(n.Alias, depth+1)
			}
			for _, c := range n.Content {
				s += size(c, depth+1)
				if s > maxExpandedNodes {
					s = maxExpandedNodes + 1
					break
				}
			}
			if n.Kind == yaml.AliasNode && (at == nil || s > sizes[at]) {
				at = n // the largest alias is where the text explodes
			}
			sizes[n] = s
			return s
		}
		total += size(&doc, 0)
		if total > maxExpandedNodes {
			if at == nil {
				at = &doc
			}
			return &Problem{
				Span: diag.Point(file, max(at.Line, 1), max(at.Column, 1)),
				Msg:  fmt.Sprintf("aliases expand this file to more than %d YAML nodes (an alias bomb?)", maxExpandedNodes),
			}
		}
	}
}
