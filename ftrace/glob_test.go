package ftrace

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"fprobe_selftest_target*", "fprobe_selftest_target", true},
		{"fprobe_selftest_target*", "fprobe_selftest_target2", true},
		{"fprobe_selftest_target*", "fprobe_selftest_targe", false},
		{"*target?", "fprobe_selftest_target2", true},
		{"*target?", "fprobe_selftest_target", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"a*b", "ab", true}, // '*' matching nothing in the middle
		{"[!a]", "!", true}, // the '!' negates, it is no member
		{"[!a]", "a", false},
		{"[a-c]x", "bx", true},
		{"[!a-c]x", "bx", false},
		{"[!a-c]x", "dx", true},
		{"[]]", "]", true},
		{"[a-]", "-", true},
		{"[", "[", true}, // malformed class is literal
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"", "", true},
		{"", "a", false},
		{"?", "", false},
	}
	for _, tc := range tests {
		if got := GlobMatch(tc.pat, tc.s); got != tc.want {
			t.Errorf("GlobMatch(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
}
