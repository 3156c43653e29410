package v1

// Markers with problems the API server or production would reveal only
// after controller-gen has run.

// A typo controller-gen passes through, a two-segment name, and a
// timeout that holds requests for 25 seconds before failing closed.
// +kubebuilder:webhook:path=/validate-batch-v1-cronjob,mutating=false,failurePolicy=Fails,sideEffects=None,groups=batch,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob.kb,admissionReviewVersions=v1,timeoutSeconds=25

// v1beta1 before v1, and a wildcard next to a named group.
// +kubebuilder:webhook:path=/mutate-batch-v1-job,mutating=true,failurePolicy=fail,sideEffects=None,groups=*;batch,resources=jobs,verbs=create,versions=v1,name=mjob.example.com,admissionReviewVersions=v1beta1;v1

// An enforcement webhook its users can opt out of with a label.
// +kubebuilder:webhook:path=/validate-v1-configmap,mutating=false,failurePolicy=fail,sideEffects=None,groups=core,resources=configmaps,verbs=create;update,versions=v1,name=vconfigmap.example.com,admissionReviewVersions=v1,patch=`{"objectSelector":{"matchExpressions":[{"key":"skip-validation","operator":"DoesNotExist"}]}}`
