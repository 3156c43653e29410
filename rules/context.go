package rules

import (
	"fmt"
	"path/filepath"
)

// LooseFolder is a plain folder whose files are linted as one install
// only by assumption: nothing states or gives it.
type LooseFolder struct {
	// Folder is the folder as messages name it; How says how to state
	// that its files are one install.
	Folder, How string
}

// SetFile records the file obj (a *Config, *corev1.Service, CRD,
// *Certificate or *Workload of the inventory) came from, for Apart.
func (in *Inventory) SetFile(obj any, file string) {
	if in.files == nil {
		in.files = map[any]string{}
	}
	in.files[obj] = file
}

// Apart returns the assumption a finding that relates a to b rests on
// when they come from different files of a plain folder that is one
// install only by assumption (Loose), and how to state it, or "": two
// files of one folder may be two projects' examples, and a reference in
// one that misses an object of the other says nothing about either until
// the folder is stated to be one install.
func (in *Inventory) Apart(a, b any) string {
	if in == nil || in.Loose == nil {
		return ""
	}
	fa, fb := in.files[a], in.files[b]
	if fa == "" || fb == "" || fa == fb {
		return ""
	}
	return fmt.Sprintf("assuming one install of folder %q (with %s): %s", in.Loose.Folder, filepath.Base(fb), in.Loose.How)
}

// Fragment returns the assumption a finding on what an overlay or
// installer changes (selectors, namespaces, the CA: Finding.DependsOnOverlay)
// rests on when the unit holds neither the Service w calls nor any other,
// or "".
// Such a configuration is a part of an install whose rest is elsewhere
// (kubebuilder's config/webhook/manifests.yaml, which config/default
// completes with namespaceSelectors, a namespace and a CA; a configuration
// an operator registers beside its Service): that it is applied as written
// is assumed. A unit with other Services misnames its backend instead
// (unresolved-reference), and is judged as written; on a folder only
// assumed one install, only the webhook's own file counts. What no overlay
// changes (intercepting Nodes, CSRs) does not ask, and a cluster's list
// holds no Services: there it is stated. So it is when the unit is given
// or stated to be applied as written (Inventory.Applied), which the note
// says how to do.
func Fragment(p *Pass, w *Webhook) string {
	ref := w.ClientConfig.Service
	if ref == nil || ref.Namespace == "" || ref.Name == "" || p.Config == nil || p.Input.Live != nil ||
		p.Input.Listed[p.Config.Kind] || p.Input.Base || p.Input.Applied ||
		findBackend(p.Input, ref).Service != nil || p.Input.holdsServiceBeside(p.Config) {
		return ""
	}
	return "assumed applied as written (no Service in the unit): name it in units.entries"
}

// holdsServiceBeside reports whether the unit has a Service c may call: any
// Service, or on a folder only assumed one install, one of c's own file.
func (in *Inventory) holdsServiceBeside(c *Config) bool {
	for _, s := range in.Services {
		if s != nil && (in.Loose == nil || in.files[s] == in.files[c]) {
			return true
		}
	}
	return false
}

// workloadBeside reports whether the unit's workload i may serve c as
// evidence about it: always, but on a folder only assumed one install,
// only a workload of c's own file (another file's may be another
// project's example of the same name).
func (in *Inventory) workloadBeside(c *Config, i int) bool {
	return in.Loose == nil || in.files[&in.Workloads[i]] == in.files[c]
}
