package simulate

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/report"
)

// Flags are the command-line flags shared by `webhooklint simulate` and
// `webhooklint cluster simulate`.
type Flags struct {
	Spec   Spec
	Format string
}

// Bind adds the request flags to fs.
func (f *Flags) Bind(fs *pflag.FlagSet) {
	s := &f.Spec
	fs.StringVar(&s.Operation, "operation", "", "admission operation: CREATE, UPDATE, DELETE or CONNECT (required)")
	cliflag.Enum(fs, "operation", "CREATE", "UPDATE", "DELETE", "CONNECT")
	fs.StringVar(&s.Resource, "resource", "", "`RESOURCE`, as RESOURCE[.GROUP][/SUBRESOURCE]: pods, deployments.apps, pods/exec (required)")
	fs.StringVar(&s.Subresource, "subresource", "", "subresource, e.g. exec, status, scale")
	fs.StringVar(&s.APIGroup, "api-group", "", "API group of the resource (default: from --resource; core for built-in resources without a group)")
	fs.StringVar(&s.APIVersion, "api-version", "", "API version of the request (default: the resource's preferred version; required for custom resources)")
	fs.StringVar(&s.Kind, "kind", "", "kind of the object (default: from the built-in table or the object)")
	fs.StringVar(&s.Namespace, "namespace", "", "namespace of the request (default: the object's; required for namespaced resources)")
	fs.StringVar(&s.Name, "name", "", "name of the object (default: the object's)")
	fs.StringVar(&s.ObjectFile, "object", "", "YAML or JSON `FILE` with the object the request carries (request.object)")
	cliflag.File(fs, "object")
	fs.StringVar(&s.OldObjectFile, "old-object", "", "YAML or JSON `FILE` with the existing object (request.oldObject; UPDATE and DELETE)")
	cliflag.File(fs, "old-object")
	fs.StringVar(&s.User, "user", "", "user name sending the request (default: unknown)")
	fs.Func("group", "a group of --user (repeat for more; include system:authenticated as the server does)", func(v string) error {
		s.Groups = append(s.Groups, v)
		return nil
	})
	fs.Func("namespace-labels", "labels of the request's namespace, key=value[,key=value…] (repeatable; replaces what files or the cluster say)", func(v string) error {
		s.NamespaceLabels = append(s.NamespaceLabels, v)
		return nil
	})
	fs.BoolVar(&s.DryRun, "dry-run", false, "simulate a dry-run request (?dryRun=All)")
	fs.Func("changes", "a mutating webhook that changes the object, as NAME or CONFIGURATION/NAME (repeatable; predicts reinvocation exactly)", func(v string) error {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				s.Changes = append(s.Changes, n)
			}
		}
		if s.Changes == nil {
			s.Changes = []string{}
		}
		return nil
	})
	fs.StringVar(&f.Format, "format", "text", "output `FORMAT`: "+strings.Join(report.Names(), ", ")+
		" (text and json print the chain; the others report what can reject the request)")
	cliflag.Enum(fs, "format", report.Names()...)
}

// Check validates the flags that do not describe the request.
func (f *Flags) Check() error {
	if _, err := report.New(f.Format, report.Options{}); err != nil {
		return usagef("--format: %v", err)
	}
	return nil
}
