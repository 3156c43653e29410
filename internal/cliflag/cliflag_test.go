package cliflag

import "testing"

// An unknown flag close to a known one names it; one far from all does not
// guess.
func TestParseSuggestsAFlag(t *testing.T) {
	for args, want := range map[string]string{
		"--colr":      "unknown flag: --colr (did you mean --color?)",
		"--fail-of":   "unknown flag: --fail-of (did you mean --fail-on?)",
		"--verbosity": "unknown flag: --verbosity",
	} {
		fs := New("test")
		fs.String("color", "auto", "")
		fs.String("fail-on", "warning", "")
		err := Parse(fs, []string{args, "x"})
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
