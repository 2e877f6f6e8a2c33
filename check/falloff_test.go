package check

import (
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/emu"
	"trampemu/harness"
	"trampemu/regs"
)

// withoutLastReturn is the variant's source with the line before its
// SYM_*_END (the final return) deleted.
func withoutLastReturn(t *testing.T, a *regs.Arch, name string) harness.Tramp {
	t.Helper()
	v, err := harness.FindVariant(a, "", name)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := harness.FromVariant(v)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(tr.Source.Text), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "SYM_FUNC_END(") || strings.HasPrefix(l, "SYM_CODE_END(") {
			lines = append(lines[:i-1:i-1], lines[i:]...)
			tr.Source.Text = []byte(strings.Join(lines, "\n"))
			return tr
		}
	}
	t.Fatalf("%s: no SYM_*_END line", name)
	return tr
}

// TestFallingOffTheEndIsAControlError: return_to_handler without its final
// return runs on past its end, on x86-64 into the padding and ftrace_stub
// (whose ret happens to return where the deleted RET would have), on s390x
// and arm64 into padding that traps; on every arch it is a control error
// naming the symbol and the address past its end, and the unbroken
// variant has none.
func TestFallingOffTheEndIsAControlError(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			for _, broken := range []bool{false, true} {
				tr := withoutLastReturn(t, a, mergedExit(a))
				if !broken {
					v, _ := harness.FindVariant(a, "", mergedExit(a))
					tr, _ = harness.FromVariant(v)
				}
				rs, err := Run(Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2, NoInterrupts: true})
				if err != nil {
					t.Fatal(err)
				}
				var got []Finding
				for _, f := range rs[0].Findings {
					if f.Kind == Control && strings.Contains(f.Summary, "ran off the end of return_to_handler") {
						got = append(got, f)
					}
				}
				if !broken {
					if len(got) > 0 || !rs[0].OK {
						t.Errorf("unbroken rth-merged: %v", rs[0].Findings)
					}
					continue
				}
				if len(got) != 1 || got[0].Severity != Error || got[0].Count != 1 {
					t.Fatalf("want one control error for running off the end, got %v (all: %v)", got, rs[0].Findings)
				}
				if !strings.Contains(got[0].Summary, "into return_to_handler+0x") || !strings.Contains(got[0].Message, "then return_to_handler+0x") {
					t.Errorf("the finding does not say where control went: %s", got[0].Message)
				}
			}
		})
	}
}

func TestFallsThrough(t *testing.T) {
	for f, want := range map[asm.Flow]bool{asm.FlowNone: true, asm.FlowCall: true, asm.FlowIndirectCall: true, asm.FlowCondJump: true,
		asm.FlowCondIndirectJump: true, asm.FlowJump: false, asm.FlowIndirectJump: false, asm.FlowReturn: false, asm.FlowTrap: false} {
		if fallsThrough(f) != want {
			t.Errorf("fallsThrough(%v) = %v, want %v", f, !want, want)
		}
	}
}

// mergedExit is the arch's return_to_handler that passes struct
// ftrace_regs (v6.14+) and passes every check: rth-merged, and on riscv64
// rth-retval (its v6.14 one is broken and its fixed one builds no frame
// record, trampolines.Variants).
func mergedExit(a *regs.Arch) string {
	if a == regs.RISCV64 {
		return "rth-retval"
	}
	return "rth-merged"
}

// TestFallOffsNeedTheCodeToRun: fallOffs reports a symbol only when its
// last instruction ran and so did the address past its end (an executed
// block with a count holds each, or a run stopped at the end), on the
// image of return_to_handler without its return, with blocks made up.
func TestFallOffsNeedTheCodeToRun(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			tr := withoutLastReturn(t, a, mergedExit(a))
			p, err := harness.Pair(a, tr)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := harness.FindUserSet("default")
			if err != nil {
				t.Fatal(err)
			}
			h, err := harness.Start(harness.Setup{Arch: a, Entry: p, Exit: tr}, harness.Options{}, sc)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			im, own := h.Image, h.ExitUnit()
			var last asm.Inst
			var end uint64
			for _, s := range im.Symbols {
				if s.Name == tr.Symbol && s.Size > 0 {
					ins, err := asm.Listing(im, asm.ForImage(im), s.Addr, s.Addr+s.Size)
					if err != nil || len(ins) == 0 {
						t.Fatalf("%s: no listing (%v)", s.Name, err)
					}
					last, end = ins[len(ins)-1], s.Addr+s.Size
				}
			}
			if end == 0 {
				t.Fatalf("no sized symbol %s", tr.Symbol)
			}
			lastB := emu.Block{Addr: last.Addr, Size: last.Len, Insns: 1, Count: 1}
			endB := emu.Block{Addr: end, Size: 4, Insns: 1, Count: 1}
			for _, c := range []struct {
				name   string
				blocks []emu.Block
				stops  []uint64
				want   int
			}{
				{"both ran", []emu.Block{lastB, endB}, nil, 1},
				{"the run stopped past the end", []emu.Block{lastB}, []uint64{end}, 1},
				{"nothing past the end ran", []emu.Block{lastB}, nil, 0},
				{"the block past the end never counted", []emu.Block{lastB, {Addr: end, Size: 4, Insns: 1}}, nil, 0},
				{"only code further on ran", []emu.Block{lastB, {Addr: end + 0x100, Size: 4, Insns: 1, Count: 1}}, nil, 0},
				{"the last instruction never ran", []emu.Block{endB}, nil, 0},
			} {
				got := fallOffs(im, c.blocks, own, c.stops)
				if len(got) != c.want {
					t.Errorf("%s: %d fall-offs %v, want %d", c.name, len(got), got, c.want)
					continue
				}
				if c.want == 1 && (got[0].Symbol != tr.Symbol || got[0].End != end || got[0].Last.Addr != last.Addr) {
					t.Errorf("%s: %+v, want %s ending at %#x", c.name, got[0], tr.Symbol, end)
				}
			}
		})
	}
}
