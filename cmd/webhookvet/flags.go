package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/webhooklint/webhooklint/analyzer"
)

// The command line is parsed here first, with the flags webhookvet means to
// offer, and handed to singlechecker only when it is good:
//
//   - go vet starts the tool once per package with the same flags; a bad
//     value is said in one line per process, not with the whole usage
//     (44,000 lines on a module of a thousand packages);
//   - -help names webhookvet and lists what has an effect: not the
//     driver's -test (webhooklint never reads _test.go files, as
//     controller-gen does not), its profiling and debugging flags, nor
//     the legacy vet flags that do nothing;
//   - -flags (what go vet asks to learn which flags to pass on) lists the
//     same set.

// exitUsage is the exit status of a usage error.
const exitUsage = 2

// flagSet returns the flags webhookvet accepts; the values are only
// checked, singlechecker sets them when it parses the same command line.
func flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("webhookvet", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	analyzer.Analyzer.Flags.VisitAll(func(f *flag.Flag) {
		name := f.Name
		fs.Func(name, f.Usage, func(v string) error { return analyzer.ValidateFlag(name, v) })
	})
	fs.Bool("json", false, "emit JSON output (each message starts with its severity)")
	fs.Int("c", -1, "display offending line with this many lines of `context`")
	fs.Bool("fix", false, "apply all suggested fixes (without go vet: webhookvet -fix ./...)")
	fs.Bool("diff", false, "with -fix, don't update the files, but print a unified diff")
	fs.Bool("flags", false, "print the flags in JSON (for go vet)")
	fs.Var(new(versionFlag), "V", "print version and exit (-V=full is what go vet asks)")
	return fs
}

// versionFlag is -V or -V=full, a boolean-style flag as the driver's.
type versionFlag string

func (v *versionFlag) IsBoolFlag() bool { return true }
func (v *versionFlag) String() string {
	if v == nil {
		return ""
	}
	return string(*v)
}
func (v *versionFlag) Set(s string) error { *v = versionFlag(s); return nil }

// preflight parses args. done means the command is answered (help, the
// flag list, a usage error) and the process exits with code; otherwise
// singlechecker runs with the same arguments.
func preflight(args []string, stdout, stderr io.Writer) (code int, done bool) {
	fs := flagSet()
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(fs, stderr)
		return 0, true
	case err != nil && skipDependency(fs):
		// go vet runs the tool on every package of the build, dependencies
		// too (for their type and fact data); the error is said on the
		// packages being vetted, not once for each of their dependencies.
		// Those fail on the same flags, so none reads what is left here.
		return 0, true
	case err != nil:
		hint := " (webhookvet -help lists the flags)"
		if strings.HasPrefix(err.Error(), "invalid value") {
			hint = "" // the value's error says what is wanted
		}
		fmt.Fprintf(stderr, "webhookvet: %v%s\n", err, hint)
		return exitUsage, true
	}
	if fs.Lookup("V").Value.String() != "" {
		return 0, false // singlechecker prints the version go vet caches on
	}
	if fs.Lookup("flags").Value.String() == "true" {
		if err := printFlags(fs, stdout); err != nil {
			fmt.Fprintf(stderr, "webhookvet: %v\n", err)
			return 1, true
		}
		return 0, true
	}
	if fs.NArg() == 0 {
		usage(fs, stderr)
		return exitUsage, true
	}
	return 0, false
}

// skipDependency reports whether the command line ends in a go vet unit
// file that asks for facts only (a dependency of the packages being
// vetted), and if so leaves an empty facts file where go vet expects one.
func skipDependency(fs *flag.FlagSet) bool {
	args := fs.Args()
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return false
	}
	data, err := os.ReadFile(args[len(args)-1])
	if err != nil {
		return false
	}
	var cfg struct {
		VetxOnly   bool
		VetxOutput string
	}
	if json.Unmarshal(data, &cfg) != nil || !cfg.VetxOnly {
		return false
	}
	return cfg.VetxOutput == "" || os.WriteFile(cfg.VetxOutput, nil, 0o666) == nil
}

func usage(fs *flag.FlagSet, w io.Writer) {
	paras := strings.Split(analyzer.Analyzer.Doc, "\n\n")
	fmt.Fprintf(w, "webhookvet: %s\n\n", paras[0])
	fmt.Fprintf(w, "Usage:\n\tgo vet -vettool=$(command -v webhookvet) [-flag] [packages]\n\twebhookvet [-flag] [packages]\n\n")
	fmt.Fprintln(w, strings.Join(paras[1:], "\n\n"))
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// printFlags writes the flag list in the form go vet reads (the driver's
// own -flags output): every flag but -fix, which go vet does not pass on.
func printFlags(fs *flag.FlagSet, w io.Writer) error {
	type jsonFlag struct {
		Name  string
		Bool  bool
		Usage string
	}
	var flags []jsonFlag
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "fix" {
			return
		}
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		flags = append(flags, jsonFlag{f.Name, ok && b.IsBoolFlag(), f.Usage})
	})
	data, err := json.MarshalIndent(flags, "", "\t")
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
