package harness

import (
	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/regs"
)

// BPFUser is the name of the BPF user's ftrace_ops and of the reads it
// makes of the pt_regs it gets.
const BPFUser = "bpf_get_stackid"

// installBPF registers a BPF kprobe_multi program that calls
// bpf_get_stackid on every traced function, as the kernel runs it from an
// fprobe's entry handler (kernel/trace/bpf_trace.c v6.14+
// kprobe_multi_link_handler -> kprobe_multi_link_prog_run:
// ftrace_partial_regs(fregs, bpf_kprobe_multi_pt_regs_ptr())). The
// helper's stack id comes from get_perf_callchain (kernel/events/callchain.c):
// perf_callchain_kernel only when !user_mode(regs), and that walks from the
// pt_regs' instruction pointer, stack pointer and frame pointer
// (x86-64 unwind_start with regs: ip, sp, bp, arch/x86/kernel/unwind_orc.c;
// arm64 kunwind_init_from_regs: pc, regs[29], arch/arm64/kernel/stacktrace.c;
// s390x arch_stack_walk: psw.addr, gprs[15]). Every read goes through the
// observer, so a slot nobody wrote, in the trampoline's frame or in the
// copy, is a stale read. A copy buffer (arm64) is poisoned before each
// call, as every invocation's stack is: what ftrace_partial_regs does not
// write holds nothing the traced call gave it. fixed selects
// ftrace_partial_regs after the arch's last fix of it.
//
// An entry that hands callbacks a full pt_regs (arm64 WITH_REGS, v5.5-v6.1)
// gives the program that pt_regs itself: fprobe then called its handlers
// with ftrace_get_regs(fregs) (kernel/trace/fprobe.c v5.18-v6.13).
func (h *Harness) installBPF(fixed bool) error {
	k, a := h.K, h.Arch
	return k.Ftrace.Register(&ftrace.Ops{Name: "bpf", Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
		if f == nil {
			return // regs = NULL (x86-64 <= v5.10 ftrace_caller): no fprobe there
		}
		pt := f
		if a.PtRegs == nil || f.Layout != a.PtRegs {
			buf, err := k.PartialRegsBuffer()
			if err != nil {
				return
			}
			if buf != nil {
				h.poisonScratch(buf)
			}
			if pt, err = k.PartialRegs(f, fixed); err != nil {
				return
			}
		}
		prev := pt.Swap(BPFUser)
		defer pt.Swap(prev)
		user, err := k.UserMode(pt)
		if err != nil || user {
			return // get_perf_callchain: no kernel stack; bpf_get_stackid -EFAULT
		}
		acc := pt.Layout.Accessors
		for _, n := range []string{acc.IP, acc.SP, acc.FP} {
			pt.Get(n)
		}
	}})
}

// poisonScratch fills buf with the poison pattern of its addresses and
// makes reads of it checked for staleness (observer.stale).
func (h *Harness) poisonScratch(buf *regs.Frame) {
	lo := buf.Base
	hi := lo + uint64(buf.Layout.Size)
	for w := lo; w < hi; w += 8 {
		h.M.WriteWord(w, emu.Poison(w))
	}
	h.scratchLo, h.scratchHi = lo, hi
}

// StackWalk is one stack walk a modelled user made: the chain of return
// addresses it reported (Got, as perf stores them: the regs' ip first),
// the true chain (Want: the traced function's caller, its callers up to
// the driver), and the unwinder's error, if it set one.
type StackWalk struct {
	User string
	Func uint64 // the traced function whose return was probed
	Got  []uint64
	Want []uint64
	Err  string
	// Skipped, when set, says why the user made no walk at this return
	// (Got and Want empty): the check reports it, so a scenario whose
	// walk never ran does not pass as if it had.
	Skipped string
}

// BPFRetUser is the name of the bpf-ret user's fgraph ops.
const BPFRetUser = "bpf-ret"

// installBPFRet registers the return side of a BPF kprobe_multi program
// (kprobe_multi_link_exit_handler, kernel/trace/bpf_trace.c v6.14+,
// through an fprobe exit handler on fgraph): an fgraph user whose
// retfunc gets the exit's ftrace_regs (return_to_handler's, after
// ftrace_return_to_handler set its ip to the real return address),
// takes ftrace_partial_regs of it and walks the stack as
// bpf_get_stackid's perf_callchain_kernel does, with the arch's unwinder
// (harnessArch.retWalk). An exit ABI without ftrace_regs (<= v6.13)
// gives the program nothing to run on, and a pt_regs user_mode() calls
// user gets no kernel stack: no walk, recorded with its reason
// (StackWalk.Skipped). An arch without the hook has no walk (not
// modelled).
func (h *Harness) installBPFRet(v618 bool) error {
	k := h.K
	return k.Graph.Register(&ftrace.GraphOps{Name: BPFRetUser,
		EntryFunc: func(*ftrace.Graph, *ftrace.GraphEnt, *ftrace.GraphOps, *regs.Frame) bool { return true },
		RetFunc: func(_ *ftrace.Graph, trace *ftrace.GraphRet, _ *ftrace.GraphOps, f *regs.Frame) {
			inv := h.inv
			if inv == nil || h.hooks.retWalk == nil {
				return
			}
			if f == nil {
				// fgraph_ret_regs or the frame pointer (<= v6.13): fprobe's
				// exit handlers ran through rethook then, not on fgraph
				// (kernel/trace/fprobe.c v5.18-v6.13).
				inv.StackWalks = append(inv.StackWalks, StackWalk{User: BPFRetUser, Func: trace.Func,
					Skipped: "the exit passes no ftrace_regs (<= v6.13): fprobe's exit handlers ran through rethook then (trampemu fprobe, --fprobe rethook)"})
				return
			}
			// ftrace_partial_regs' copy (arm64: every slot, whether the
			// exit wrote it or not) reads nothing of meaning; the walk's
			// reads that follow are the user's and are observed.
			quiet := *f
			quiet.Obs = nil
			pt, err := k.PartialRegs(&quiet, true)
			if err != nil {
				return
			}
			if pt == &quiet {
				pt = f // in place (x86-64, s390x): perf reads the trampoline's frame
			}
			prev := pt.Swap(BPFRetUser)
			defer pt.Swap(prev)
			if h.hooks.retRegs != nil {
				h.hooks.retRegs(pt, v618)
			}
			if user, err := k.UserMode(pt); err != nil {
				return
			} else if user {
				// get_perf_callchain walks no kernel stack: bpf_get_stackid
				// gets no kernel frames (kernel/events/callchain.c).
				inv.StackWalks = append(inv.StackWalks, StackWalk{User: BPFRetUser, Func: trace.Func,
					Skipped: "user_mode(regs) holds for the pt_regs ftrace_partial_regs filled (its mode field unset), so get_perf_callchain walks no kernel stack"})
				return
			}
			w := h.hooks.retWalk(h, inv, pt)
			w.User, w.Func = BPFRetUser, trace.Func
			inv.StackWalks = append(inv.StackWalks, w)
		}})
}
