package trace

import (
	"strings"
	"testing"

	"trampemu/ftrace"
)

// FuzzGraphLogRender: any sequence of graph events (entries and returns in
// any order, any depth, any return value) renders without panicking, every
// line a comment or a trace line with the CPU column, within the width a
// deep chain is held to.
func FuzzGraphLogRender(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 1, 0, 0x81, 1, 0})
	f.Add([]byte{0x81, 3, 200, 0, 2, 250})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var evs []ftrace.GraphEvent
		for i := 0; i+2 < len(data) && len(evs) < 500; i += 3 {
			op, fn, depth := data[i], data[i+1], data[i+2]
			evs = append(evs, ftrace.GraphEvent{User: []string{"a", "b"}[op&1], Return: op&0x80 != 0,
				Func: uint64(fn % 4), Depth: int(int8(depth)), Retval: uint64(op) << 28, HasRetval: op&0x40 != 0})
		}
		var b strings.Builder
		if err := graphLogOf(evs...).Render(&b); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, " 0) ") {
				t.Fatalf("line %q", line)
			}
			if !strings.HasPrefix(line, "#") && len(line) > 140 {
				t.Fatalf("line of %d columns: %q", len(line), line)
			}
		}
	})
}
