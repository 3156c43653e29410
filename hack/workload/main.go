//go:build devtools

// Command workload writes one of hack/bench.sh's generated inputs
// (internal/workload): `workload NAME N DIR` writes N units of NAME
// (configs, mixed, broken, monorepo) under DIR; `workload -list` prints
// each workload's name, count at ×1 and unit, one a line; `workload
// -changed APPS` the file of a monorepo of APPS apps that the benchmark
// names as one changed file.
//
// It builds only with -tags devtools, as the other development commands.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/webhooklint/webhooklint/internal/workload"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-list" {
		for _, w := range workload.All {
			fmt.Println(w.Name, w.Base, w.Unit)
		}
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "-changed" {
		if apps, err := strconv.Atoi(os.Args[2]); err == nil && apps > 0 {
			fmt.Println(workload.MonorepoChanged(apps))
			return
		}
	}
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: workload NAME N DIR | workload -list | workload -changed APPS")
		os.Exit(2)
	}
	w, ok := workload.Named(os.Args[1])
	n, err := strconv.Atoi(os.Args[2])
	if !ok || err != nil || n <= 0 {
		fmt.Fprintf(os.Stderr, "workload: no workload %q of %q units (see workload -list)\n", os.Args[1], os.Args[2])
		os.Exit(2)
	}
	if err := w.Write(os.Args[3], n); err != nil {
		fmt.Fprintln(os.Stderr, "workload:", err)
		os.Exit(1)
	}
}
