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
// -marked runs a Go program with GODEBUG=gctrace=1 and adds a sixth
// field: the largest heap a collection marked live in any run, in MiB.
// Peak RSS also holds the binary's pages and the heap the collector lets
// grow past what it marked, which its target sets (cli.tuneGC gives a
// small heap a fixed headroom); the marked heap is what the input makes
// the program keep.
//
// It builds only with -tags devtools, as the other development commands.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("n", 1, "runs")
	dir := flag.String("C", "", "folder to run the command in")
	before := flag.String("before", "", "shell command run before each run, untimed")
	marked := flag.Bool("marked", false, "add the largest heap a Go program's collections marked, in MiB (GODEBUG=gctrace=1)")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: runstat [-n RUNS] [-C DIR] [-before SHELL] [-marked] -- COMMAND ARGS...")
		os.Exit(2)
	}
	var best, wallSum, cpuSum, bestCPU time.Duration
	var rss, heap int64
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
		var trace io.ReadCloser
		if *marked {
			cmd.Env = append(os.Environ(), "GODEBUG="+withGCTrace(os.Getenv("GODEBUG")))
			var err error
			if trace, err = cmd.StderrPipe(); err != nil {
				fmt.Fprintln(os.Stderr, "runstat:", err)
				os.Exit(1)
			}
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "runstat:", err)
			os.Exit(1)
		}
		if trace != nil {
			heap = max(heap, largestMarked(trace))
		}
		// A non-zero exit (findings) is a run like any other.
		if err := cmd.Wait(); err != nil && cmd.ProcessState == nil {
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
	fmt.Printf("%.4f %.4f %.4f %.4f %d", best.Seconds(), (wallSum / n).Seconds(), bestCPU.Seconds(), (cpuSum / n).Seconds(), rss)
	if *marked {
		fmt.Printf(" %d", heap)
	}
	fmt.Println()
}

// withGCTrace is a GODEBUG value with gctrace=1 added to the user's.
func withGCTrace(godebug string) string {
	if godebug == "" {
		return "gctrace=1"
	}
	return godebug + ",gctrace=1"
}

// gcLine is a collection's line of gctrace=1: "gc 7 @0.798s 1%: ... ms cpu,
// 36->39->14 MB, 46 MB goal, ...", the heap at the collection's start, at
// its end, and what it marked live.
var gcLine = regexp.MustCompile(`^gc \d+ @.* (\d+)->(\d+)->(\d+) MB,`)

// largestMarked reads a Go program's standard error to its end and returns
// the largest heap one of its collections marked, in MiB (0 when none
// ran); every other line is dropped, as runstat drops a child's output.
func largestMarked(r io.Reader) int64 {
	var largest int64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m := gcLine.FindSubmatch(sc.Bytes()); m != nil {
			if n, err := strconv.ParseInt(string(m[3]), 10, 64); err == nil {
				largest = max(largest, n)
			}
		}
	}
	// A line past the buffer ends the scan: drain the rest so the child
	// never blocks on a full pipe.
	_, _ = io.Copy(io.Discard, r)
	return largest
}
