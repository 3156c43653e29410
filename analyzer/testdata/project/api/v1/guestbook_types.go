// Package v1 contains the Guestbook API, the way kubebuilder lays it out.
package v1

// GuestbookSpec is the desired state of a Guestbook.
type GuestbookSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// Guestbook is a web application with a guest book.
type Guestbook struct {
	Spec GuestbookSpec `json:"spec,omitempty"`
}
