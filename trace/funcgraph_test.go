package trace

import (
	"fmt"
	"strings"
	"testing"

	"trampemu/ftrace"
)

func graphLogOf(evs ...ftrace.GraphEvent) *GraphLog {
	t := uint64(0)
	l := &GraphLog{Unit: "emulated instructions", Clock: func() uint64 { t += 10; return t },
		Name: func(a uint64) string { return map[uint64]string{1: "outer", 2: "inner", 3: "leaf"}[a] }}
	for _, e := range evs {
		l.Add(e)
	}
	return l
}

func TestGraphLogKernelFormat(t *testing.T) {
	l := graphLogOf(
		ftrace.GraphEvent{User: "graph", Func: 1, Depth: 0},
		ftrace.GraphEvent{User: "graph", Func: 3, Depth: 1},
		ftrace.GraphEvent{User: "graph", Return: true, Func: 3, Depth: 1, Retval: 0x2a, HasRetval: true},
		ftrace.GraphEvent{User: "graph", Func: 2, Depth: 1},
		ftrace.GraphEvent{User: "graph", Func: 3, Depth: 2},
		ftrace.GraphEvent{User: "graph", Return: true, Func: 3, Depth: 2},
		ftrace.GraphEvent{User: "graph", Return: true, Func: 2, Depth: 1, Retval: uint64(0xffffffea), HasRetval: true}, // int -22
		ftrace.GraphEvent{User: "graph", Return: true, Func: 1, Depth: 0, Retval: 0xffff888100000000, HasRetval: true},
	)
	var b strings.Builder
	if err := l.Render(&b); err != nil {
		t.Fatal(err)
	}
	want := `# tracer: function_graph
#
# DURATION: emulated instructions
# (trampemu; the kernel prints microseconds); CPU 0 is the one emulated CPU
#
# graph user: graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  outer() {
 0)   10 insns    |    leaf(); /* = 0x2a */
 0)               |    inner() {
 0)   10 insns    |      leaf();
 0)   30 insns    |    } /* inner = -22 */
 0)   70 insns    |  } /* outer = 0xffff888100000000 */
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestGraphLogReturnWithoutEntry(t *testing.T) {
	l := graphLogOf(ftrace.GraphEvent{User: "g", Return: true, Func: 2, Depth: 0, Retval: 0, HasRetval: true})
	var b strings.Builder
	if err := l.Render(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), " 0)               |  } /* inner = 0x0 */\n") {
		t.Errorf("unmatched return:\n%s", b.String())
	}
}

// A 130-deep chain (the chain workload's depth) stays readable: every line
// within 120 columns, every level present, the braces balanced.
func TestGraphLogDeepChainReadable(t *testing.T) {
	const depth = 130
	var evs []ftrace.GraphEvent
	for d := 0; d < depth; d++ {
		evs = append(evs, ftrace.GraphEvent{User: "graph", Func: 1, Depth: d})
	}
	evs = append(evs, ftrace.GraphEvent{User: "graph", Func: 3, Depth: depth}, ftrace.GraphEvent{User: "graph", Return: true, Func: 3, Depth: depth})
	for d := depth - 1; d >= 0; d-- {
		evs = append(evs, ftrace.GraphEvent{User: "graph", Return: true, Func: 1, Depth: d, Retval: 130, HasRetval: true})
	}
	var b strings.Builder
	if err := graphLogOf(evs...).Render(&b); err != nil {
		t.Fatal(err)
	}
	opens, closes := 0, 0
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if len(line) > 120 {
			t.Fatalf("line of %d columns: %q", len(line), line)
		}
		if strings.HasSuffix(line, "{") || strings.Contains(line, "{ /* depth") {
			opens++
		}
		if strings.Contains(line, "|  ") && strings.Contains(line, "} /*") {
			closes++
		}
	}
	if opens != depth || closes != depth {
		t.Errorf("%d opening and %d closing lines, want %d each", opens, closes, depth)
	}
	if !strings.Contains(b.String(), fmt.Sprintf("leaf(); /* depth %d */", depth)) {
		t.Errorf("the deepest level does not name its depth:\n%s", b.String())
	}
}

func TestRetvalText(t *testing.T) {
	for v, want := range map[uint64]string{0: "0x0", 3: "0x3", ^uint64(0): "-1", uint64(0xfffff001): "-4095",
		uint64(0xfffff000): "0xfffff000", ^uint64(4095): "0xfffffffffffff000", 0x80000000: "0x80000000"} {
		if got := retvalText(v); got != want {
			t.Errorf("retvalText(%#x) = %s, want %s", v, got, want)
		}
	}
}
