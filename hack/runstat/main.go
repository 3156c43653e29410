//go:build devtools && unix

// Command runstat is hack/bench.sh's stopwatch: it runs a command several
// times and prints, on one line, the best and mean wall time, the CPU time
// (user+sys) of the best run and the mean CPU time, in seconds, and the
// largest peak RSS in KiB:
//
//	runstat [-n RUNS] [-C DIR] [-before SHELL] -- COMMAND ARGS...
//
// -before runs a shell command before each run, untimed, in the same
// folder (empty a cache folder, edit a file). It reads the kernel's own accounting of each child
// (wait4's rusage), to the microsecond, where /usr/bin/time prints
// hundredths of a second: the runs of one named file take a few of those.
//
// It builds only with -tags devtools, as the other development commands.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("n", 1, "runs")
	dir := flag.String("C", "", "folder to run the command in")
	before := flag.String("before", "", "shell command run before each run, untimed")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: runstat [-n RUNS] [-C DIR] [-before SHELL] -- COMMAND ARGS...")
		os.Exit(2)
	}
	var best, wallSum, cpuSum, bestCPU time.Duration
	var rss int64
	for i := range *runs {
		if *before != "" {
			prep := exec.Command("sh", "-c", *before)
			prep.Dir = *dir
			if out, err := prep.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "runstat: -before: %v\n%s", err, out)
				os.Exit(1)
			}
		}
		cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
		cmd.Dir = *dir
		start := time.Now()
		// A non-zero exit (findings) is a run like any other.
		if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
			fmt.Fprintln(os.Stderr, "runstat:", err)
			os.Exit(1)
		}
		wall := time.Since(start)
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
		if i == 0 || wall < best {
			best, bestCPU = wall, cpu
		}
		wallSum += wall
		cpuSum += cpu
		rss = max(rss, maxRSSKiB(ru))
	}
	n := time.Duration(*runs)
	fmt.Printf("%.4f %.4f %.4f %.4f %d\n", best.Seconds(), (wallSum / n).Seconds(), bestCPU.Seconds(), (cpuSum / n).Seconds(), rss)
}
