package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/webhooklint/webhooklint/config"
	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/internal/suggest"
	"github.com/webhooklint/webhooklint/rules"
)

// Exit codes, as for file linting.
const (
	exitClean    = 0
	exitFindings = 1
	exitUsage    = 2
	exitFailure  = 3
)

// Command is Main in the shape cli.RegisterSubcommand takes (no stdin).
func Command(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return Main(args, stdout, stderr)
}

// Main runs `webhooklint cluster ARGS`: it returns the exit code. It stops
// cleanly on SIGINT and SIGTERM.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdout, stderr, nil)
}

// run is Main with the context and, for tests, the REST config given.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, restConfig *rest.Config) int {
	if len(args) > 0 && args[0] == "simulate" {
		return runSimulate(ctx, args[1:], stdout, stderr, restConfig)
	}
	var v clusterFlags
	fs := v.flagSet()
	if err := cliflag.Parse(fs, args); err != nil {
		if errors.Is(err, cliflag.ErrHelp) {
			fmt.Fprint(stdout, clusterUsage)
			cliflag.PrintFlags(stdout, fs)
			return exitClean
		}
		fmt.Fprintln(stderr, cliflag.UsageError("webhooklint cluster", err))
		return exitUsage
	}
	conn, rvMatch, streamMode, format, failOn := v.conn, v.rvMatch, v.streamMode, v.format, v.failOn
	timeout, watchMode, noLive, showExcerpt := v.timeout, v.watchMode, v.noLive, v.showExcerpt
	configPath, providerName, o := v.configPath, v.providerName, v.o
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "webhooklint cluster: "+format+"\n", a...)
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usage("unexpected arguments %q (the cluster command reads no files)", fs.Args())
	}
	var err error
	if o.List.ResourceVersionMatch, err = ParseMatch(rvMatch); err != nil {
		return usage("%v", err)
	}
	if err := o.List.Validate(); err != nil {
		return usage("%v", err)
	}
	if o.Stream, err = ParseStreamMode(streamMode); err != nil {
		return usage("%v", err)
	}
	if format != "text" && format != "json" {
		return usage("--format must be text or json, not %q", format)
	}
	never := failOn == "never"
	minSev, err := diag.ParseSeverity(failOn)
	if err != nil && !never {
		return usage("--fail-on: unknown value %q (want error, warning, info or never)%s",
			failOn, suggest.Hint(failOn, []string{"error", "warning", "info", "never"}))
	}
	color, err := cliflag.Color(v.color, stdout)
	if err != nil {
		return usage("%v", err)
	}
	o.Live = !noLive
	provider, err := rules.ParseProvider(providerName)
	if err != nil {
		return usage("--provider: %v", err)
	}

	if restConfig == nil {
		if restConfig, err = conn.RESTConfig(); err != nil {
			fmt.Fprintf(stderr, "webhooklint cluster: %v\n", err)
			return exitUsage
		}
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		fmt.Fprintf(stderr, "webhooklint cluster: %v\n", err)
		return exitUsage
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	o.Settings = rules.DefaultSettings()
	if code := applyConfig(&o, configPath, stderr); code != exitClean {
		return code
	}
	if providerName != "" {
		o.Settings.Provider = provider // the flag wins over the configuration file
	}
	// The version actually running is the target, whatever a
	// configuration file written for manifests says.
	if v, err := serverVersion(client.Discovery()); err == nil {
		o.Settings.KubeVersion = v
	}

	p := &printer{w: stdout, json: format == "json", excerpt: showExcerpt, color: color}
	var ds []diag.Diagnostic
	if watchMode {
		var mu sync.Mutex
		w := &Watcher{Client: client, Options: o, Sink: func(c Change) {
			mu.Lock()
			defer mu.Unlock()
			p.change(c)
		}}
		ds, err = w.Run(ctx)
		if err == nil {
			// Where the watch stopped, as the snapshots end.
			mu.Lock()
			p.summary()
			mu.Unlock()
		}
	} else {
		var res *Result
		res, err = Lint(ctx, client, o)
		if err == nil {
			for _, n := range res.Notes {
				fmt.Fprintln(stderr, "webhooklint cluster: note: "+n)
			}
			objects := liveObjects{configs: map[string]*rules.Config{}, policies: map[string]*rules.Policy{}}
			for _, s := range res.Snapshots {
				for _, c := range s.Configs {
					objects.configs[configKey(c)] = c
				}
				for _, pol := range s.Policies {
					objects.policies[policyKey(pol)] = pol
				}
			}
			err = p.result(res, objects)
			ds = res.Diagnostics
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && timeout > 0 {
			fmt.Fprintf(stderr, "webhooklint cluster: --timeout %s reached before the cluster was read: %v\n", timeout, err)
			return exitFailure
		}
		fmt.Fprintf(stderr, "webhooklint cluster: %v\n", err)
		return exitFailure
	}
	if !never && diag.AtLeast(ds, minSev) {
		return exitFindings
	}
	return exitClean
}

const clusterUsage = `Usage: webhooklint cluster [flags]
       webhooklint cluster simulate [flags]   which webhooks a request meets (see webhooklint help cluster simulate)

Lints the webhook configurations, admission policies and policy bindings a
live API server holds, once or with --watch.
The kubeconfig is --kubeconfig, else $KUBECONFIG, else ~/.kube/config, else
the in-cluster service account.

Exit status: 0 nothing at or above --fail-on, 1 findings, 2 usage error or no
cluster to connect to, 3 the cluster cannot be read.

Flags:
`

// clusterFlags are the values of webhooklint cluster's flags.
type clusterFlags struct {
	conn         Connection
	rvMatch      string
	streamMode   string
	format       string
	failOn       string
	color        string
	timeout      time.Duration
	watchMode    bool
	noLive       bool
	showExcerpt  bool
	configPath   string
	providerName string
	o            Options
}

func (v *clusterFlags) flagSet() *pflag.FlagSet {
	fs := cliflag.New("webhooklint cluster")
	v.conn.bind(fs)
	o := &v.o
	fs.Int64Var(&o.List.ChunkSize, "chunk-size", 500, "list in pages of this many objects (limit/continue); 0 lists in one request")
	fs.StringVar(&o.List.ResourceVersion, "resource-version", "", `list at this resourceVersion: unset = consistent read of the most recent state, "0" = any (possibly stale) state`)
	fs.StringVar(&v.rvMatch, "resource-version-match", "", "how --resource-version is matched: Exact or NotOlderThan")
	cliflag.Enum(fs, "resource-version-match", "Exact", "NotOlderThan")
	fs.BoolVar(&o.List.AllowInconsistent, "allow-inconsistent-continue", false, "when a continue token expires, go on with the token the server returns instead of restarting the list (the result may be inconsistent)")
	fs.BoolVar(&v.watchMode, "watch", false, "after the list, keep watching and print findings as they appear and are resolved")
	fs.StringVar(&v.streamMode, "watch-list", "auto", "initial state of --watch: auto (streaming list where the server supports it, else list then watch), always, never")
	cliflag.Enum(fs, "watch-list", "auto", "always", "never")
	fs.DurationVar(&o.LiveRefresh, "live-refresh", time.Minute, "with --watch, re-read Services, EndpointSlices, Namespaces, pods, PodDisruptionBudgets and discovery this often (0: only after a relist)")
	fs.BoolVar(&v.noLive, "no-live", false, "skip the live checks (they read Services, EndpointSlices, Namespaces, pods, PodDisruptionBudgets and discovery)")
	fs.DurationVar(&v.timeout, "timeout", 0, "stop after this long (0: no limit); a watch that reaches it stops cleanly")
	fs.StringVar(&v.format, "format", "text", "output format: text or json (one JSON object per line with --watch)")
	cliflag.Enum(fs, "format", "text", "json")
	fs.StringVar(&v.color, "color", "auto", "color in text output: auto, always or never (NO_COLOR disables auto)")
	cliflag.Enum(fs, "color", "auto", "always", "never")
	fs.BoolVar(&v.showExcerpt, "excerpt", false, "show the offending field of each finding as YAML, as kubectl get -o yaml would")
	fs.StringVar(&v.configPath, "config", "", "configuration `FILE` for rule settings (default: the nearest "+config.FileName+" above the current folder)")
	cliflag.File(fs, "config")
	fs.StringVar(&v.providerName, "provider", "", "platform the cluster runs on: generic, gke, eks, aks or openshift (default generic, or provider in the configuration file)")
	cliflag.Enum(fs, "provider", "generic", "gke", "eks", "aks", "openshift")
	fs.StringVar(&v.failOn, "fail-on", "warning", "exit 1 when a finding at or above this severity remains: error, warning, info or never")
	cliflag.Enum(fs, "fail-on", "error", "warning", "info", "never")
	return fs
}

// bind adds --kubeconfig and --context.
func (c *Connection) bind(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", "kubeconfig `FILE` (default: $KUBECONFIG, ~/.kube/config, else the in-cluster service account)")
	cliflag.File(fs, "kubeconfig")
	fs.StringVar(&c.Context, "context", "", "kubeconfig context (default: the current context)")
}

// Commands describes webhooklint cluster and cluster simulate for the
// completion scripts.
func Commands() []cliflag.Command {
	var v clusterFlags
	var s simulateFlags
	return []cliflag.Command{
		{Path: "cluster", Flags: v.flagSet()},
		{Path: "cluster simulate", Flags: s.flagSet()},
	}
}

// applyConfig reads rule settings (enabled, severity, options) from the
// same configuration file file linting uses.
func applyConfig(o *Options, path string, stderr io.Writer) int {
	if path == "" {
		found, err := config.Find(nil)
		if err != nil {
			fmt.Fprintf(stderr, "webhooklint cluster: configuration: %v\n", err)
			return exitUsage
		}
		if found == "" {
			return exitClean
		}
		path = found
	}
	c, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "webhooklint cluster: %v\n", err)
		return exitUsage
	}
	o.Enabled = c.Enabled
	o.Severity = c.Severities()
	o.Settings.Options = c.Options()
	if c.KubeVersion.Major != 0 {
		o.Settings.KubeVersion = c.KubeVersion
	}
	if c.Provider != "" {
		o.Settings.Provider = c.Provider
	}
	return exitClean
}
