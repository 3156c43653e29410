//go:build devtools && unix

package main

import (
	"strings"
	"testing"
)

func TestLargestMarked(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        int64
	}{
		{"none ran", "errors=3\n", 0},
		{"the largest live heap, not the heap at a collection's start or end", strings.Join([]string{
			"gc 1 @0.045s 1%: 0.048+3.8+0.039 ms clock, 0.097+0/1.1/2.9+0.079 ms cpu, 15->16->7 MB, 16 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			"webhooklint: a line of the program's own",
			"gc 33 @5.390s 11%: 0.14+213+0.024 ms clock, 0.29+19/108/0+0.049 ms cpu, 273->324->164 MB, 321 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			"gc 34 @5.938s 10%: 0.060+22+0.005 ms clock, 0.12+0.080/9.6/17+0.010 ms cpu, 280->282->41 MB, 329 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			"gc 35 @6.001s 10%: 0.060+22+0.005 ms clock, 0.12+0.080/9.6/17+0.010 ms cpu, 45->45->40 MB, 329 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)",
		}, "\n"), 164},
		{"a line past the scanner's buffer", "gc 1 @0.1s 1%: x ms cpu, 9->9->8 MB, 16 MB goal\n" + strings.Repeat("x", 2<<20) +
			"\ngc 2 @0.2s 1%: x ms cpu, 99->99->98 MB, 16 MB goal\n", 8},
	} {
		if got := largestMarked(strings.NewReader(tc.trace)); got != tc.want {
			t.Errorf("%s: largestMarked = %d MiB, want %d", tc.name, got, tc.want)
		}
	}
}

func TestWithGCTrace(t *testing.T) {
	if got := withGCTrace(""); got != "gctrace=1" {
		t.Errorf(`withGCTrace("") = %q`, got)
	}
	if got := withGCTrace("madvdontneed=1"); got != "madvdontneed=1,gctrace=1" {
		t.Errorf(`withGCTrace("madvdontneed=1") = %q`, got)
	}
}
