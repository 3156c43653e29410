// Package rulefix has markers whose rule findings carry a safe fix, made
// by the same fix code as the command line's --fix.
package rulefix

// want +1 `lists v1beta1 before v1`
// +kubebuilder:webhook:path=/validate-v1-pod,mutating=false,failurePolicy=ignore,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=vpod.example.com,admissionReviewVersions=v1beta1;v1
