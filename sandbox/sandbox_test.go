package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		err  bool
	}{
		{"64MiB", 64 << 20, false}, {"1GiB", 1 << 30, false}, {"2048K", 2 << 20, false}, {"1048576", 1 << 20, false},
		{"3 G", 3 << 30, false}, {"1KiB", 0, true}, {"lots", 0, true}, {"-1MiB", 0, true}, {"99999999999GiB", 0, true}, {"", 0, true},
	} {
		got, err := ParseSize(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.err)
		}
		if err == nil {
			if back, err := ParseSize(FormatSize(got)); err != nil || back != got {
				t.Errorf("FormatSize(%d) = %q reads back as %d, %v", got, FormatSize(got), back, err)
			}
		}
	}
}

// FuzzParseSize: ParseSize never panics, and what it accepts is in range
// and formats back to itself.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"64MiB", "1G", "1048576", "18446744073709551615", "0K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 1<<20 || n > 1<<40 {
			t.Fatalf("ParseSize(%q) = %d, out of range", s, n)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Fatalf("ParseSize(FormatSize(%d)) = %d, %v", n, back, err)
		}
	})
}

func TestCurrentFromEnv(t *testing.T) {
	t.Setenv(EnvTime, "3s")
	t.Setenv(EnvMemory, "512MiB")
	t.Setenv(EnvOutput, "8MiB")
	l, err := Current()
	if err != nil || l != (Limits{3 * time.Second, 512 << 20, 8 << 20}) {
		t.Fatalf("Current() = %+v, %v", l, err)
	}
	SetLimits(Limits{Time: time.Second})
	l, _ = Current()
	SetLimits(Limits{})
	if l.Time != time.Second || l.Memory != 512<<20 {
		t.Errorf("SetLimits over the environment: %+v", l)
	}
	t.Setenv(EnvTime, "forever")
	if _, err := Current(); err == nil || !strings.Contains(err.Error(), "TRAMPEMU_TIMEOUT=forever") {
		t.Errorf("a bad TRAMPEMU_TIMEOUT: %v", err)
	}
	t.Setenv(EnvTime, "")
	if l, err := Current(); err != nil || l.Time != Defaults.Time {
		t.Errorf("defaults: %+v %v", l, err)
	}
}

func sh(t *testing.T, dir, script string) ([]byte, error) {
	t.Helper()
	p, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	return Run(Cmd{Path: p, Args: []string{"-c", script}, Dir: dir, Outputs: []string{filepath.Join(dir, "big")}})
}

// TestLimits: each limit stops a program that runs into it, fast, with a
// LimitError naming the program, the limit and its variable.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	SetLimits(Limits{Time: time.Second, Memory: 64 << 20, Output: 1 << 20})
	defer SetLimits(Limits{})
	for _, c := range []struct {
		name, script, limit string
	}{
		{"wall clock", "sleep 30", "time"},
		{"child of a child", "sh -c 'sleep 30'; echo", "time"},
		{"a file too big", "head -c 4194304 /dev/zero > big", "output"},
		{"stdout too big", "yes", "output"},
		{"memory", "awk 'BEGIN { s = \"x\"; while (1) s = s s }'", "memory"},
	} {
		os.Remove(filepath.Join(dir, "big"))
		start := time.Now()
		out, err := sh(t, dir, c.script)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != c.limit || le.Program != "sh" {
			t.Errorf("%s: %v (output %.200q), want the %s limit", c.name, err, out, c.limit)
			continue
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: stopped after %v", c.name, d)
		}
		if !strings.Contains(le.Error(), "TRAMPEMU_") {
			t.Errorf("%s: %q names no variable", c.name, le.Error())
		}
	}
	os.Remove(filepath.Join(dir, "big"))
	// A program within its limits: its output, the private environment.
	out, err := sh(t, dir, `echo "$TMPDIR $LC_ALL $CPATH"; pwd`)
	if err != nil || string(out) != dir+" C \n"+dir+"\n" {
		t.Errorf("a good run: %q, %v", out, err)
	}
	// A failing one: its exit status and message, no limit.
	out, err = sh(t, dir, "echo no >&2; exit 3")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || string(out) != "no\n" {
		t.Errorf("a failing run: %q, %v", out, err)
	}
}

func TestTempDirPrivateAndRemoved(t *testing.T) {
	before := Registered()
	dir, done, err := TempDir("trampemu-test-")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v %v, want mode 0700", dir, st, err)
	}
	if Registered() != before+1 {
		t.Errorf("not registered")
	}
	done()
	done()
	if _, err := os.Stat(dir); !os.IsNotExist(err) || Registered() != before {
		t.Errorf("after done: %v, %d registered", err, Registered())
	}
}

// TestSignalRemovesTempDirs: a process killed by SIGTERM or SIGINT while a
// program runs removes its temporary folders and kills the program.
func TestSignalRemovesTempDirs(t *testing.T) {
	if os.Getenv("TRAMPEMU_SANDBOX_CHILD") == "1" {
		dir, _, err := TempDir("trampemu-sigtest-")
		if err != nil {
			os.Exit(3)
		}
		fmt.Println(dir)
		sh(t, dir, "sleep 60 & echo $! > pid; wait")
		os.Exit(4)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalRemovesTempDirs$")
		cmd.Env = append(os.Environ(), "TRAMPEMU_SANDBOX_CHILD=1")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		n, _ := stdout.Read(buf)
		dir := strings.TrimSpace(string(buf[:n]))
		var pid []byte
		for i := 0; i < 100 && len(pid) == 0; i++ {
			time.Sleep(20 * time.Millisecond)
			pid, _ = os.ReadFile(filepath.Join(dir, "pid"))
		}
		if len(pid) == 0 {
			t.Fatalf("%v: the child's program never started (dir %q)", sig, dir)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: child ended with %v, want exit %d", sig, err, 128+int(sig))
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v: %s left behind", sig, dir)
		}
		var p int
		fmt.Sscan(string(pid), &p)
		if p > 0 && running(p) {
			t.Errorf("%v: the program's child (pid %d) still runs", sig, p)
		}
	}
}

// running reports whether pid is alive and not a zombie, a second's grace
// given.
func running(pid int) bool {
	for i := 0; i < 50; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
