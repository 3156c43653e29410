package lazy

import "testing"

func TestRegexp(t *testing.T) {
	re := Regexp(`^a(b+)$`)
	if m := re().FindStringSubmatch("abb"); len(m) != 2 || m[1] != "bb" {
		t.Errorf("match %q", m)
	}
	first, again := re(), re()
	if first != again {
		t.Error("compiled again on a later call")
	}
}
