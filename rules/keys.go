package rules

import (
	"maps"
	"slices"
	"strconv"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// keyBuilder writes memo keys: every value is prefixed with its length and
// lists are closed by a byte no length starts with, so that two different
// inputs never share a key whatever their strings hold.
type keyBuilder []byte

// keyBuffers lends keyBuilders for keys only looked up: a key the memo
// already holds then costs no allocation.
var keyBuffers = sync.Pool{New: func() any { k := make(keyBuilder, 0, 512); return &k }}

func borrowKey() *keyBuilder {
	k := keyBuffers.Get().(*keyBuilder)
	*k = (*k)[:0]
	return k
}

func (k *keyBuilder) str(s string) {
	*k = strconv.AppendInt(*k, int64(len(s)), 10)
	*k = append(*k, ':')
	*k = append(*k, s...)
}

func (k *keyBuilder) number(n int) {
	*k = strconv.AppendInt(*k, int64(n), 10)
	*k = append(*k, ':')
}

func (k *keyBuilder) end() { *k = append(*k, ';') }

func (k *keyBuilder) strs(list []string) {
	for _, s := range list {
		k.str(s)
	}
	k.end()
}

func (k *keyBuilder) ops(list []admissionv1.OperationType) {
	for _, op := range list {
		k.str(string(op))
	}
	k.end()
}

// optional writes "-" for nil, which no length starts with either.
func (k *keyBuilder) optional(s *string) {
	if s == nil {
		*k = append(*k, '-')
		return
	}
	k.str(*s)
}

func (k *keyBuilder) rules(rules []admissionv1.RuleWithOperations) {
	for _, r := range rules {
		k.strs(r.APIGroups)
		k.strs(r.APIVersions)
		k.strs(r.Resources)
		k.ops(r.Operations)
		k.optional((*string)(r.Scope))
	}
	k.end()
}

func (k *keyBuilder) selector(s *metav1.LabelSelector) {
	if s == nil {
		*k = append(*k, '-')
		return
	}
	for _, name := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		k.str(name)
		k.str(s.MatchLabels[name])
	}
	k.end()
	for _, e := range s.MatchExpressions {
		k.str(e.Key)
		k.str(string(e.Operator))
		k.strs(e.Values)
	}
	k.end()
}
