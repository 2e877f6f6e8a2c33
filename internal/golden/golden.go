package golden

import "strings"

// Line is one line at which a text differs from its golden: N counts from
// 1; a line past the end of one of the texts reads as EndOfText.
type Line struct {
	N         int
	Want, Got string
}

// EndOfText stands for the line of a text that has ended: "a\n" and "a"
// differ at line 2, "" against EndOfText.
const EndOfText = "<end of text>"

// Diff returns the lines at which got differs from want, in order, at most
// limit of them (limit <= 0: every one). Equal texts give none.
func Diff(want, got string, limit int) []Line {
	if want == got {
		return nil
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []Line
	for i := 0; i < max(len(wl), len(gl)) && (limit <= 0 || len(out) < limit); i++ {
		w, g := EndOfText, EndOfText
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			out = append(out, Line{N: i + 1, Want: w, Got: g})
		}
	}
	return out
}
