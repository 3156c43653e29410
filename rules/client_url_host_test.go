package rules

import "testing"

func TestLoopbackAndInClusterNames(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "api.localhost": true, "127.0.0.1": true, "127.255.0.9": true, "::1": true, "0.0.0.0": true,
		"10.0.0.1": false, "example.com": false, "localhost.example.com": false,
	} {
		if loopback(host) != want {
			t.Errorf("loopback(%q) = %v", host, !want)
		}
	}
	for host, want := range map[string]bool{
		"a.b.svc": true, "a.b.svc.cluster.local": true, "kubernetes.default.svc.cluster.local": true,
		"svc.example.com": false, "example.com": false,
	} {
		if inClusterName(host) != want {
			t.Errorf("inClusterName(%q) = %v", host, !want)
		}
	}
}
