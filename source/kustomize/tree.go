package kustomize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// FileNames are the kustomization file names kustomize recognizes, in its
// order of preference.
var FileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// FileIn returns the kustomization file in dir, if there is one.
func FileIn(dir string) (string, bool) {
	for _, n := range FileNames {
		p := filepath.Join(dir, n)
		if fi, err := overlay.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// kust is one kustomization file as webhooklint reads it: enough to know
// which files it consumes and which patches it applies, in kustomize's
// order. kustomize itself does the build; this only maps results back.
type kust struct {
	dir, file string
	// resources are the files (absolute) this kustomization and its bases
	// and components accumulate.
	resources map[string]bool
	// patches in application order: bases' patches first, then this
	// kustomization's own.
	patches []*patch
	// subs are nested kustomizations (bases, components).
	subs []*kust
	// openAPI is set when the kustomization names an OpenAPI schema of its
	// own (the openapi field), which krusty makes the process's.
	openAPI bool
	// elsewhere is set when objects may come from something else than
	// its resource files (fields.elsewhere).
	elsewhere bool
}

// patch is one patch a kustomization applies.
type patch struct {
	file    string // where it is written (the kustomization file for inline patches)
	inline  bool
	kustDir string
	target  *selector
	// docs are strategic-merge patch documents, or one JSON6902 document.
	docs     []*patchDoc
	json6902 bool
	// renames is set for a JSON6902 patch that writes or moves an
	// object's kind or name.
	renames bool
	owner   *kust
}

type patchDoc struct {
	kind, name string // from the document, for strategic-merge patches
	tab        *table
}

type selector struct {
	kind, name string
	// pattern is name as kustomize reads it, a regular expression, when
	// name has an operator of one; compiled once, not per object.
	pattern *regexp.Regexp
}

// SyntaxError is a kustomization file that is not YAML, so kustomize cannot
// read it. Err is the YAML parser's, whose line numbers callers correct as
// for any manifest (manifest.SyntaxErrorLine).
type SyntaxError struct {
	File string
	Err  error
}

func (e *SyntaxError) Error() string { return e.File + ": " + e.Err.Error() }

func (e *SyntaxError) Unwrap() error { return e.Err }

// load reads the kustomization tree rooted at dir.
// Problems with its inputs (remote references, alias bombs) are collected
// in problems rather than stopping the walk, so each is reported.
// With root, the root kustomization's text is root rather than its file's
// (a GitOps controller's version of it, which may have no file).
func load(dir string, root *Root) (*kust, Problems, error) {
	var problems Problems
	k, err := loadKust(dir, map[string]bool{}, &problems, root)
	return k, problems, err
}

func loadKust(dir string, seen map[string]bool, problems *Problems, override *Root) (*kust, error) {
	file, data := "", []byte(nil)
	if override != nil {
		file, data = override.File, override.Text
	} else {
		var ok bool
		if file, ok = FileIn(dir); !ok {
			return nil, fmt.Errorf("%s: no kustomization file", dir)
		}
	}
	if seen[file] {
		return nil, fmt.Errorf("%s: kustomization cycle: it is its own base", file)
	}
	seen[file] = true
	defer delete(seen, file)

	data, root, bomb, err := readKustomization(file, data)
	if err != nil {
		return nil, err
	}
	if bomb != nil {
		*problems = append(*problems, bomb)
		return &kust{dir: dir, file: file, resources: map[string]bool{}, elsewhere: true}, nil
	}
	kf := fields{root}
	k := &kust{dir: dir, file: file, resources: map[string]bool{}, openAPI: kf.openAPI(), elsewhere: kf.elsewhere()}
	// Every reference kustomize would download, whatever field holds it.
	*problems = append(*problems, remoteRefs(file, root)...)
	if err := k.loadIncludes(kf, seen, problems); err != nil {
		return nil, err
	}
	checkPlugins(dir, kf, seen, problems)
	if err := k.loadPatches(kf, bytes.Split(data, []byte{'\n'}), problems); err != nil {
		return nil, err
	}
	return k, nil
}

// readKustomization reads the kustomization file (unless its text is
// given) and parses it; an alias bomb is a problem instead of a tree.
func readKustomization(file string, data []byte) ([]byte, *yaml.Node, *Problem, error) {
	if data == nil {
		var err error
		if data, err = overlay.ReadFile(file); err != nil {
			return nil, nil, nil, err
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, nil, &SyntaxError{File: file, Err: err}
	}
	if p := aliasBomb(file, data); p != nil {
		return data, nil, p, nil
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	return data, root, nil, nil
}

// loadIncludes loads the folders the kustomization includes (resources,
// bases, components) as kustomizations of their own, taking on their
// resources and patches, and records the files it lists as resources.
func (k *kust) loadIncludes(kf fields, seen map[string]bool, problems *Problems) error {
	for _, entry := range kf.includes() {
		e, field := entry.node, entry.field
		p := filepath.Join(k.dir, e.Value)
		fi, statErr := overlay.Stat(p)
		switch {
		case isRemote(e.Value):
			// Reported with the kustomization's remote references.
		case statErr == nil && fi.IsDir():
			sub, err := loadKust(p, seen, problems, nil)
			if err != nil {
				return err
			}
			k.subs = append(k.subs, sub)
			for f := range sub.resources {
				k.resources[f] = true
			}
			if field == "components" {
				// A component's own patches apply to what the
				// kustomization including it has accumulated.
				for _, pt := range sub.patches {
					if pt.owner == sub {
						pt.owner = k
					}
				}
			}
			k.patches = append(k.patches, sub.patches...)
		case statErr == nil:
			// Its aliases are checked as kustomize reads it (originFS).
			k.resources[filepath.Clean(p)] = true
		}
		// A missing local path is left to kustomize, whose error
		// names it.
	}
	return nil
}

// checkPlugins reads what generators, transformers and validators name
// for remote references: configuration files, or kustomizations whose
// resources are configurations. kustomize loads what those name (a
// PatchTransformer's path, a generator's files).
func checkPlugins(dir string, kf fields, seen map[string]bool, problems *Problems) {
	for _, e := range kf.plugins() {
		if e.Kind != yaml.ScalarNode || isRemote(e.Value) || strings.Contains(e.Value, "\n") {
			continue // remote: reported with the kustomization; inline: scanned with it
		}
		p := filepath.Join(dir, e.Value)
		fi, err := overlay.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			if sub, err := loadKust(p, seen, problems, nil); err == nil {
				for f := range sub.resources {
					checkPlugin(f, problems)
				}
			}
		default:
			checkPlugin(p, problems)
		}
	}
}

// loadPatches parses the kustomization's own patches
// (patchesStrategicMerge, patches by path or inline), given lines of its
// text to position inline ones.
func (k *kust) loadPatches(kf fields, lines [][]byte, problems *Problems) error {
	add := func(pt *patch, content []byte, lineOff, colOff int) error {
		pt.kustDir, pt.owner = k.dir, k
		if err := pt.parse(content, lineOff, colOff); err != nil {
			return err
		}
		k.patches = append(k.patches, pt)
		return nil
	}
	for _, e := range kf.strategicMerge() {
		if err := k.addPatchRef(add, e, nil, lines, eitherPatch, problems); err != nil {
			return err
		}
	}
	for _, e := range kf.patches() {
		sel := parseSelector(e.target)
		if e.path != nil {
			if err := k.addPatchRef(add, e.path, sel, lines, pathPatch, problems); err != nil {
				return err
			}
		} else if e.patch != nil {
			if err := k.addPatchRef(add, e.patch, sel, lines, inlinePatch, problems); err != nil {
				return err
			}
		}
	}
	return nil
}

// patchForm is how a kustomization field gives a patch.
type patchForm int

const (
	eitherPatch patchForm = iota // patchesStrategicMerge: a file name or the patch itself
	pathPatch                    // patches[].path
	inlinePatch                  // patches[].patch
)

// checkPlugin reads a generator or transformer configuration and reports
// an alias bomb in it, or every remote reference it holds.
func checkPlugin(p string, problems *Problems) {
	data, err := overlay.ReadFile(p)
	if err != nil {
		return // kustomize reports it
	}
	if bomb := aliasBomb(p, data); bomb != nil {
		*problems = append(*problems, bomb)
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if dec.Decode(&doc) != nil {
			return
		}
		*problems = append(*problems, remoteRefs(p, &doc)...)
	}
}

// addPatchRef adds a patch given by a file path or inline text.
// A `path:` is always a file name and a `patch:` always inline text; a
// patchesStrategicMerge entry is a file when it names one, else inline
// text when it holds a newline or a colon.
func (k *kust) addPatchRef(add func(*patch, []byte, int, int) error, n *yaml.Node, sel *selector, lines [][]byte, form patchForm, problems *Problems) error {
	if n == nil || n.Kind != yaml.ScalarNode || (form != inlinePatch && isRemote(n.Value)) {
		return nil // a remote patch is reported with the kustomization
	}
	v := n.Value
	p := filepath.Clean(filepath.Join(k.dir, v))
	fi, statErr := overlay.Stat(p)
	isFile := form == pathPatch ||
		(form == eitherPatch && ((statErr == nil && fi.Mode().IsRegular()) || !strings.ContainsAny(v, "\n:")))
	if isFile {
		data, err := overlay.ReadFile(p)
		if err != nil {
			return nil // kustomize reports the missing file
		}
		if bomb := aliasBomb(p, data); bomb != nil {
			*problems = append(*problems, bomb)
			return nil
		}
		return add(&patch{file: p, target: sel}, data, 0, 0)
	}
	if bomb := aliasBomb(k.file, []byte(v)); bomb != nil {
		bomb.Span = diag.Point(bomb.File, n.Line, n.Column)
		*problems = append(*problems, bomb)
		return nil
	}
	// Inline patch: for a block scalar its text starts on the next line,
	// indented; map its lines back into the kustomization file.
	lineOff, colOff := n.Line-1, n.Column-1
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		lineOff = n.Line
		colOff = 0
		for i := n.Line; i < len(lines); i++ {
			t := bytes.TrimRight(lines[i], "\r")
			if len(bytes.TrimSpace(t)) == 0 {
				continue
			}
			colOff = len(t) - len(bytes.TrimLeft(t, " "))
			break
		}
	}
	return add(&patch{file: k.file, inline: true, target: sel}, []byte(v), lineOff, colOff)
}

// parse reads the patch text. lineOff/colOff shift positions for inline
// patches (block scalar text starts at a fixed indentation).
func (pt *patch) parse(content []byte, lineOff, colOff int) error {
	dec := yaml.NewDecoder(bytes.NewReader(content))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: patch does not parse: %w", pt.file, err)
		}
		shift(&doc, lineOff, colOff, 0)
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		tab := newTable(pt.file)
		if root.Kind == yaml.SequenceNode {
			// JSON6902: a list of operations.
			pt.json6902 = true
			for _, op := range root.Content {
				opName, ptr := mapValue(op, "op"), mapValue(op, "path")
				if from := mapNode(op, "from"); op.Kind != yaml.MappingNode || identityPointer(ptr) || (from != nil && identityPointer(from.Value)) {
					pt.renames = true
				}
				val := mapNode(op, "value")
				if (opName != "add" && opName != "replace") || val == nil {
					continue
				}
				prefix, ok := pointerToPath(ptr)
				if !ok {
					continue
				}
				tab.record(prefix, nil, val, 0)
				tab.whole[prefix] = true
				if val.Kind == yaml.ScalarNode {
					// Point at the operation's value for scalars, which is
					// where the reader edits.
					tab.at[prefix] = tab.pos(nil, val)
				}
			}
			pt.docs = append(pt.docs, &patchDoc{tab: tab})
			continue
		}
		if root.Kind != yaml.MappingNode {
			continue
		}
		tab.record("", nil, root, 0)
		tab.forget(identity...)
		pt.docs = append(pt.docs, &patchDoc{
			kind: mapValue(root, "kind"),
			name: mapValue(mapNode(root, "metadata"), "name"),
			tab:  tab,
		})
	}
}

// identityPointer reports whether a JSON pointer addresses an object's
// kind or name, or holds them.
func identityPointer(ptr string) bool {
	switch ptr {
	case "", "/", "/kind", "/metadata", "/metadata/name":
		return true
	}
	return strings.HasPrefix(ptr, "/kind/") || strings.HasPrefix(ptr, "/metadata/name/")
}

// shift moves node positions of an inline patch into its kustomization file.
func shift(n *yaml.Node, lineOff, colOff, depth int) {
	if n == nil || depth > 128 {
		return
	}
	if n.Line > 0 {
		n.Line += lineOff
		n.Column += colOff
	}
	for _, c := range n.Content {
		shift(c, lineOff, colOff, depth+1)
	}
}

// pointerToPath turns a JSON pointer (/webhooks/0/failurePolicy) into a
// field path key (webhooks[0].failurePolicy). Appends (/-) have no index
// known in advance and are not mapped.
func pointerToPath(ptr string) (string, bool) {
	if !strings.HasPrefix(ptr, "/") {
		return "", false
	}
	out := ""
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if tok == "-" {
			return "", false
		}
		if isIndex(tok) {
			out = fieldpath.Key(out, tok)
			continue
		}
		out = join(out, tok)
	}
	return out, out != ""
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func parseSelector(n *yaml.Node) *selector {
	if n == nil {
		return nil
	}
	s := &selector{kind: mapValue(n, "kind"), name: mapValue(n, "name")}
	if strings.ContainsAny(s.name, `*+?[](){}|\^$`) {
		s.pattern, _ = regexp.Compile("^(?:" + s.name + ")$")
	}
	return s
}

func seqNodes(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// setsOpenAPI reports whether k or a kustomization it includes names an
// OpenAPI schema.
func (k *kust) setsOpenAPI() bool {
	return k.openAPI || slices.ContainsFunc(k.subs, (*kust).setsOpenAPI)
}

// fromResources reports whether the built objects of the tree can only
// be those of its resource files, under their kinds and names or these
// names with a prefix or suffix: no kustomization in it has a field
// fields.elsewhere reports, and no patch renames an object.
func (k *kust) fromResources() bool {
	return !k.elsewhere && !slices.ContainsFunc(k.patches, func(p *patch) bool { return p.renames }) &&
		!slices.ContainsFunc(k.subs, func(s *kust) bool { return !s.fromResources() })
}

// files returns every file the tree consumes as a resource or a patch,
// and every kustomization file in it.
func (k *kust) files() (resources, patches, kusts map[string]bool) {
	resources, patches, kusts = map[string]bool{}, map[string]bool{}, map[string]bool{}
	var walk func(*kust)
	walk = func(k *kust) {
		kusts[k.file] = true
		for f := range k.resources {
			resources[f] = true
		}
		for _, p := range k.patches {
			if !p.inline {
				patches[p.file] = true
			}
		}
		for _, s := range k.subs {
			walk(s)
		}
	}
	walk(k)
	return resources, patches, kusts
}

// PatchIndex answers PatchedBy for the files of one run, reading each
// folder once: which kustomization it holds, the patches that applies,
// whether it is a repository root. A folder of thousands of loose files
// otherwise repeated the same walk up for every file.
type PatchIndex struct {
	mu   sync.Mutex
	dirs map[string]func() *patchDir // read once each, outside mu
}

type patchDir struct {
	kustomization string          // "" when the folder has none that loads
	patches       map[string]bool // files (absolute) it uses as patches
	repoRoot      bool
}

// NewPatchIndex returns an empty index; it is safe for concurrent use.
func NewPatchIndex() *PatchIndex { return &PatchIndex{dirs: map[string]func() *patchDir{}} }

// PatchedBy reports the kustomization, in file's folder or above it, that
// uses file as a patch. It stops at a repository root (a .git folder).
func (x *PatchIndex) PatchedBy(file string) (string, bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", false
	}
	for dir := filepath.Dir(abs); ; {
		d := x.dir(dir)
		if d.patches[abs] {
			return d.kustomization, true
		}
		if d.repoRoot {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// dir reads a folder the first time it is asked for. The lock covers the
// table only: workers asking for other folders do not wait for this read.
func (x *PatchIndex) dir(dir string) *patchDir {
	x.mu.Lock()
	read, ok := x.dirs[dir]
	if !ok {
		read = sync.OnceValue(func() *patchDir { return readPatchDir(dir) })
		x.dirs[dir] = read
	}
	x.mu.Unlock()
	return read()
}

func readPatchDir(dir string) *patchDir {
	d := &patchDir{}
	if _, ok := FileIn(dir); ok {
		if k, _, err := load(dir, nil); err == nil {
			_, d.patches, _ = k.files()
			d.kustomization = k.file
		}
	}
	if fi, err := overlay.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		d.repoRoot = true
	}
	return d
}

// EntryLine finds the line of the kustomization file that names something
// an error message mentions (a resource, base, component or patch path),
// so a build error can point at it. ok is false when none is mentioned.
func EntryLine(file, msg string) (line, col int, ok bool) {
	data, err := overlay.ReadFile(file)
	if err != nil {
		return 0, 0, false
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return 0, 0, false
	}
	k := fields{doc.Content[0]}
	var refs []*yaml.Node
	for _, e := range k.includes() {
		refs = append(refs, e.node)
	}
	refs = append(refs, k.strategicMerge()...)
	for _, e := range k.patches() {
		if e.path != nil {
			refs = append(refs, e.path)
		}
	}
	for _, n := range refs {
		v := n.Value
		if n.Kind != yaml.ScalarNode || v == "" || strings.Contains(v, "\n") {
			continue
		}
		if strings.Contains(msg, "'"+v+"'") || strings.Contains(msg, `"`+v+`"`) ||
			strings.Contains(msg, string(filepath.Separator)+filepath.Clean(v)) {
			return n.Line, n.Column, true
		}
	}
	return 0, 0, false
}
