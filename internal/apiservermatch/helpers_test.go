package apiservermatch

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func toObj(p *corev1.Pod) runtime.Object {
	if p == nil {
		return nil
	}
	return p
}

func toObjNs(p *corev1.Namespace) runtime.Object {
	if p == nil {
		return nil
	}
	return p
}
