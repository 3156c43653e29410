package suggest

import "testing"

func TestClosest(t *testing.T) {
	fields := []string{"timeoutSeconds", "failurePolicy", "sideEffects", "rules"}
	cases := map[string]string{
		"timeoutSecond": "timeoutSeconds",
		"FailurePolicy": "failurePolicy",
		"sideeffect":    "sideEffects",
		"rule":          "rules",
		"namespace":     "",
	}
	for in, want := range cases {
		if got := Closest(in, fields); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
	if Distance("kitten", "sitting") != 3 || Distance("", "abc") != 3 || Distance("é", "e") != 1 {
		t.Error("Distance is not the Levenshtein distance")
	}
}
