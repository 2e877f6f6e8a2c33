package native

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"trampemu/harness"
	"trampemu/trampolines"
)

// ValgrindCount is a pairing's instructions per traced call as valgrind
// counts them running it natively: callgrind's Ir (instructions executed)
// at the addresses of each trampoline's code, divided by the traced calls
// (graph user on, so both trampolines run once per call).
type ValgrindCount struct {
	Entry, Exit           string
	EntryInsns, ExitInsns float64
	// EntryLoads ... ExitStores are callgrind's data reads (Dr) and writes
	// (Dw) at the same addresses per traced call (its cache simulation
	// counts them; implicit stack traffic of call, ret, push and pop
	// included, as the emulator's counts).
	EntryLoads, EntryStores float64
	ExitLoads, ExitStores   float64
	Calls                   int
}

// valgrindTimeout bounds one valgrind run.
const valgrindTimeout = 2 * time.Minute

// ValgrindPairing counts one pairing (ValgrindJobs).
func ValgrindPairing(j Job, calls int) (ValgrindCount, error) {
	cs, err := ValgrindJobs([]Job{j}, calls)
	if err != nil {
		return ValgrindCount{}, err
	}
	return cs[0], nil
}

// ValgrindJobs runs the pairings natively under callgrind, one after the
// other in one child process (this executable, which must call
// RunChildIfAsked), calls traced calls each, and counts the trampolines'
// instructions: the child asks callgrind to dump a profile part after each
// pairing (a client request, native_callgrind), and the part's Ir at the
// entry and exit trampolines' addresses, divided by calls, is the count.
func ValgrindJobs(jobs []Job, calls int) ([]ValgrindCount, error) {
	if calls <= 0 || len(jobs) == 0 {
		return nil, fmt.Errorf("native: valgrind count needs pairings and calls > 0")
	}
	var self string
	var plans bytes.Buffer
	var ps []*plan
	for _, j := range jobs {
		var err error
		if self, err = checkCanStart(j); err != nil {
			return nil, err
		}
		p, err := makePlan(j)
		if err != nil {
			return nil, err
		}
		if err := sendPlan(&plans, p); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		return nil, fmt.Errorf("valgrind is not installed: run scripts/deps.sh (apt-get install valgrind)")
	}
	dir, err := os.MkdirTemp("", "trampemu-callgrind")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	task, err := json.Marshal(childTask{Count: calls})
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "callgrind.out")
	// --cache-sim=yes: callgrind counts data reads (Dr) and writes (Dw).
	// --vex-iropt-level=0: VEX's IR optimiser drops a load whose value is
	// overwritten before use (ftrace_graph_caller v5.10: save_mcount_regs
	// loads the parent into %rsi, then leaq overwrites it); the CPU makes
	// that load, and so does the emulator's count.
	cmd := exec.Command(vg, "--tool=callgrind", "--cache-sim=yes", "--vex-iropt-level=0", "--dump-instr=yes", "--dump-line=no", "--compress-pos=no", "--compress-strings=no",
		"--instr-atstart=no", "--callgrind-out-file="+out, self)
	// Go's asynchronous preemption signals trip callgrind's signal
	// bookkeeping (valgrind 3.19: "Assertion 'sigNum ==
	// vgCallgrind_current_state.sig' failed"); the count does not need them.
	cmd.Env = childEnviron(childEnv+"="+string(task), "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &plans, &stdout, &stderr
	timer := time.AfterFunc(valgrindTimeout, func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	})
	err = cmd.Run()
	timer.Stop()
	if err != nil {
		return nil, fmt.Errorf("valgrind run of %d pairings failed (%v): %s", len(jobs), err, crashLines(stderr.String()))
	}
	if strings.TrimSpace(stdout.String()) != "done" {
		return nil, fmt.Errorf("valgrind run did not finish its calls: %s", crashLines(stdout.String()+stderr.String()))
	}
	var counts []ValgrindCount
	for i, j := range jobs {
		// Part i+1 holds the costs since part i: pairing i's run.
		events, costs, err := readCallgrind(fmt.Sprintf("%s.%d", out, i+1))
		if err != nil {
			return nil, fmt.Errorf("valgrind count of %s: %w", j.Name(), err)
		}
		col := map[string]int{}
		for k, e := range events {
			col[e] = k
		}
		for _, e := range []string{"Ir", "Dr", "Dw"} {
			if _, ok := col[e]; !ok {
				return nil, fmt.Errorf("valgrind count of %s: the profile has no %s event (events: %v)", j.Name(), e, events)
			}
		}
		sum := func(r [2]uint64, event string) float64 {
			var n uint64
			for addr, c := range costs {
				if addr >= r[0] && addr < r[1] {
					n += c[col[event]]
				}
			}
			return float64(n) / float64(calls)
		}
		e, x := ps[i].EntryUnit, ps[i].ExitUnit
		counts = append(counts, ValgrindCount{Entry: j.Entry.name(), Exit: j.Exit.name(), EntryInsns: sum(e, "Ir"), ExitInsns: sum(x, "Ir"),
			EntryLoads: sum(e, "Dr"), EntryStores: sum(e, "Dw"), ExitLoads: sum(x, "Dr"), ExitStores: sum(x, "Dw"), Calls: calls})
	}
	return counts, nil
}

func readCallgrind(path string) ([]string, map[uint64][]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	events, costs, err := ParseCallgrindEvents(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return events, costs, nil
}

// ValgrindCounts counts every x86-64 registry variant in its intended
// pairing (RegistryJobs) under callgrind, calls traced calls each, and
// returns instructions per traced call by variant name: the number the
// emulated check reports as the variant's instructions (check.Metrics),
// counted independently on the host CPU. The report's exactness table
// reads it.
func ValgrindCounts(calls int) (map[string]float64, error) {
	cs, err := ValgrindCosts(calls)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for name, c := range cs {
		out[name] = c.Instructions
	}
	return out, nil
}

// ValgrindCost is one variant's cost per traced call as callgrind counts
// it: instructions (Ir), data reads (Dr) and writes (Dw).
type ValgrindCost struct {
	Instructions, Loads, Stores float64
}

// ValgrindCosts is ValgrindCounts with callgrind's data reads and writes:
// the emulator's loads and stores per traced call, counted on the host.
func ValgrindCosts(calls int) (map[string]ValgrindCost, error) {
	counts, err := ValgrindJobs(RegistryJobs(), calls)
	if err != nil {
		return nil, err
	}
	out := map[string]ValgrindCost{}
	for _, c := range counts {
		if v, err := harness.FindVariant(Arch, trampolines.Entry, c.Entry); err == nil && v.Pair == c.Exit {
			out[c.Entry] = ValgrindCost{c.EntryInsns, c.EntryLoads, c.EntryStores}
		}
		if v, err := harness.FindVariant(Arch, trampolines.Exit, c.Exit); err == nil && v.Pair == c.Entry {
			out[c.Exit] = ValgrindCost{c.ExitInsns, c.ExitLoads, c.ExitStores}
		}
	}
	return out, nil
}

// ParseCallgrind reads a callgrind profile written with --dump-instr=yes
// and returns the self cost of the first event (Ir) per instruction
// address. Call cost lines (the line after calls=, inclusive cost of the
// callee) are not self cost and are skipped; positions may be absolute,
// relative (+n, -n) or repeated (*), as the format allows.
func ParseCallgrind(r io.Reader) (map[uint64]uint64, error) {
	_, costs, err := ParseCallgrindEvents(r)
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]uint64, len(costs))
	for addr, c := range costs {
		out[addr] = c[0]
	}
	return out, nil
}

// ParseCallgrindEvents is ParseCallgrind for every event: the events'
// names (the events: line) and, per instruction address, the self cost of
// each (a line that lists fewer costs leaves the rest 0, as the format
// allows).
func ParseCallgrindEvents(r io.Reader) ([]string, map[uint64][]uint64, error) {
	out := map[uint64][]uint64{}
	var events []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	npos, instr := 1, -1 // positions: line (the default), no instr column
	var last []uint64
	skipNext, sawEvents := false, false
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "positions:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return nil, nil, fmt.Errorf("line %d: positions: names no position", lineNo)
			}
			npos, instr = len(f), -1
			for i, p := range f {
				if p == "instr" {
					instr = i
				}
			}
			last = make([]uint64, npos)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "events:"); ok {
			events = strings.Fields(rest)
			if len(events) == 0 {
				return nil, nil, fmt.Errorf("line %d: events: names no event", lineNo)
			}
			sawEvents = true
			continue
		}
		if strings.HasPrefix(line, "calls=") {
			skipNext = true
			continue
		}
		c := line[0]
		if !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*') {
			continue // fl=, fn=, ob=, summary:, totals: and the like
		}
		if len(last) != npos {
			last = make([]uint64, npos)
		}
		f := strings.Fields(line)
		if len(f) < npos {
			return nil, nil, fmt.Errorf("line %d: %q has fewer than %d positions", lineNo, line, npos)
		}
		for i := 0; i < npos; i++ {
			v, err := position(f[i], last[i])
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			last[i] = v
		}
		if skipNext {
			skipNext = false
			continue
		}
		if instr < 0 || len(f) == npos {
			continue // no instruction addresses, or no cost on the line
		}
		if !sawEvents {
			return nil, nil, fmt.Errorf("line %d: a cost line before the events: line", lineNo)
		}
		if len(f)-npos > len(events) {
			return nil, nil, fmt.Errorf("line %d: %q has more costs than the %d events", lineNo, line, len(events))
		}
		cs := out[last[instr]]
		for len(cs) < len(events) { // a later events: line may name more
			cs = append(cs, 0)
		}
		out[last[instr]] = cs
		for k, t := range f[npos:] {
			cost, err := strconv.ParseUint(t, 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: cost %q: %v", lineNo, t, err)
			}
			cs[k] += cost
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if !sawEvents {
		return nil, nil, fmt.Errorf("not a callgrind profile (no events: line)")
	}
	if instr < 0 {
		return nil, nil, fmt.Errorf("the profile has no instruction addresses (run callgrind with --dump-instr=yes)")
	}
	return events, out, nil
}

// position parses one position field: absolute (decimal or 0x hex),
// relative to the previous one (+n, -n; the same base), or * (the same).
func position(s string, prev uint64) (uint64, error) {
	switch {
	case s == "*":
		return prev, nil
	case strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-"):
		d, err := strconv.ParseUint(s[1:], 0, 64)
		if err != nil {
			return 0, fmt.Errorf("position %q: %v", s, err)
		}
		if s[0] == '-' {
			return prev - d, nil
		}
		return prev + d, nil
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("position %q: %v", s, err)
	}
	return v, nil
}
