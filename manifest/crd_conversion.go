package manifest

import (
	"reflect"

	yaml "go.yaml.in/yaml/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/fieldpath"
	"github.com/webhooklint/webhooklint/rules"
)

// A CustomResourceDefinition with a spec.conversion is linted too (its
// conversion webhook is a webhook client): the rules' CheckCRD read the
// lenient summary the inventory keeps, and findings are positioned with an
// index of spec.conversion and metadata alone, the rest of a CRD (its
// schemas, often most of a repository's YAML) being context.

// mapEntry returns the key and value nodes of key in mapping m.
func mapEntry(m *yaml.Node, key string) (k, v *yaml.Node) {
	m = resolve(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if kn := resolve(m.Content[i]); kn != nil && kn.Kind == yaml.ScalarNode && kn.Value == key {
			return kn, m.Content[i+1]
		}
	}
	return nil, nil
}

// prepareConversion sets d.CRD and d.Positions for a CRD whose
// spec.conversion is written out. spec.conversion is decoded strictly, so
// unknown fields there (v1beta1's conversion.webhookClientConfig in a v1
// CRD) are schema errors as the server's strict decoding reports them. The
// server's paths of the internal type (spec.conversion.webhookClientConfig,
// spec.conversion.conversionReviewVersions) are indexed at the v1 fields
// they come from.
func (d *Document) prepareConversion(src *source, obj, docNode *yaml.Node, crd *apiextensionsv1.CustomResourceDefinition, b *budget) {
	specKey, spec := mapEntry(obj, "spec")
	convKey, conv := mapEntry(spec, "conversion")
	if crd == nil || b.exhausted {
		return
	}
	old := rules.IsV1beta1CRD(crd) // linted whatever it writes: its apiVersion is a finding
	if convKey == nil {
		// Strategy None by default: linted only when there are versions
		// it leaves unconverted, located at spec.versions.
		verKey, vers := mapEntry(spec, "versions")
		if (verKey != nil && len(crd.Spec.Versions) > 1) || old {
			ix := newIndex()
			ix.set("", diag.Span{}, src.extent(obj))
			if old {
				ix.set("apiVersion", diag.Span{}, src.rangeOf(mapValue(obj, "apiVersion")))
			}
			ix.set("spec", src.extent(specKey), src.extent(resolve(spec)))
			if verKey != nil {
				ix.set("spec.versions", src.extent(verKey), src.extent(resolve(vers)))
			}
			ix.freeze()
			d.Positions = ix
			d.Suppressions = d.suppressions(src, nil, docNode) // a whole-document directive
			d.CRD = crd
		}
		return
	}
	dec := &decoder{src: src, index: newIndexFor(valueNodes(conv, 1<<12) + 16), budget: b}
	dec.index.set("", diag.Span{}, src.extent(obj))
	if old {
		dec.index.set("apiVersion", diag.Span{}, src.rangeOf(mapValue(obj, "apiVersion")))
	}
	if mdKey, md := mapEntry(obj, "metadata"); mdKey != nil {
		dec.index.set("metadata", src.extent(mdKey), src.extent(resolve(md)))
		if annKey, ann := mapEntry(md, "annotations"); annKey != nil {
			dec.index.set("metadata.annotations", src.extent(annKey), src.extent(resolve(ann)))
			if ann = resolve(ann); ann != nil && ann.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(ann.Content); i += 2 {
					if k := resolve(ann.Content[i]); k != nil && k.Kind == yaml.ScalarNode {
						dec.index.set(fieldpath.Key("metadata.annotations", k.Value), src.extent(k), src.extent(resolve(ann.Content[i+1])))
					}
				}
			}
		}
	}
	dec.index.set("spec", src.extent(specKey), src.extent(resolve(spec)))
	specID := dec.index.at("spec")
	if old {
		d.prepareV1beta1Conversion(src, dec, conv, convKey, specID)
	} else {
		d.prepareV1Conversion(src, dec, conv, convKey, specID)
	}
	d.Positions = dec.index
	for _, e := range dec.errs {
		d.addDecodeError(e)
	}
	d.Suppressions = d.suppressions(src, dec.comments, docNode)
	d.Positions.freeze()
	if !b.exhausted {
		d.CRD = crd
	}
}

// prepareV1Conversion decodes a v1 spec.conversion strictly, then indexes
// the internal type's paths at the v1 fields they come from.
func (d *Document) prepareV1Conversion(src *source, dec *decoder, conv, convKey *yaml.Node, specID int32) {
	var c apiextensionsv1.CustomResourceConversion
	dec.decode(conv, reflect.ValueOf(&c).Elem(), "spec.conversion", specID, "spec", src.extent(convKey))
	errs := dec.errs
	// The internal type's paths, decoded again only for their positions.
	_, webhook := mapEntry(conv, "webhook")
	convID := dec.index.at("spec.conversion")
	if k, v := mapEntry(webhook, "clientConfig"); k != nil {
		var cc apiextensionsv1.WebhookClientConfig
		dec.decode(v, reflect.ValueOf(&cc).Elem(), "spec.conversion.webhookClientConfig", convID, "spec.conversion", src.extent(k))
	}
	if k, v := mapEntry(webhook, "conversionReviewVersions"); k != nil {
		var vs []string
		dec.decode(v, reflect.ValueOf(&vs).Elem(), "spec.conversion.conversionReviewVersions", convID, "spec.conversion", src.extent(k))
	} else if wk, _ := mapEntry(conv, "webhook"); wk != nil {
		// Missing from the webhook block: that is where it goes.
		dec.index.set("spec.conversion.conversionReviewVersions", src.extent(wk), src.extent(wk))
	}
	dec.errs = errs
}

// prepareV1beta1Conversion decodes a v1beta1 spec.conversion strictly: its
// fields are where the internal type has them, so the server's paths are
// indexed as decoded; the v1 paths the practice rules report
// (spec.conversion.webhook.clientConfig) are indexed at
// webhookClientConfig.
func (d *Document) prepareV1beta1Conversion(src *source, dec *decoder, conv, convKey *yaml.Node, specID int32) {
	var c apiextensionsv1beta1.CustomResourceConversion
	dec.decode(conv, reflect.ValueOf(&c).Elem(), "spec.conversion", specID, "spec", src.extent(convKey))
	errs := dec.errs
	convID := dec.index.at("spec.conversion")
	if k, v := mapEntry(conv, "webhookClientConfig"); k != nil {
		dec.index.set("spec.conversion.webhook", src.extent(k), src.extent(resolve(v)))
		var cc apiextensionsv1beta1.WebhookClientConfig
		dec.decode(v, reflect.ValueOf(&cc).Elem(), "spec.conversion.webhook.clientConfig", convID, "spec.conversion", src.extent(k))
	}
	dec.errs = errs
}
