package manifest

import (
	"reflect"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// decodePolicy decodes one of the four admission policy kinds strictly,
// as decodeWebhookConfig decodes webhook configurations: unknown and
// duplicate fields and wrong types are schema errors at their field, and
// every field's position is kept for the rules' findings.
func (f *File) decodePolicy(d *Document, src *source, obj, docNode *yaml.Node, b *budget) {
	if b.exhausted {
		return
	}
	dec := &decoder{src: src, index: newIndexFor(valueNodes(obj, 1<<16)), budget: b, strings: f.opts.Strings}
	pol, target := rules.NewPolicy(d.APIVersion, d.Kind)
	dec.index.set("", diag.Span{}, src.extent(obj))
	dec.decodeStruct(obj, reflect.ValueOf(target).Elem(), "", 0, src.extent(obj))
	d.Positions = dec.index
	if b.exhausted {
		d.abandon(dec.errs)
		return
	}
	switch {
	case pol.Validating != nil:
		pol.Meta = pol.Validating.ObjectMeta
	case pol.ValidatingBinding != nil:
		pol.Meta = pol.ValidatingBinding.ObjectMeta
	case pol.Mutating != nil:
		pol.Meta = pol.Mutating.ObjectMeta
	default:
		pol.Meta = pol.MutatingBinding.ObjectMeta
	}
	d.Policy = pol
	for _, e := range dec.errs {
		d.addDecodeError(e)
	}
	d.Suppressions = d.suppressions(src, dec.comments, docNode)
	d.Positions.freeze()
}
