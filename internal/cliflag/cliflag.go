// Package cliflag is the flag handling every webhooklint command shares:
// GNU-style flags (github.com/spf13/pflag, as kubectl and helm use) that may
// come before, between or after the paths, `--` ending them, the help text
// and the shell completion scripts built from the same flag sets.
package cliflag

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/internal/suggest"
)

// ErrHelp is returned by Parse when --help or -h was given.
var ErrHelp = errors.New("help requested")

// Annotation keys, read by the help text and the completion scripts.
const (
	annValues = "webhooklint/values" // the words a flag takes
	annFiles  = "webhooklint/files"  // a flag naming a file
)

// New returns an empty flag set for the command name ("webhooklint
// simulate"). Parse returns its errors instead of printing them, and
// --help/-h are defined.
func New(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = true
	fs.BoolP("help", "h", false, "print this help and exit")
	return fs
}

// Parse parses args. Flags may come anywhere among the arguments; `--`
// ends them and `-` is an argument (stdin). A long flag written with one
// dash (-format json), which the Go flag package that webhooklint used
// before took, is read as the same flag.
func Parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(normalize(fs, args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ErrHelp
		}
		var unknown *pflag.NotExistError
		if errors.As(err, &unknown) && unknown.GetSpecifiedName() != "" {
			var names []string
			for _, f := range Flags(fs) {
				names = append(names, f.Name)
			}
			if c := suggest.Closest(unknown.GetSpecifiedName(), names); c != "" {
				return fmt.Errorf("%w (did you mean --%s?)", err, c)
			}
		}
		return err
	}
	if h, _ := fs.GetBool("help"); h {
		return ErrHelp
	}
	return nil
}

func normalize(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f != nil && !strings.HasPrefix(a, "--") && len(name) > 1 {
			a = "-" + a
		}
		out = append(out, a)
		// The next argument is this flag's value, whatever it looks like.
		if f != nil && strings.HasPrefix(a, "--") && !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

// Enum records the words a flag takes: the help text shows them and the
// completion scripts offer them.
func Enum(fs *pflag.FlagSet, name string, values ...string) {
	must(fs.SetAnnotation(name, annValues, values))
}

// File records that a flag names a file, for completion.
func File(fs *pflag.FlagSet, name string) {
	must(fs.SetAnnotation(name, annFiles, []string{"true"}))
}

func must(err error) {
	if err != nil {
		panic(err) // a flag name mistyped in the code
	}
}

// Values returns the words Enum recorded for a flag.
func Values(f *pflag.Flag) []string { return f.Annotations[annValues] }

func takesFile(f *pflag.Flag) bool { return len(f.Annotations[annFiles]) > 0 }

// TakesValue reports whether the flag reads a value (--format json) rather
// than standing alone (--watch).
func TakesValue(f *pflag.Flag) bool { return f.NoOptDefVal == "" }

// Flags lists a flag set's flags in the order help shows them.
func Flags(fs *pflag.FlagSet) []*pflag.Flag {
	var out []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			out = append(out, f)
		}
	})
	slices.SortFunc(out, func(a, b *pflag.Flag) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Spelling is the flag as the README writes it: --name VALUE, where VALUE
// is the back-quoted word of the usage, the words the flag takes
// (a|b|c), or a word for its type.
func Spelling(f *pflag.Flag) string {
	s := "--" + f.Name
	if f.Shorthand != "" {
		s = "-" + f.Shorthand + ", " + s
	}
	if !TakesValue(f) {
		return s
	}
	return s + " " + metavar(f)
}

func metavar(f *pflag.Flag) string {
	if name, _ := pflag.UnquoteUsage(f); name != "" && strings.Contains(f.Usage, "`") {
		return name
	}
	if v := Values(f); len(v) > 0 && len(strings.Join(v, "|")) <= 40 {
		return strings.Join(v, "|")
	}
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64":
		return "N"
	case "duration":
		return "DURATION"
	}
	if takesFile(f) {
		return "FILE"
	}
	return "VALUE"
}

// PrintFlags writes the flag list of a help text: each flag as the README
// spells it, then what it does, wrapped at 80 columns.
func PrintFlags(w io.Writer, fs *pflag.FlagSet) {
	const col, width = 28, 80
	for _, f := range Flags(fs) {
		left := "  " + Spelling(f)
		_, usage := pflag.UnquoteUsage(f)
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "[]" && !strings.Contains(usage, "(default") {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		words := strings.Fields(usage)
		var b strings.Builder
		b.WriteString(left)
		lineLen := len(left)
		if lineLen+2 > col {
			b.WriteString("\n")
			lineLen = 0
		}
		b.WriteString(strings.Repeat(" ", col-lineLen))
		lineLen = col
		first := true
		for _, word := range words {
			if !first && lineLen+1+len(word) > width {
				b.WriteString("\n" + strings.Repeat(" ", col))
				lineLen = col
				first = true
			}
			if !first {
				b.WriteByte(' ')
				lineLen++
			}
			b.WriteString(word)
			lineLen += len(word)
			first = false
		}
		fmt.Fprintln(w, b.String())
	}
}

// UsageError formats a parse error for stderr with a pointer to the help.
func UsageError(command string, err error) string {
	return fmt.Sprintf("%s: %v\nRun '%s --help' for usage.", command, err, command)
}

// Color resolves a --color value (auto, always, never) for output to w:
// auto is a terminal that is not dumb, unless NO_COLOR is set.
func Color(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		if _, ok := os.LookupEnv("NO_COLOR"); ok {
			return false, nil
		}
		f, ok := w.(*os.File)
		if !ok {
			return false, nil
		}
		fi, err := f.Stat()
		return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb", nil
	}
	return false, fmt.Errorf("--color: want auto, always or never, not %q", mode)
}
