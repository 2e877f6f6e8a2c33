package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits bound one run of a toolchain program.
type Limits struct {
	// Time is the wall-clock limit (also the CPU-time limit, rounded up
	// to a second).
	Time time.Duration
	// Memory is the address-space limit in bytes (RLIMIT_AS).
	Memory uint64
	// Output bounds each file the program writes (RLIMIT_FSIZE) and its
	// stdout and stderr together, in bytes.
	Output uint64
}

// Defaults are the limits when neither the environment nor SetLimits says
// otherwise: 10 s, 1 GiB, 64 MiB. A kernel trampoline file preprocesses,
// assembles and links in well under a second, in tens of MiB, into
// kilobytes.
var Defaults = Limits{Time: 10 * time.Second, Memory: 1 << 30, Output: 64 << 20}

// The environment variables that set the limits.
const (
	EnvTime   = "TRAMPEMU_TIMEOUT" // a Go duration: 10s, 500ms, 1m
	EnvMemory = "TRAMPEMU_MEMORY"  // a size: 1GiB, 512MiB, 1073741824
	EnvOutput = "TRAMPEMU_OUTPUT"  // a size: 64MiB
)

var (
	limitsMu  sync.Mutex
	overrides *Limits
)

// SetLimits makes l the limits of every later run (zero fields keep the
// environment's or the default value); SetLimits(Limits{}) undoes it.
func SetLimits(l Limits) {
	limitsMu.Lock()
	defer limitsMu.Unlock()
	if l == (Limits{}) {
		overrides = nil
		return
	}
	overrides = &l
}

// Current returns the limits in force: SetLimits's, else the environment's
// (TRAMPEMU_TIMEOUT, TRAMPEMU_MEMORY, TRAMPEMU_OUTPUT), else Defaults. A
// malformed variable is an error naming it.
func Current() (Limits, error) {
	l := Defaults
	if v := os.Getenv(EnvTime); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return l, fmt.Errorf("%s=%s: not a positive duration: give e.g. 10s or 500ms", EnvTime, v)
		}
		l.Time = d
	}
	for _, e := range []struct {
		name string
		dst  *uint64
	}{{EnvMemory, &l.Memory}, {EnvOutput, &l.Output}} {
		if v := os.Getenv(e.name); v != "" {
			n, err := ParseSize(v)
			if err != nil {
				return l, fmt.Errorf("%s=%s: %v", e.name, v, err)
			}
			*e.dst = n
		}
	}
	limitsMu.Lock()
	defer limitsMu.Unlock()
	if o := overrides; o != nil {
		if o.Time > 0 {
			l.Time = o.Time
		}
		if o.Memory > 0 {
			l.Memory = o.Memory
		}
		if o.Output > 0 {
			l.Output = o.Output
		}
	}
	return l, nil
}

var sizeUnits = []struct {
	suffix string
	mul    uint64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}, {"bytes", 1}}

// ParseSize reads a size: a byte count, or a count with a binary suffix
// (KiB, MiB, GiB; K, M, G mean the same; B or "bytes", as FormatSize
// writes a count no unit divides). It is at least 1 MiB (a program
// cannot start in less) and at most 1 TiB.
func ParseSize(s string) (uint64, error) {
	num, mul := strings.TrimSpace(s), uint64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, mul = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mul
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a size: give e.g. 64MiB, 1GiB or a byte count")
	}
	const lo, hi = 1 << 20, 1 << 40
	if n > hi/mul || n*mul < lo {
		return 0, fmt.Errorf("give a size from 1MiB to 1024GiB")
	}
	return n * mul, nil
}

// FormatSize writes a size the way ParseSize reads it, in the largest
// binary unit that divides it (64MiB), else in bytes.
func FormatSize(n uint64) string {
	for _, u := range sizeUnits[:3] {
		if n >= u.mul && n%u.mul == 0 {
			return fmt.Sprintf("%d%s", n/u.mul, u.suffix)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
