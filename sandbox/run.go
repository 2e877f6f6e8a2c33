package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Cmd is one run of a toolchain program.
type Cmd struct {
	// Path is the program (from exec.LookPath); Args its arguments.
	Path string
	Args []string
	// Dir is its working directory: a folder of the tool's own (a core
	// dump or a relative file name must not land in the user's folder).
	// Required.
	Dir string
	// Tmp is its TMPDIR and HOME (where GNU patch, gcc and git put their
	// own files): a folder of the tool's own. Empty: Dir.
	Tmp string
	// Env is added to the cleaned environment (NAME=value).
	Env []string
	// Outputs are the files it writes: when it fails and one of them has
	// reached the output limit, the error is the output limit's.
	Outputs []string
}

// LimitError is a program stopped by one of the limits.
type LimitError struct {
	Program string // base name: cpp, x86_64-linux-gnu-as
	Limit   string // "time", "memory" or "output"
	Value   string // 10s, 1GiB, 64MiB
	Env     string // the variable that sets it
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "time":
		return fmt.Sprintf("%s ran past its %s time limit (an input that makes it loop or explode; %s sets the limit)", e.Program, e.Value, e.Env)
	case "memory":
		return fmt.Sprintf("%s ran out of its %s memory limit (an input that makes it explode; %s sets the limit)", e.Program, e.Value, e.Env)
	default:
		return fmt.Sprintf("%s wrote more than its %s output limit (an input that makes it explode; %s sets the limit)", e.Program, e.Value, e.Env)
	}
}

// ToolError is a program that is not installed.
type ToolError struct{ Program, Package string }

func (e *ToolError) Error() string {
	return fmt.Sprintf("%s not found in PATH: install the Debian package %s (make deps does it)", e.Program, e.Package)
}

// dropEnv are variables that make cpp, gcc or git read or write files
// other than those on their command line.
var dropEnv = []string{"CPATH=", "C_INCLUDE_PATH=", "CPLUS_INCLUDE_PATH=", "OBJC_INCLUDE_PATH=",
	"DEPENDENCIES_OUTPUT=", "SUNPRO_DEPENDENCIES=", "GCC_EXEC_PREFIX=", "COMPILER_PATH=", "LIBRARY_PATH=",
	"GCC_COMPARE_DEBUG=", "TMPDIR=", "HOME=", "LC_ALL=", "LANG=", "GIT_", "PATCH_", "SIMPLE_BACKUP_SUFFIX=",
	"VERSION_CONTROL=", "QUOTING_STYLE=", "POSIXLY_CORRECT="}

func cleanEnv(tmp, ceiling string, extra []string) []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		for _, d := range dropEnv {
			if strings.HasPrefix(kv, d) {
				continue next
			}
		}
		env = append(env, kv)
	}
	// Messages in English (they are parsed); temporary files and git's
	// configuration in the tool's own folder; no git repository above the
	// working directory.
	env = append(env, "LC_ALL=C", "TMPDIR="+tmp, "HOME="+tmp, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES="+ceiling)
	return append(env, extra...)
}

// capped keeps the first max bytes written and calls over once when more
// come.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  uint64
	full bool
	over func()
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return 0, errors.New("output limit")
	}
	if uint64(c.buf.Len()+len(p)) > c.max {
		c.full = true
		c.over()
		return 0, errors.New("output limit")
	}
	return c.buf.Write(p)
}

var (
	groupsMu sync.Mutex
	groups   = map[int]bool{} // process groups running now
)

// Run runs c under the current limits and returns its stdout and stderr
// together. A program that fails returns its output and an
// *exec.ExitError; one a limit stopped returns a *LimitError; a missing
// prlimit is a *ToolError.
func Run(c Cmd) ([]byte, error) {
	l, err := Current()
	if err != nil {
		return nil, err
	}
	if c.Dir == "" {
		return nil, errors.New("sandbox: no working directory given")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		return nil, &ToolError{Program: "prlimit", Package: "util-linux"}
	}
	installHandler()
	secs := int(math.Ceil(l.Time.Seconds()))
	args := []string{fmt.Sprintf("--as=%d", l.Memory), fmt.Sprintf("--fsize=%d", l.Output),
		fmt.Sprintf("--cpu=%d", secs), "--core=0", "--"}
	ctx, cancel := context.WithTimeout(context.Background(), l.Time)
	defer cancel()
	cmd := exec.CommandContext(ctx, prlimit, append(append(args, c.Path), c.Args...)...)
	cmd.Dir = c.Dir
	tmp := c.Tmp
	if tmp == "" {
		tmp = c.Dir
	}
	cmd.Env = cleanEnv(tmp, filepath.Dir(c.Dir), c.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out := &capped{max: l.Output, over: cancel}
	cmd.Stdout, cmd.Stderr = out, out
	prog := baseName(c.Path)
	limit := func(kind string) error {
		e := &LimitError{Program: prog, Limit: kind}
		switch kind {
		case "time":
			e.Value, e.Env = l.Time.String(), EnvTime
		case "memory":
			e.Value, e.Env = FormatSize(l.Memory), EnvMemory
		default:
			e.Value, e.Env = FormatSize(l.Output), EnvOutput
		}
		return e
	}
	groupsMu.Lock()
	if stopping {
		groupsMu.Unlock()
		select {} // the signal handler is removing the folders and exits
	}
	err = cmd.Start()
	if err == nil {
		groups[cmd.Process.Pid] = true
	}
	groupsMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", prog, err)
	}
	err = cmd.Wait()
	groupsMu.Lock()
	delete(groups, cmd.Process.Pid)
	if stopping {
		// Killed by the signal handler, which exits once the folders
		// are gone: nothing more happens here.
		groupsMu.Unlock()
		select {}
	}
	groupsMu.Unlock()
	// Whatever is left of its group (cc1 under a killed cpp) goes too.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	text := out.buf.Bytes()
	if err == nil {
		return text, nil
	}
	out.mu.Lock()
	full := out.full
	out.mu.Unlock()
	var ee *exec.ExitError
	switch {
	case full:
		return text, limit("output")
	case ctx.Err() != nil:
		return text, limit("time")
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGXFSZ:
				return text, limit("output")
			case syscall.SIGXCPU, syscall.SIGKILL:
				return text, limit("time")
			}
		}
		for _, f := range c.Outputs {
			if st, e := os.Stat(f); e == nil && uint64(st.Size()) >= l.Output {
				return text, limit("output")
			}
		}
		s := string(text)
		for _, m := range []string{"File size limit exceeded", "signal 25"} {
			if strings.Contains(s, m) {
				return text, limit("output")
			}
		}
		for _, m := range []string{"out of memory", "memory exhausted", "Cannot allocate memory", "std::bad_alloc"} {
			if strings.Contains(s, m) {
				return text, limit("memory")
			}
		}
		if strings.Contains(s, "CPU time limit exceeded") {
			return text, limit("time")
		}
		return text, err
	}
	return text, fmt.Errorf("%s: %w", prog, err)
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
