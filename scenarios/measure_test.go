package scenarios

import (
	"bytes"
	"strings"
	"testing"

	"trampemu/ftrace"
	"trampemu/regs"
)

// TestPredict checks Predict against numbers worked out by hand from the
// constants: 4 frame words (5 on arm64, HAVE_FUNCTION_GRAPH_FP_TEST); DATA
// word + header (1 or 2) + data words per probe; SHADOW_STACK_MAX_OFFSET
// 492 (491 on arm64); FGRAPH_MAX_DATA_SIZE 32 words.
func TestPredict(t *testing.T) {
	m, v17, two := ftrace.HeaderMerged, ftrace.HeaderV17, ftrace.HeaderTwoWord
	cases := []struct {
		a                              *regs.Arch
		hdr                            ftrace.HeaderEncoding
		probes, data                   int
		words, depth, overrun, nmissed int
	}{
		{regs.X86_64, m, 0, 0, 4, 122, 123, 0},  // 122*4 + 4 = 492: the push is refused
		{regs.S390X, m, 0, 0, 4, 122, 123, 0},   //
		{regs.X86_64, m, 1, 8, 7, 70, 71, 0},    // 4+1+1+1; 70*7 + 4 = 494 >= 492
		{regs.S390X, m, 1, 8, 7, 70, 71, 0},     //
		{regs.X86_64, two, 1, 8, 8, 61, 62, 0},  // two-word header: one more; 61*8 + 4 = 492
		{regs.X86_64, m, 1, 0, 6, 81, 0, 82},    // 81*6 + 4 = 490: push fits, reserve (+2) does not
		{regs.X86_64, m, 1, 4, 7, 70, 71, 0},    // 4 bytes round up to a word
		{regs.X86_64, m, 2, 120, 37, 13, 0, 14}, // 2 x 16 = 32 words: fits once; 13*37 + 4 = 485
		{regs.X86_64, m, 3, 120, 0, 0, 0, 1},    // 48 > 32 words: every reservation fails
		{regs.X86_64, two, 2, 120, 0, 0, 0, 1},  // 2 x 17 = 34 > 32
		{regs.X86_64, v17, 1, 8, 7, 70, 71, 0},  // x86-64 pointers have the 0xf nibble
		{regs.S390X, v17, 1, 8, 0, 0, 0, 0},     // 0x8ff..... not encodable: never traced
		{regs.S390X, two, 1, 8, 8, 61, 62, 0},   // the two-word header encodes anything
		{regs.X86_64, m, 1, 128, 0, 0, 0, 0},    // 16 words: -E2BIG at registration
		{regs.ARM64, m, 0, 0, 5, 98, 99, 0},     // 98*5 + 5 = 495 >= 491: the push is refused
		{regs.ARM64, m, 1, 8, 8, 61, 62, 0},     // 5+1+1+1; 61*8 + 5 = 493 >= 491
		{regs.ARM64, m, 1, 0, 7, 70, 71, 0},     // 70*7 + 5 = 495: the push, not the reservation, fails
		{regs.ARM64, m, 2, 120, 38, 12, 0, 13},  // 12*38 + 5 = 461: push fits, 13*38 = 494 does not
		{regs.ARM64, v17, 1, 8, 8, 61, 62, 0},   // arm64 heap pointers have the 0xf nibble
	}
	for _, c := range cases {
		p := Predict(c.a, c.hdr, c.probes, c.data)
		if p.WordsPerCall != c.words || p.MaxDepth != c.depth || p.FirstOverrun != c.overrun || p.FirstNmissed != c.nmissed {
			t.Errorf("%s %s %d probes %d bytes: got %d words, depth %d, overrun at %d, nmissed at %d; want %d, %d, %d, %d (%s)",
				c.a.Name, c.hdr, c.probes, c.data, p.WordsPerCall, p.MaxDepth, p.FirstOverrun, p.FirstNmissed,
				c.words, c.depth, c.overrun, c.nmissed, p.Why)
		}
		if p.Why == "" {
			t.Errorf("%s %s %d/%d: no explanation", c.a.Name, c.hdr, c.probes, c.data)
		}
	}
}

// TestMeasure runs the default table through the trampolines and checks
// every measurement against Predict, plus the headline numbers.
func TestMeasure(t *testing.T) {
	rows, err := Measure(DefaultMeasureConfig())
	if err != nil {
		t.Fatal(err)
	}
	if want := len(regs.Arches) * (1 + len(ftrace.HeaderEncodings)*3*5); len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	find := func(arch, hdr string, probes, data int) MeasureRow {
		for _, r := range rows {
			if r.Arch == arch && r.Header == hdr && r.Probes == probes && r.DataBytes == data {
				return r
			}
		}
		t.Fatalf("no row %s %s %d %d", arch, hdr, probes, data)
		return MeasureRow{}
	}
	for _, r := range rows {
		if !r.OK {
			t.Errorf("%s %s %d probes %d bytes: measured %d words, depth %d, overrun %d, nmissed %d; predicted %+v",
				r.Arch, r.Header, r.Probes, r.DataBytes, r.WordsPerCall, r.MaxDepth, r.FirstOverrun, r.FirstNmissed, r.Want)
		}
	}
	for _, a := range regs.Arches {
		// 4 frame words and 122 frames below 492; with the FP-test word
		// (arm64) 5 and 98 below 491.
		fp, depth := ftrace.FrameOffsetOf(a)-ftrace.FrameOffset, 122
		if fp != 0 {
			depth = 98
		}
		if r := find(a.Name, "-", 0, 0); r.WordsPerCall != 4+fp || r.MaxDepth != depth || r.FirstOverrun != depth+1 {
			t.Errorf("%s baseline: %+v", a.Name, r)
		}
		if r := find(a.Name, "merged", 1, 8); r.WordsPerCall != 7+fp {
			t.Errorf("%s merged, one probe, 8 bytes: %d words, want %d", a.Name, r.WordsPerCall, 7+fp)
		}
		if r := find(a.Name, "two-word", 1, 8); r.WordsPerCall != 8+fp {
			t.Errorf("%s two-word, one probe, 8 bytes: %d words, want %d", a.Name, r.WordsPerCall, 8+fp)
		}
		if r := find(a.Name, "merged", 2, 120); r.WordsPerCall != 37+fp {
			t.Errorf("%s merged, two 15-word probes: %d words, want %d", a.Name, r.WordsPerCall, 37+fp)
		}
		if r := find(a.Name, "merged", 3, 120); r.WordsPerCall != 0 || r.FirstNmissed != 1 {
			t.Errorf("%s merged, three 15-word probes: %+v, want untraced with nmissed at once", a.Name, r)
		}
	}
	if r := find("s390x", "v17", 1, 8); r.WordsPerCall != 0 || r.MaxDepth != 0 {
		t.Errorf("s390x v17: %+v, want never traced", r)
	}
	if r := find("x86_64", "v17", 1, 8); r.WordsPerCall != 7 {
		t.Errorf("x86-64 v17: %d words, want 7", r.WordsPerCall)
	}
	var buf bytes.Buffer
	if err := WriteMeasureTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(rows)+2 {
		t.Errorf("table has %d lines, want %d", n, len(rows)+2)
	}
}
