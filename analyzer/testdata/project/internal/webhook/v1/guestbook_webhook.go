// Package v1 holds the Guestbook webhooks, as kubebuilder scaffolds them.
package v1

// +kubebuilder:webhook:path=/mutate-webapp-example-com-v1-guestbook,mutating=true,failurePolicy=fail,sideEffects=None,groups=webapp.example.com,resources=guestbooks,verbs=create;update,versions=v1,name=mguestbook-v1.kb.io,admissionReviewVersions=v1

// GuestbookCustomDefaulter sets defaults on Guestbooks.
type GuestbookCustomDefaulter struct{}

// A validating webhook on pods that fails open and forgot sideEffects.
// +kubebuilder:webhook:path=/validate--v1-pod,mutating=false,failurePolicy=ignore,groups=core,resources=pods,verbs=create;update,versions=v1,name=vpod-v1.kb.io,admissionReviewVersions=v1

// GuestbookCustomValidator validates Guestbooks.
// +kubebuilder:webhook:path=/validate-webapp-example-com-v1-guestbook,mutating=false,failurePolicy=fail,sideEffects=None,groups=webapp.example.com,resources=guestbooks,verbs=create;update,versions=v1,name=vguestbook-v1.kb.io,admissionReviewVersions=v1
type GuestbookCustomValidator struct{}

// A kubebuilder v1 style marker that controller-gen no longer accepts.
// +kubebuilder:webhook:port=9443,cert-dir=/tmp/cert
