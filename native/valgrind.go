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

// ValgrindCount is a pairing's cost per traced call as valgrind counts it
// running the code natively: callgrind's Ir (instructions executed), Dr
// and Dw (data reads and writes, --cache-sim=yes) at the addresses of each
// trampoline's code, divided by the traced calls (graph user on, so both
// trampolines run once per call).
//
// Valgrind's Dr and Dw count the memory accesses of each instruction as
// its VEX translation makes them, the implicit ones of the stack
// instructions included: push and call write one word (call: the return
// address), pop and ret read one, a read-modify-write operand is one read
// and one write. That is the emulated check's rule (asm.Inst: implicit
// stack traffic of call/ret/push/pop included), so the counts are
// compared as they are (TestValgrindMatchesEmulator), with VEX's
// optimiser off so that a dead load is counted (see ValgrindJobs).
type ValgrindCount struct {
	Entry, Exit string
	Calls       int
	// EntryCost and ExitCost are per traced call.
	EntryCost, ExitCost ValgrindCost
}

// ValgrindCost is one trampoline's callgrind counts per traced call.
type ValgrindCost struct {
	Instructions float64 `json:"instructions"`
	Loads        float64 `json:"loads"`
	Stores       float64 `json:"stores"`
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
		p, err := makePlan(j, nil) // instruction counts do not depend on the layout
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
	cmd := exec.Command(vg, "--tool=callgrind", "--cache-sim=yes", "--vex-iropt-level=0", "--dump-instr=yes", "--dump-line=no", "--compress-pos=no", "--compress-strings=no",
		"--instr-atstart=no", "--callgrind-out-file="+out, self)
	// --cache-sim=yes adds the Dr and Dw events. --vex-iropt-level=0:
	// VEX's IR optimiser drops a load whose value nobody uses (as
	// ftrace_caller-v5.10's ftrace_graph_caller loads the parent into %rsi
	// in save_mcount_regs and overwrites it with leaq at once), and
	// callgrind instruments the optimised IR, so it would count one load
	// fewer than the CPU performs; unoptimised, every load is counted.
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
		ev := map[string]int{}
		for k, e := range events {
			ev[e] = k
		}
		for _, e := range []string{"Ir", "Dr", "Dw"} {
			if _, ok := ev[e]; !ok {
				return nil, fmt.Errorf("valgrind count of %s: the profile has no %s event (events: %v)", j.Name(), e, events)
			}
		}
		sum := func(r [2]uint64) ValgrindCost {
			var n [3]uint64
			for addr, c := range costs {
				if addr >= r[0] && addr < r[1] {
					for k, e := range []string{"Ir", "Dr", "Dw"} {
						n[k] += c[ev[e]]
					}
				}
			}
			f := float64(calls)
			return ValgrindCost{Instructions: float64(n[0]) / f, Loads: float64(n[1]) / f, Stores: float64(n[2]) / f}
		}
		counts = append(counts, ValgrindCount{Entry: j.Entry.name(), Exit: j.Exit.name(), EntryCost: sum(ps[i].EntryUnit), ExitCost: sum(ps[i].ExitUnit), Calls: calls})
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
// returns its cost per traced call by variant name: the instructions,
// loads and stores the emulated check reports as the variant's
// (check.Metrics), counted independently on the host CPU. The report's
// exactness table reads it.
func ValgrindCounts(calls int) (map[string]ValgrindCost, error) {
	counts, err := ValgrindJobs(RegistryJobs(), calls)
	if err != nil {
		return nil, err
	}
	out := map[string]ValgrindCost{}
	for _, c := range counts {
		if v, err := harness.FindVariant(Arch, trampolines.Entry, c.Entry); err == nil && v.Pair == c.Exit {
			out[c.Entry] = c.EntryCost
		}
		for _, role := range []trampolines.Role{trampolines.Exit, trampolines.Rethook} {
			if v, err := harness.FindVariant(Arch, role, c.Exit); err == nil && v.Pair == c.Entry {
				out[c.Exit] = c.ExitCost
			}
		}
	}
	return out, nil
}

// ParseCallgrind reads a callgrind profile written with --dump-instr=yes
// and returns the self cost of the first event (Ir) per instruction
// address (ParseCallgrindEvents).
func ParseCallgrind(r io.Reader) (map[uint64]uint64, error) {
	_, costs, err := ParseCallgrindEvents(r)
	if err != nil {
		return nil, err
	}
	out := map[uint64]uint64{}
	for a, c := range costs {
		out[a] = c[0]
	}
	return out, nil
}

// ParseCallgrindEvents reads a callgrind profile written with
// --dump-instr=yes and returns its events (the events: line: Ir, and with
// --cache-sim=yes Dr Dw and the miss counts) and per instruction address
// the self cost of each (a line may omit trailing zero costs). Call cost
// lines (the line after calls=, inclusive cost of the callee) are not
// self cost and are skipped; positions may be absolute, relative (+n, -n)
// or repeated (*), as the format allows.
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
			if events = strings.Fields(rest); len(events) == 0 {
				return nil, nil, fmt.Errorf("line %d: events: names no event", lineNo)
			}
			sawEvents = true
			continue
		}
		if strings.HasPrefix(line, "calls=") {
			skipNext = true
			continue
		}
		if c := line[0]; !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*') {
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
			return nil, nil, fmt.Errorf("line %d: a cost before the events: line", lineNo)
		}
		if len(f)-npos > len(events) {
			return nil, nil, fmt.Errorf("line %d: %d costs for %d events", lineNo, len(f)-npos, len(events))
		}
		c := out[last[instr]]
		if c == nil {
			c = make([]uint64, len(events))
			out[last[instr]] = c
		}
		for i, s := range f[npos:] {
			cost, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: cost %q: %v", lineNo, s, err)
			}
			c[i] += cost
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
