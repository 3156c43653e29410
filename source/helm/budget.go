package helm

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/Masterminds/sprig/v3"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Limits of one render. A chart is a program: `until 100000000` or three
// nested loops would run for minutes and take the memory of the machine.
// No real chart comes near these bounds; a template that passes one is
// reported at the action that did, and the chart's other templates are
// rendered without it.
const (
	// RenderTimeout bounds the time of one render: it is spent when that
	// much wall-clock time has passed and the process has used that much
	// CPU since the render began. On a machine busy with other work a
	// render gets a fraction of a CPU, and a chart that renders in a
	// second would otherwise pass 20 seconds of wall time and be reported
	// as a loop without end; a loop does use the CPU.
	RenderTimeout = 20 * time.Second
	// MaxRenderHeap bounds how much the heap may grow during one render.
	MaxRenderHeap = 512 << 20
	// MaxIterations bounds the lists until, untilStep and seq produce.
	MaxIterations = 1 << 20
	// MaxOutput bounds what one template may produce (the size of file
	// the manifest loader reads), and what repeat may build.
	MaxOutput = 64 << 20
)

// budget is checked by every template function call: text/template offers
// no way to stop an execution from outside, but a function that panics
// ends it with an error naming the template line. A loop that calls no
// function at all cannot be stopped; Render abandons it at the deadline.
type budget struct {
	deadline  time.Time
	cpuStart  time.Duration
	cpuKnown  bool
	timeout   time.Duration
	heapStart uint64
	maxHeap   uint64
	calls     atomic.Int64
}

// maxRenderHeap is MaxRenderHeap and renderTimeout RenderTimeout; tests
// lower them.
var (
	maxRenderHeap uint64 = MaxRenderHeap
	renderTimeout        = RenderTimeout
	// processCPU is the process's CPU time, false where it is unknown;
	// tests slow it down as a busy machine does.
	processCPU = osProcessCPU
)

// The heap bound is also at most half the process's memory limit, so a
// render stops with a finding before the run has to stop (cli's watchdog).
func newBudget() *budget {
	b := &budget{deadline: time.Now().Add(renderTimeout), timeout: renderTimeout, heapStart: heapBytes(), maxHeap: maxRenderHeap}
	b.cpuStart, b.cpuKnown = processCPU()
	if l := debug.SetMemoryLimit(-1); l > 0 && uint64(l)/2 < b.maxHeap {
		b.maxHeap = uint64(l) / 2
	}
	return b
}

// spent reports whether the render's time is up: the wall-clock deadline
// has passed, and so has as much CPU time of the process (where it is
// known). Reading the process's CPU time is a system call, made only once
// the deadline has passed.
func (b *budget) spent() bool {
	if !time.Now().After(b.deadline) {
		return false
	}
	return b.cpuLeft() <= 0
}

// cpuLeft is how much CPU time the process may still use before the
// render's time is up; 0 where CPU time is unknown.
func (b *budget) cpuLeft() time.Duration {
	now, ok := processCPU()
	if !ok || !b.cpuKnown {
		return 0
	}
	return b.timeout - (now - b.cpuStart)
}

// budgetExceeded is the panic value of a spent budget; text/template turns
// it into an "error calling …" error at the action.
type budgetExceeded string

func (b budgetExceeded) Error() string { return string(b) }

func (b *budget) check() {
	n := b.calls.Add(1)
	if b.spent() {
		overlay.Volatile("render budget") // another run may finish in time
		panic(budgetExceeded(fmt.Sprintf("rendering ran longer than %s (a loop without end?)", b.timeout)))
	}
	if n%16 == 0 && heapBytes() > b.heapStart+b.maxHeap {
		overlay.Volatile("render budget") // depends on what else the process holds
		panic(budgetExceeded(fmt.Sprintf("rendering took more than %d MiB of memory", b.maxHeap>>20)))
	}
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapBytes() uint64 {
	s := make([]metrics.Sample, 1)
	copy(s, heapSample)
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// notWrapped are sprig functions Helm removes or replaces (environment
// access, DNS, its own JSON and failure functions): re-adding sprig's
// version would change what a chart can do.
var notWrapped = map[string]bool{
	"env": true, "expandenv": true, "getHostByName": true,
	"toJson": true, "mustToJson": true, "fromJson": true, "fail": true,
}

// funcs are the template functions that replace Helm's sprig functions
// for one render: the same functions, each checking the budget first, and
// bounded versions of those that build a list or string from a number.
func (b *budget) funcs() map[string]any {
	out := map[string]any{}
	for name, fn := range sprig.TxtFuncMap() {
		if notWrapped[name] {
			continue
		}
		out[name] = b.wrap(fn)
	}
	until := sprig.TxtFuncMap()["until"].(func(int) []int)
	untilStep := sprig.TxtFuncMap()["untilStep"].(func(int, int, int) []int)
	seq := sprig.TxtFuncMap()["seq"].(func(...int) string)
	repeat := sprig.TxtFuncMap()["repeat"].(func(int, string) string)
	out["until"] = func(n int) ([]int, error) {
		b.check()
		if err := iterations("until", n, 0, 1); err != nil {
			return nil, err
		}
		return until(n), nil
	}
	out["untilStep"] = func(start, stop, step int) ([]int, error) {
		b.check()
		if err := iterations("untilStep", stop, start, step); err != nil {
			return nil, err
		}
		return untilStep(start, stop, step), nil
	}
	out["seq"] = func(p ...int) (string, error) {
		b.check()
		start, stop, step := 1, 0, 1
		switch len(p) {
		case 1:
			stop = p[0]
		case 2:
			start, stop = p[0], p[1]
		case 3:
			start, step, stop = p[0], p[1], p[2]
		}
		if err := iterations("seq", stop, start, step); err != nil {
			return "", err
		}
		return seq(p...), nil
	}
	out["repeat"] = func(n int, s string) (string, error) {
		b.check()
		if n > 0 && len(s) > 0 && n > MaxOutput/len(s) {
			return "", fmt.Errorf("repeat %d times a string of %d bytes is more than the %d MiB a template may produce", n, len(s), MaxOutput>>20)
		}
		return repeat(n, s), nil
	}
	return out
}

// iterations refuses a list of more than MaxIterations elements before it
// is allocated.
func iterations(fn string, stop, start, step int) error {
	if n := listLen(stop, start, step); n > MaxIterations {
		return fmt.Errorf("%s of %d elements is more than the %d webhooklint renders", fn, n, MaxIterations)
	}
	return nil
}

// listLen is how many elements start, start+step, … before stop are,
// without overflow (the difference of two ints may not fit in one).
func listLen(stop, start, step int) uint64 {
	switch {
	case step > 0 && stop > start:
		return (uint64(stop) - uint64(start)) / uint64(step)
	case step < 0 && start > stop:
		return (uint64(start) - uint64(stop)) / (^uint64(step) + 1)
	}
	return 0 // the sprig functions return an empty list
}

// wrap returns fn with the budget checked before each call.
func (b *budget) wrap(fn any) any {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func {
		return fn
	}
	t := v.Type()
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		b.check()
		if t.IsVariadic() {
			return v.CallSlice(args)
		}
		return v.Call(args)
	}).Interface()
}
