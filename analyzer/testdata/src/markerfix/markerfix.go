// Package markerfix has markers with a single, obvious fix.
package markerfix

// want +1 `SideEffects is required`
// +kubebuilder:webhook:path=/validate-v1-pod,mutating=false,failurePolicy=fail,groups="",resources=pods,verbs=create,versions=v1,name=vpod.example.com,admissionReviewVersions=v1

// want +1 `missing required argument "admissionReviewVersions"`
// +kubebuilder:webhook:path=/mutate-v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=mpod.example.com

// want +1 `controller-gen reads this comment as part of the value of name`
// +kubebuilder:webhook:path=/validate-v1-cm,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=configmaps,verbs=create,versions=v1,admissionReviewVersions=v1,name=vcm.example.com // the configmap hook
