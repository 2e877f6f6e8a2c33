package native

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// childEnv carries the child's task (a childTask in JSON).
const childEnv = "TRAMPEMU_NATIVE_JOB"

// childTask is what a child process does with the plan it reads first
// from stdin: serve samples of its pairing on stdin/stdout pinned to CPU,
// or (Count > 0) run Count traced calls once (for valgrind).
type childTask struct {
	Job   Job `json:"job"`
	CPU   int `json:"cpu"`
	Count int `json:"count,omitempty"`
}

// sampleTimeout bounds one sample: a trampoline stuck in a loop kills its
// child instead of hanging the run.
const sampleTimeout = 20 * time.Second

// child is a running child process serving samples of one pairing.
type child struct {
	job   Job
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	errb  bytes.Buffer
	timer *time.Timer
}

// checkCanStart refuses to start a child from a child (an executable
// without RunChildIfAsked would recurse) and finds this executable.
func checkCanStart(j Job) (string, error) {
	if j.Arch != "" && j.Arch != Arch.Name {
		return "", fmt.Errorf("native timing runs x86-64 code on the host; %s is timed in the emulator only (trampemu check, BenchmarkTracedCall)", j.Arch)
	}
	if err := Supported(); err != nil {
		return "", err
	}
	if os.Getenv(childEnv) != "" {
		return "", fmt.Errorf("native: this executable does not call native.RunChildIfAsked first thing in main (or TestMain)")
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("native: finding this executable to run the child: %w", err)
	}
	return self, nil
}

// startChild starts a child for j pinned to cpu, sends it the plan and
// waits until it has mapped the pairing.
func startChild(j Job, p *plan, cpu int) (*child, error) {
	self, err := checkCanStart(j)
	if err != nil {
		return nil, err
	}
	task, err := json.Marshal(childTask{Job: j, CPU: cpu})
	if err != nil {
		return nil, err
	}
	c := &child{job: j, cmd: exec.Command(self)}
	c.cmd.Env = childEnviron(childEnv + "=" + string(task))
	c.cmd.Stderr = &c.errb
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = bufio.NewReader(stdout)
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("native: starting the child for %s: %w", j.Name(), err)
	}
	c.timer = time.AfterFunc(time.Minute, func() { c.cmd.Process.Kill() })
	if err := sendPlan(c.in, p); err != nil {
		c.timer.Stop()
		return nil, c.failed("sending the plan", err)
	}
	line, err := c.out.ReadString('\n')
	c.timer.Stop()
	if err != nil || strings.TrimSpace(line) != "ready" {
		return nil, c.failed("setting up", err)
	}
	return c, nil
}

// sample times calls calls of add(1, 2) in mode m after warmup calls, in
// ns per call.
func (c *child) sample(m Mode, warmup, calls int) (float64, error) {
	c.timer.Reset(sampleTimeout)
	defer c.timer.Stop()
	if _, err := fmt.Fprintf(c.in, "%s %d %d\n", m, warmup, calls); err != nil {
		return 0, c.failed(string(m), err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		return 0, c.failed(string(m), err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
	if err != nil {
		return 0, c.failed(string(m), fmt.Errorf("answer %q: %v", line, err))
	}
	return v, nil
}

// failed reaps a child that stopped answering and explains why.
func (c *child) failed(what string, err error) error {
	c.cmd.Process.Kill()
	werr := c.cmd.Wait()
	why := crashLines(c.errb.String())
	if !strings.HasPrefix(why, "native child:") {
		why = "the trampolines crashed the child process (a fault, or control lost); 'trampemu check' and 'trampemu trace' show where in the emulator: " + why
	}
	if werr == nil {
		werr = err
	}
	return fmt.Errorf("native run of %s failed (%s: %v): %s", c.job.Name(), what, werr, why)
}

// childEnviron is this process's environment plus extra for a child; in a
// race-detector build the child would sleep a second on exit
// (GORACE atexit_sleep_ms defaults to 1000), once per child and
// generation, so that is turned off.
func childEnviron(extra ...string) []string {
	env := os.Environ()
	race := "atexit_sleep_ms=0"
	for i, e := range env {
		if v, ok := strings.CutPrefix(e, "GORACE="); ok {
			race = v + " " + race
			env = append(env[:i:i], env[i+1:]...)
			break
		}
	}
	return append(append(env, "GORACE="+race), extra...)
}

// close ends the child.
func (c *child) close() {
	fmt.Fprintln(c.in, "quit")
	c.in.Close()
	done := time.AfterFunc(5*time.Second, func() { c.cmd.Process.Kill() })
	c.cmd.Wait()
	done.Stop()
}

// RunChildIfAsked runs the native task and exits when this process is a
// child started by this package; otherwise it returns at once.
func RunChildIfAsked() {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	var t childTask
	if err := json.Unmarshal([]byte(spec), &t); err != nil {
		fmt.Fprintf(os.Stderr, "native child: bad task %q: %v\n", spec, err)
		os.Exit(3)
	}
	var err error
	if t.Count > 0 {
		err = countHere(t, os.Stdin, os.Stdout)
	} else {
		err = serveHere(t, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "native child: %v\n", err)
		os.Exit(3)
	}
	os.Exit(0)
}
