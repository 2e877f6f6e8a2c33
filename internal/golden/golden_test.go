package golden

import (
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, c := range []struct {
		name, want, got string
		limit           int
		lines           []Line
	}{
		{"equal", "a\nb\n", "a\nb\n", 0, nil},
		{"one line", "a\nb\nc", "a\nB\nc", 0, []Line{{2, "b", "B"}}},
		{"first line", "a", "b", 0, []Line{{1, "a", "b"}}},
		{"got longer", "a", "a\nx", 0, []Line{{2, EndOfText, "x"}}},
		{"want longer", "a\nx\ny", "a", 0, []Line{{2, "x", EndOfText}, {3, "y", EndOfText}}},
		{"limit", "a\nb\nc", "x\ny\nz", 2, []Line{{1, "a", "x"}, {2, "b", "y"}}},
		{"no limit", "a\nb\nc", "x\ny\nz", 0, []Line{{1, "a", "x"}, {2, "b", "y"}, {3, "c", "z"}}},
		{"trailing newline", "a\n", "a", 0, []Line{{2, "", EndOfText}}},
	} {
		if got := Diff(c.want, c.got, c.limit); !reflect.DeepEqual(got, c.lines) {
			t.Errorf("%s: Diff = %+v, want %+v", c.name, got, c.lines)
		}
	}
}
