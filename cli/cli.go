// Package cli is webhooklint's command line: flags, exit codes and wiring,
// testable in-process (cmd/webhooklint only calls Main).
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/internal/suggest"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/report"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// Exit codes, documented in the README.
const (
	ExitOK       = 0 // nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitUsage    = 2 // bad flags, arguments or configuration
	ExitInternal = 3 // a bug in webhooklint, or a run that cannot go on
)

// Version is set at build time (-ldflags "-X …cli.Version=v1.2.3"); when
// unset, the module version from the build info is used.
var Version = ""

// ToolVersion is webhooklint's version, for the commands other packages
// add.
func ToolVersion() string { return version() }

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Subcommands other packages add (the live-cluster mode); the first
// argument selects one.
var subcommands = map[string]subcommand{}

type subcommand struct {
	run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// completion describes the command and those under it for the shell
	// completion scripts.
	completion []cliflag.Command
}

// RegisterSubcommand adds `webhooklint NAME …`; cmds describe it (and the
// commands under it) for `webhooklint completion`.
func RegisterSubcommand(name string, run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int, cmds ...cliflag.Command) {
	subcommands[name] = subcommand{run: run, completion: cmds}
}

// usageError is reported with exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Main runs webhooklint with args (without the program name) and returns
// the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "webhooklint: internal error: %v\n%s", p, debug.Stack())
			code = ExitInternal
		}
	}()
	tuneGC()
	if len(args) > 0 {
		if sc, ok := subcommands[args[0]]; ok {
			return sc.run(args[1:], stdin, stdout, stderr)
		}
		switch args[0] {
		case "help":
			return help(args[1:], stdin, stdout, stderr)
		case "completion":
			return completion(args[1:], stdout, stderr)
		}
		if c := mistypedCommand(args[0]); c != "" {
			fmt.Fprintf(stderr, "webhooklint: %s: no such command or path (did you mean %q?)\nRun 'webhooklint --help' for usage.\n", args[0], c)
			return ExitUsage
		}
	}
	o, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, cliflag.ErrHelp) {
			usage(o.flags, stdout)
			return ExitOK
		}
		fmt.Fprintln(stderr, cliflag.UsageError("webhooklint", err))
		return ExitUsage
	}
	offline()
	limitMemory(stderr)
	return o.run(stdin, stdout, stderr)
}

// help is `webhooklint help [COMMAND...]`: the command's --help.
func help(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return Main([]string{"--help"}, stdin, stdout, stderr)
	}
	switch args[0] {
	case "help", "--help", "-h":
		fmt.Fprintf(stdout, "Usage: webhooklint help [COMMAND...]\n\nPrints the help of webhooklint or of a command: %s.\n\nFlags:\n", strings.Join(commandNames(), ", "))
		cliflag.PrintFlags(stdout, cliflag.New("webhooklint help"))
		return ExitOK
	}
	if _, ok := subcommands[args[0]]; !ok && args[0] != "completion" {
		fmt.Fprintf(stderr, "webhooklint help: unknown command %q (commands: %s)\n", args[0], strings.Join(commandNames(), ", "))
		return ExitUsage
	}
	return Main(append(slices.Clip(args), "--help"), stdin, stdout, stderr)
}

// mistypedCommand returns the command a first argument that is neither a
// command nor an existing path was probably meant to be ("clustr"), or "".
// Anything that exists is a path, whatever its name.
func mistypedCommand(arg string) string {
	if strings.HasPrefix(arg, "-") || strings.ContainsAny(arg, "/*?[.") {
		return ""
	}
	if _, err := os.Lstat(arg); err == nil {
		return ""
	}
	return suggest.Closest(arg, commandNames())
}

func commandNames() []string {
	names := []string{"completion", "help"}
	for n := range subcommands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

const completionUsage = `Usage: webhooklint completion bash|zsh|fish

Prints the shell completion script for webhooklint's commands, flags and
their values:

  bash   source <(webhooklint completion bash)            # in ~/.bashrc
  zsh    source <(webhooklint completion zsh)             # in ~/.zshrc, after compinit
         or save it as _webhooklint in a folder of $fpath
  fish   webhooklint completion fish > ~/.config/fish/completions/webhooklint.fish

Flags:
`

// completion is `webhooklint completion SHELL`.
func completion(args []string, stdout, stderr io.Writer) int {
	fs := cliflag.New("webhooklint completion")
	if err := cliflag.Parse(fs, args); err != nil {
		if errors.Is(err, cliflag.ErrHelp) {
			fmt.Fprint(stdout, completionUsage)
			cliflag.PrintFlags(stdout, fs)
			return ExitOK
		}
		fmt.Fprintln(stderr, cliflag.UsageError("webhooklint completion", err))
		return ExitUsage
	}
	if fs.NArg() != 1 {
		// The usage without its flag list, which only --help prints.
		fmt.Fprintf(stderr, "webhooklint completion: want one shell, bash, zsh or fish\n%s", strings.TrimSuffix(completionUsage, "\nFlags:\n"))
		return ExitUsage
	}
	if err := cliflag.Script(stdout, fs.Arg(0), "webhooklint", Commands()); err != nil {
		fmt.Fprintf(stderr, "webhooklint completion: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}

// Commands describes webhooklint's commands for the completion scripts.
func Commands() []cliflag.Command {
	root := &options{}
	cmds := []cliflag.Command{
		{Path: "", Flags: newFlagSet(root), Paths: true},
		{Path: "help", Flags: cliflag.New("webhooklint help"), Words: commandNames()},
		{Path: "completion", Flags: cliflag.New("webhooklint completion"), Words: cliflag.Shells},
	}
	for _, n := range commandNames() {
		cmds = append(cmds, subcommands[n].completion...)
	}
	return cmds
}

// options are the parsed command line.
type options struct {
	format        string
	failOn        string
	kubeVersion   rules.KubeVersion
	provider      rules.Provider
	stdinFilename string
	listRules     bool
	explain       string
	showVersion   bool
	jobs          int
	color         string
	paths         []string
	config        configFlags    // config_flags.go
	outputs       []string       // output_flags.go: FORMAT=PATH
	sources       sourceFlags    // sources.go
	fixes         fixFlags       // fix_flags.go
	cache         cacheFlags     // cache_flags.go
	flags         *pflag.FlagSet // to tell flags given from defaults
}

// runContext is the run being prepared: lint options that the
// configuration file and flags adjust, and what to do after the report.
type runContext struct {
	opts    *lint.Options
	sources source.Options
	paths   []string
	failOn  diag.Severity
	never   bool
	report  report.Options
	stdout  io.Writer
	stderr  io.Writer
	// afterRun receives the finished run after the main report is written
	// (extra reports of --output).
	afterRun []func(*report.Run) error
	// configFile and configText are the configuration file read, if any.
	configFile string
	configText []byte
}

func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := newFlagSet(o)
	if err := cliflag.Parse(fs, args); err != nil {
		if errors.Is(err, cliflag.ErrHelp) {
			return o, err
		}
		return o, usageError{err.Error()}
	}
	o.paths = fs.Args()
	return o, o.fixes.check()
}

// newFlagSet defines webhooklint's flags, to be parsed into o.
func newFlagSet(o *options) *pflag.FlagSet {
	o.kubeVersion = rules.DefaultKubeVersion
	fs := cliflag.New("webhooklint")
	fs.StringVar(&o.format, "format", "text", "output `FORMAT`: "+strings.Join(report.Names(), ", "))
	cliflag.Enum(fs, "format", report.Names()...)
	fs.StringVar(&o.failOn, "fail-on", "warning", "exit 1 when a finding is at least this severe: error, warning, info or never")
	cliflag.Enum(fs, "fail-on", "error", "warning", "info", "never")
	fs.Func("kube-version", "Kubernetes version the manifests target, `MAJOR.MINOR` (default "+rules.DefaultKubeVersion.String()+")", func(s string) error {
		v, err := rules.ParseKubeVersion(s)
		if err != nil {
			return err
		}
		o.kubeVersion = v
		return nil
	})
	fs.Func("provider", "platform the manifests are installed on: generic, gke, eks, aks or openshift (default generic)", func(s string) error {
		v, err := rules.ParseProvider(s)
		if err != nil {
			return err
		}
		o.provider = v
		return nil
	})
	cliflag.Enum(fs, "provider", "generic", "gke", "eks", "aks", "openshift")
	fs.StringVar(&o.stdinFilename, "stdin-filename", "", "file `NAME` to report for input read from stdin (-)")
	fs.BoolVar(&o.listRules, "list-rules", false, "list every rule and exit")
	fs.StringVar(&o.explain, "explain", "", "print the documentation of `RULE` and exit")
	var names []string
	for _, r := range rules.All() {
		names = append(names, r.Name)
	}
	cliflag.Enum(fs, "explain", names...)
	fs.BoolVar(&o.showVersion, "version", false, "print the version and exit")
	fs.IntVar(&o.jobs, "jobs", 0, "files and documents linted in parallel (default: one per CPU)")
	fs.StringVar(&o.color, "color", "auto", "color in text output: auto, always or never (NO_COLOR disables auto)")
	cliflag.Enum(fs, "color", "auto", "always", "never")
	o.config.register(fs)
	registerOutputFlag(fs, &o.outputs)
	o.sources.register(fs)
	o.fixes.register(fs)
	o.cache.register(fs)
	keepFuncValues(fs)
	o.flags = fs
	return fs
}

func usage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `Usage: webhooklint [flags] [PATH...]
       webhooklint cluster [flags]              lint a live cluster
       webhooklint simulate [flags] [PATH...]   which webhooks a request meets
       webhooklint help [COMMAND]               a command's flags
       webhooklint completion bash|zsh|fish     shell completion

Lints Kubernetes ValidatingWebhookConfiguration and MutatingWebhookConfiguration
manifests: files, folders (recursively: *.yaml, *.yml, *.json), globs (** for
any number of folders), and - for stdin. With no PATH it lints the current
folder. Flags may come before or after the paths; -- ends them.

Exit status: 0 nothing at or above --fail-on (files without any webhook too:
the summary says so), 1 findings, 2 usage or configuration error (a named path
with nothing to lint too), 3 internal error or a run that cannot go on (memory).

Flags:
`)
	cliflag.PrintFlags(w, fs)
}

func (o *options) run(stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case o.showVersion:
		fmt.Fprintf(stdout, "webhooklint %s\n", version())
		return ExitOK
	case o.listRules:
		listRules(stdout)
		return ExitOK
	case o.explain != "":
		r, ok := rules.Lookup(o.explain)
		if !ok {
			var names []string
			for _, r := range rules.All() {
				names = append(names, r.Name)
			}
			fmt.Fprintf(stderr, "webhooklint: unknown rule %q%s (see --list-rules)\n", o.explain, suggest.Hint(o.explain, names))
			return ExitUsage
		}
		fmt.Fprint(stdout, Explain(r))
		return ExitOK
	}

	settings := rules.DefaultSettings()
	settings.KubeVersion = o.kubeVersion
	if o.provider != "" {
		settings.Provider = o.provider
	}
	rc := &runContext{
		opts:   &lint.Options{Settings: settings, Jobs: o.jobs},
		paths:  o.paths,
		stdout: stdout,
		stderr: stderr,
	}
	switch o.failOn {
	case "never", "none":
		rc.never = true
	default:
		s, err := diag.ParseSeverity(o.failOn)
		if err != nil {
			fmt.Fprintf(stderr, "webhooklint: --fail-on: unknown value %q (want error, warning, info or never)%s\n",
				o.failOn, suggest.Hint(o.failOn, []string{"error", "warning", "info", "never"}))
			return ExitUsage
		}
		rc.failOn = s
	}
	color, err := cliflag.Color(o.color, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "webhooklint: %v\n", err)
		return ExitUsage
	}
	rc.report.Color = color
	rc.report.BaseDir = baseDir()
	// The run is prepared in this order: the configuration file, then the
	// flags that refine it, then the extra outputs (created before any
	// linting, so a path that cannot be written is a usage error).
	for _, step := range []func(*runContext) error{
		func(rc *runContext) error { return o.config.apply(rc, o.flags) },
		o.sources.apply,
		func(rc *runContext) error { return openOutputs(rc, o.outputs) },
	} {
		if err := step(rc); err != nil {
			var done exitNow
			if errors.As(err, &done) {
				return int(done)
			}
			fmt.Fprintf(stderr, "webhooklint: %v\n", err)
			return ExitUsage
		}
	}
	// A version from the future is no error (a release may lag the
	// cluster), but it is not silently the same as the newest known one.
	if v, known := rc.opts.Settings.KubeVersion, rules.DefaultKubeVersion; v.Major == known.Major && v.Minor > known.Minor {
		fmt.Fprintf(stderr, "webhooklint: note: Kubernetes %s is newer than %s, the newest this webhooklint knows; its checks are those of %s (a newer webhooklint may know more)\n", v, known, known)
	}
	f, err := report.New(o.format, rc.report)
	if err != nil {
		fmt.Fprintf(stderr, "webhooklint: --format: %v\n", err)
		return ExitUsage
	}

	c := o.cache.open(rc, o.flags)
	defer c.Close()
	rc.sources.Cache = c
	res, err := o.fixes.lint(rc, func() (*lint.Result, error) {
		return source.Lint(rc.paths, stdin, o.stdinFilename, *rc.opts, rc.sources)
	})
	if err != nil {
		fmt.Fprintf(stderr, "webhooklint: %v\n", err)
		return ExitUsage
	}
	printStats(c, rc)
	// Texts that exist only in memory (stdin, rendered output); the report
	// re-reads every other file from disk for its snippets.
	inMemory := map[string][]byte{}
	var names []string
	for _, file := range res.Files {
		if file != nil {
			names = append(names, file.Name)
		}
		if file != nil && file.Data != nil {
			inMemory[file.Name] = file.Data
		}
	}
	// The status is known before the report is written, so formats that
	// record it (SARIF) can.
	code := ExitOK
	switch {
	case len(res.Internal) > 0:
		code = ExitInternal
	case !rc.never && diag.AtLeast(res.Diagnostics, rc.failOn):
		code = ExitFindings
	}
	run := &report.Run{
		Diagnostics: res.Diagnostics, Files: len(res.Files), Configs: res.Configs, Policies: res.Policies, Unchecked: res.Unchecked, FileNames: names,
		Source:      report.FileSource(inMemory, manifest.MaxFileSize),
		ToolVersion: version(),
		ExitCode:    code,
	}
	if o.fixes.diff {
		f = diffReport{o.fixes, res}
	}
	if err := f.Format(stdout, run); err != nil {
		fmt.Fprintf(stderr, "webhooklint: writing output: %v\n", err)
		return ExitInternal
	}
	for _, after := range rc.afterRun {
		if err := after(run); err != nil {
			fmt.Fprintf(stderr, "webhooklint: %v\n", err)
			return ExitInternal
		}
	}
	for _, e := range res.Internal {
		fmt.Fprintf(stderr, "webhooklint: %v\n%s", e, e.Stack)
	}
	return code
}

// exitNow, returned by a hook, ends the run successfully with that status
// (flags that do their job instead of linting, like --init-config).
type exitNow int

func (e exitNow) Error() string { return fmt.Sprintf("exit %d", int(e)) }
