// Package kustomize builds a kustomization in-process with the kustomize
// API (offline, plugins off) and maps findings on the built objects back to
// the file and line that wrote the offending field: the patch that set it
// when a patch did, else the resource file the object came from (kustomize
// records it in the config.kubernetes.io/origin annotation when asked with
// buildMetadata: [originAnnotations], which webhooklint adds in memory).
package kustomize

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

const originAnnotation = "config.kubernetes.io/origin"

// Object is one built object.
type Object struct {
	APIVersion, Kind, Name, Namespace string
	// YAML is the object as kustomize emits it, without the origin
	// annotation webhooklint asked for. Replace it with SetYAML.
	YAML []byte
	// Origin is the resource file the object came from (absolute), or ""
	// when kustomize generated it.
	Origin string

	// json is the JSON kustomize printed YAML from, while YAML is that
	// printing: the same fields, decoded without reading YAML back.
	json []byte
	// fields is YAML decoded, on the first Locate: most built objects of a
	// repository have no finding to locate.
	fields     map[string]any
	fieldsOnce sync.Once
}

// SetYAML replaces the object's text (a GitOps controller's substitution
// after the build), before its fields are first read.
func (o *Object) SetYAML(y []byte) { o.YAML, o.json = y, nil }

// Fields is the object as built, decoded (JSON types); nil if it does not
// decode. The caller must not change it.
func (o *Object) Fields() map[string]any { return o.decoded() }

// decoded returns the object's fields, decoding YAML once. YAML is what
// kustomize emitted, so it decodes; if it did not, no field is found and
// findings stay on the resource file.
func (o *Object) decoded() map[string]any {
	o.fieldsOnce.Do(func() {
		var err error
		if o.json != nil {
			err = json.Unmarshal(o.json, &o.fields)
		} else {
			err = sigsyaml.Unmarshal(o.YAML, &o.fields)
		}
		if err != nil {
			o.fields = nil
		}
		o.json = nil
	})
	return o.fields
}

// Build is the result of building one kustomization.
type Build struct {
	Dir     string // the kustomization directory, as given
	File    string // its kustomization file
	Objects []*Object
	// Warnings are what kustomize warned about (deprecated fields), as
	// findings rather than raw text on stderr.
	Warnings []Warning

	// Origins, when set, are the resource files this build shares with the
	// run's other builds.
	Origins *Origins

	tree  *kust
	cache map[string][]*originDoc
	root  *Root // what it was built with, to build it again (Rebuilt)
}

// Root is the text a root kustomization is built with instead of its
// file's: what a GitOps controller makes of it (its settings merged in,
// or generated for a folder that has none). File is where it stands, on
// disk or not; it is the build's File.
type Root struct {
	File string
	Text []byte
	// AnyFile lifts kustomize's default load restriction, as Flux's
	// kustomize-controller does: resources may be outside the folder.
	AnyFile bool
}

// RunAs builds the kustomization in dir, with root (when not nil) as the
// text of its kustomization file. When the kustomization files can be read
// but the build fails, the Build (without objects) is returned with the
// error, so callers still know which files are patches.
func RunAs(dir string, root *Root) (*Build, error) {
	return runAs(dir, root, nil)
}

// Rebuilt builds the kustomization again as it was built, with edited
// standing in for the text of the files it names (absolute paths): what
// the build would be with a fix made, without writing it.
func (b *Build) Rebuilt(edited map[string][]byte) (*Build, error) {
	return runAs(b.Dir, b.root, edited)
}

func runAs(dir string, root *Root, edited map[string][]byte) (*Build, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	tree, problems, err := load(abs, root)
	if err != nil {
		return nil, err
	}
	b := &Build{Dir: dir, File: tree.file, tree: tree, cache: map[string][]*originDoc{}, root: root}
	if len(problems) > 0 {
		// Building would download something or expand an alias bomb.
		return b, problems
	}
	// Asking kustomize for origin annotations makes it record every
	// transformer on every object as well (a YAML decode and encode each
	// time, nearly a tenth of a build): a tree whose objects can only come
	// from its resource files is built without, and each object matched
	// to its document instead (deriveOrigins). When that match is not
	// certain, or the build fails, it is built again as before, with the
	// annotations, so findings and errors are those of that build.
	if root == nil && edited == nil && tree.fromResources() {
		if objs, warnings, err := b.build(abs, nil, false); err == nil && b.deriveOrigins(objs) {
			b.Objects, b.Warnings = objs, warnings
			return b, nil
		}
		b.cache = map[string][]*originDoc{}
	}
	objs, warnings, err := b.build(abs, edited, true)
	b.Objects, b.Warnings = objs, warnings
	var pe printError
	if errors.As(err, &pe) {
		return nil, pe.err
	}
	return b, err
}

// printError is a built object that could not be printed: the run has no
// Build, not one that failed.
type printError struct{ err error }

func (e printError) Error() string { return e.err.Error() }

// build builds the tree b has loaded, with kustomize's origin annotations
// when origins is set, and returns its objects and warnings.
func (b *Build) build(abs string, edited map[string][]byte, origins bool) (objs []*Object, warnings []Warning, err error) {
	tree, root := b.tree, b.root
	opts := buildOptions()
	fs := &originFS{FileSystem: filesys.MakeFsOnDisk(), root: tree.file, edited: edited, noOrigins: !origins}
	if root != nil {
		fs.text = root.Text
		if root.AnyFile {
			opts.LoadRestrictions = types.LoadRestrictionsNone
		}
	}
	_, _, kusts := tree.files()
	warnings = deprecations(kusts)
	var m resmap.ResMap
	build := func() (err error) {
		unlock := lockSchema(tree.setsOpenAPI())
		defer unlock()
		m, err = krusty.MakeKustomizer(opts).Run(fs, abs)
		return err
	}
	if len(warnings) == 0 {
		err = build()
	} else {
		var printed string
		printed, err = quietly(build)
		warnings = append(warnings, unexpected(printed, tree.file)...)
	}
	if len(fs.problems) > 0 {
		return nil, warnings, fs.problems
	}
	if err != nil {
		// The tree is still returned: its patch files are known even
		// though nothing was built.
		return nil, warnings, newBuildError(b.Dir, abs, err)
	}
	if objs, err = objectsOf(m, abs); err != nil {
		return nil, warnings, printError{err}
	}
	return objs, warnings, nil
}

// objectsOf is the built objects as YAML, each with the file it came from
// (kustomize's origin annotation, which is then dropped from the YAML).
func objectsOf(m resmap.ResMap, abs string) ([]*Object, error) {
	var objs []*Object
	// The objects of one resource file have the same annotation: it is
	// read once (Resource.GetOrigin reads it for each).
	files := map[string]string{}
	for _, r := range m.Resources() {
		o := &Object{
			APIVersion: r.GetApiVersion(), Kind: r.GetKind(),
			Name: r.GetName(), Namespace: r.GetNamespace(),
		}
		anns := r.GetAnnotations()
		if text, ok := anns[originAnnotation]; ok {
			file, read := files[text]
			if !read {
				file = originFile(text, abs)
				files[text] = file
			}
			o.Origin = file
			delete(anns, originAnnotation)
			if err := r.SetAnnotations(anns); err != nil {
				return nil, err
			}
		}
		// Resource.AsYAML, keeping the JSON it prints the YAML from.
		j, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if o.YAML, err = printYAML(j); err != nil {
			return nil, err
		}
		o.json = j
		objs = append(objs, o)
	}
	return objs, nil
}

// originFile is the resource file an origin annotation names (absolute),
// or "" for an object kustomize generated or read from a remote base.
func originFile(annotation, abs string) string {
	var origin resource.Origin
	if sigsyaml.Unmarshal([]byte(annotation), &origin) != nil || origin.Repo != "" || origin.Path == "" {
		return ""
	}
	return filepath.Clean(filepath.Join(abs, origin.Path))
}

// schemaMu keeps a build that brings its own OpenAPI schema apart from
// every other. kustomize keeps the schema process-wide: a kustomization's
// openapi field (a schema file, or another built-in version) becomes every
// build's from then on, including builds running beside it, where
// `kustomize build` runs one build per process.
var schemaMu sync.RWMutex

// lockSchema takes schemaMu for a build, alone if it sets its own schema,
// and returns the unlock, which puts kustomize's default schema back after
// such a build.
func lockSchema(own bool) (unlock func()) {
	if own {
		schemaMu.Lock()
		return func() {
			openapi.ResetOpenAPI()
			schemaMu.Unlock()
		}
	}
	schemaMu.RLock()
	return schemaMu.RUnlock
}

// buildOptions are krusty's options for every build.
func buildOptions() *krusty.Options {
	opts := krusty.MakeDefaultOptions()
	// Plugins (exec, Go plugins, helm inflation) run programs; a linter
	// must not. kustomize's default already disables them; keep it so.
	opts.PluginConfig = types.DisabledPluginConfig()
	// Load restrictions stay RootOnly, kustomize's default: a build that
	// works with `kustomize build` works here.
	return opts
}

// originFS is the on-disk file system with two changes: the root
// kustomization also asks for origin annotations, so every built object
// says which file it came from (the user's file is not modified), and a
// file whose aliases expand too far is refused before kustomize
// de-anchors it, whichever field named it.
type originFS struct {
	filesys.FileSystem
	root     string
	problems Problems
	// text, when set, is the root kustomization's text, whether or not
	// its file exists.
	text []byte
	// edited stands in for the text of files on disk (Rebuilt).
	edited map[string][]byte
	// noOrigins leaves the root kustomization as it is: no origin
	// annotations (runAs).
	noOrigins bool

	resolveRoot sync.Once
	realRoot    string // root with its links resolved
	rootErr     error
}

func (f *originFS) ReadFile(path string) ([]byte, error) {
	if f.text != nil && f.isRoot(path) {
		if f.noOrigins {
			return f.text, nil
		}
		return f.withOrigins(f.text)
	}
	data, err := overlay.ReadFile(path) // an editor's unsaved buffer, or the disk; recorded
	if e, ok := f.edited[filepath.Clean(path)]; ok {
		data, err = e, nil
	}
	if err != nil {
		return data, err
	}
	if p := aliasBomb(path, data); p != nil {
		f.problems = append(f.problems, p)
		return nil, p
	}
	if f.noOrigins || !f.isRoot(path) {
		return data, nil
	}
	return f.withOrigins(data)
}

// CleanedAbs answers for a root kustomization that has only a text, as
// the loader asks before reading it.
func (f *originFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if f.text != nil && f.isRoot(path) {
		return filesys.ConfirmedDir(filepath.Dir(f.root)), filepath.Base(f.root), nil
	}
	overlay.Note(overlay.OpStat, path)
	return f.FileSystem.CleanedAbs(path)
}

// Exists answers for a root kustomization that has only a text.
func (f *originFS) Exists(path string) bool {
	if f.text != nil && f.isRoot(path) {
		return true
	}
	overlay.Note(overlay.OpStat, path)
	return f.FileSystem.Exists(path)
}

// The other reads are kustomize's own, recorded for the run's cache
// (overlay.AddRecorder) before they are made.

func (f *originFS) IsDir(path string) bool {
	overlay.Note(overlay.OpStat, path)
	return f.FileSystem.IsDir(path)
}

func (f *originFS) ReadDir(path string) ([]string, error) {
	overlay.Note(overlay.OpList, path)
	return f.FileSystem.ReadDir(path)
}

func (f *originFS) Open(path string) (filesys.File, error) {
	overlay.Note(overlay.OpRead, path)
	return f.FileSystem.Open(path)
}

func (f *originFS) Glob(pattern string) ([]string, error) {
	overlay.NoteGlob(pattern)
	return f.FileSystem.Glob(pattern)
}

func (f *originFS) Walk(path string, walkFn filepath.WalkFunc) error {
	overlay.Note(overlay.OpTree, path)
	return f.FileSystem.Walk(path, walkFn)
}

// withOrigins adds origin annotations to the root kustomization's text.
func (f *originFS) withOrigins(data []byte) ([]byte, error) {
	if out, ok := appendOrigins(data); ok {
		return out, nil
	}
	return f.roundTrip(data)
}

// roundTrip adds buildMetadata by decoding the text and encoding it again.
func (f *originFS) roundTrip(data []byte) ([]byte, error) {
	var k map[string]any
	if err := sigsyaml.Unmarshal(data, &k); err != nil || k == nil {
		return data, nil // let kustomize report it
	}
	var meta []any
	if existing, ok := k["buildMetadata"].([]any); ok {
		meta = existing
	}
	for _, m := range meta {
		if m == types.OriginAnnotations {
			return data, nil
		}
	}
	k["buildMetadata"] = append(meta, types.OriginAnnotations)
	return sigsyaml.Marshal(k)
}

// originsLine is the buildMetadata field withOrigins adds.
const originsLine = "buildMetadata: [" + types.OriginAnnotations + "]\n"

// appendOrigins adds buildMetadata as a line at the end of a kustomization
// whose text shows it is one block mapping at column 0 without the field
// (nearly all): decoding it and encoding it again was 2.5% of the CPU of
// linting a monorepo of small apps. ok is false for any other text
// (a flow mapping or JSON, several documents, directives, anchors, a key
// in another spelling, no final newline, CRLF), which withOrigins decodes.
// At column 0 the new key ends whatever the last line held: a nested
// value, a sequence, a block scalar (whose final newline is already
// there, so its value is unchanged).
func appendOrigins(data []byte) ([]byte, bool) {
	if len(data) == 0 || data[len(data)-1] != '\n' || bytes.IndexByte(data, '\r') >= 0 {
		return nil, false
	}
	first := true
	for line := range bytes.Lines(data) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(bytes.TrimLeft(line, " \t")) == 0 || line[0] == '#':
			continue
		case line[0] == ' ' || line[0] == '\t':
			if first {
				return nil, false // an indented top level
			}
			continue
		case bytes.Equal(line, []byte("---")) && first:
			continue
		case line[0] == '-' && !bytes.HasPrefix(line, []byte("---")) && !first:
			continue // a sequence item of the key above
		}
		// A line at column 0 is a plain key: letters, digits, _ . - and a
		// colon then a blank or the end of the line; any other (---, ...,
		// %, {, ", ', &, *, !, ?, <<) is read the slow way.
		key, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok || !plainKey(key) || (len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t') {
			return nil, false
		}
		if string(key) == "buildMetadata" {
			return nil, false // merged with what is there, the slow way
		}
		first = false
	}
	if first {
		return nil, false
	}
	out := make([]byte, 0, len(data)+len(originsLine))
	return append(append(out, data...), originsLine...), true
}

// plainKey reports whether b is a key withOrigins' fast path reads: it
// starts with a letter and holds only letters, digits, '_', '.' and '-'.
func plainKey(b []byte) bool {
	letter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	if len(b) == 0 || !letter(b[0]) {
		return false
	}
	for _, c := range b {
		if ok := letter(c) || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'; !ok {
			return false
		}
	}
	return true
}

// Find returns the built object with this kind and name.
func (b *Build) Find(kind, name, namespace string) *Object {
	var byName *Object
	for _, o := range b.Objects {
		if o.Kind == kind && o.Name == name {
			if o.Namespace == namespace {
				return o
			}
			byName = o
		}
	}
	return byName
}

// targets reports whether a patch document (or its target selector)
// addresses object o. Names are compared allowing for the prefixes and
// suffixes later kustomizations add (kustomize tracks previous names
// internally but strips them from its output).
func (p *patch) targets(d *patchDoc, o *Object) bool {
	kind, name := d.kind, d.name
	if p.target != nil {
		if p.target.kind != "" {
			kind = p.target.kind
		}
		if p.target.name != "" {
			name = p.target.name
			if re := p.target.pattern; re != nil {
				return (kind == "" || kind == o.Kind) && re.MatchString(o.Name)
			}
		}
	}
	if kind != "" && kind != o.Kind {
		return false
	}
	if name == "" {
		return kind != ""
	}
	return o.Name == name || strings.Contains(o.Name, name)
}

// isRoot reports whether path is the root kustomization's file, after
// resolving symbolic links, since kustomize may read the root through a
// resolved path. The root is resolved once per build: every file kustomize
// reads is compared with it.
func (f *originFS) isRoot(path string) bool {
	if filepath.Clean(path) == filepath.Clean(f.root) {
		return true
	}
	f.resolveRoot.Do(func() { f.realRoot, f.rootErr = filepath.EvalSymlinks(f.root) })
	if f.rootErr != nil {
		return false
	}
	path = filepath.Clean(path)
	if filepath.Base(path) != filepath.Base(f.realRoot) {
		// Resolved, it keeps its last name unless that is a link: one
		// lstat, not one for each folder above it.
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return false
		}
	}
	p, err := filepath.EvalSymlinks(path)
	return err == nil && p == f.realRoot
}
