package source

import (
	"io"
	"runtime"
	"slices"

	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/source/kustomize"
)

// Unit is a deployment unit as installed, for commands that read its
// objects rather than lint them (simulate): the objects of a built
// kustomization, a rendered chart or a plain folder, without kustomize
// patches or unrendered templates.
type Unit struct {
	// Label names the unit: "kustomize build config/default", "helm
	// template charts/x", "kubectl apply -f deploy", or the file.
	Label string
	Files []*manifest.File
	// Problem is set when the unit could not be loaded (a failing build
	// or render); Files is then empty.
	Problem error
}

// Units loads the units that args name, found as Lint finds them: the
// entries named (a kustomization or chart folder, a folder holding them),
// the units of each file named, plain folders. Units are in a stable order.
func Units(args []string, stdin io.Reader, stdinName string, skip func(string) bool, jobs int, so Options) ([]Unit, error) {
	if len(args) == 0 && len(so.Charts) == 0 {
		args = []string{"."}
	}
	req, err := newRequest(append(slices.Clip(args), so.Charts...), stdinName, skip)
	if err != nil {
		return nil, err
	}
	discoverJobs := jobs
	if discoverJobs <= 0 {
		discoverJobs = runtime.GOMAXPROCS(0)
	}
	units, _ := discover(req, so, skip, discoverJobs)
	asked := map[string]bool{}
	for _, s := range req.sources {
		if !s.Stdin {
			asked[absPath(s.Name)] = true
		}
	}
	in := &loadInput{stdin: stdin, jobs: jobs, patches: kustomize.NewPatchIndex(), asked: asked}
	out := make([]Unit, 0, len(units))
	for _, u := range units {
		out = append(out, u.kind.load(u, in))
	}
	return out, nil
}

// loadInput is what a unit kind's load reads besides the unit.
type loadInput struct {
	stdin   io.Reader
	jobs    int
	patches *kustomize.PatchIndex
	// asked are the files named (absolute): a plain folder holds what is
	// asked about, as a file named alone is what kubectl apply -f FILE
	// installs, not its folder.
	asked map[string]bool
}

// loadLooseFiles loads loose files as the cluster receives them: a patch
// is merged into what its kustomization builds, and on its own is no
// object the cluster receives.
func loadLooseFiles(out Unit, sources []manifest.Source, in *loadInput) Unit {
	for _, s := range sources {
		l := loadLoose(s, in.stdin, in.jobs, in.patches, false, nil)
		l.file.Docs = slices.DeleteFunc(l.file.Docs, func(d *manifest.Document) bool { return l.partial[d] != "" })
		out.Files = append(out.Files, l.file)
	}
	return out
}

// WithAdmissionObjects keeps the units that hold webhook configurations
// or admission policies, and those that could not be loaded.
func WithAdmissionObjects(units []Unit) []Unit {
	return slices.DeleteFunc(slices.Clone(units), func(u Unit) bool {
		inv := manifest.Inventory(u.Files)
		return u.Problem == nil && len(inv.Configs) == 0 && len(inv.Policies) == 0
	})
}
