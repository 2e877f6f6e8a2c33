package ftrace

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"trampemu/regs"
)

// TestARM64Branch: "b"/"bl" both ways, at the edges of the imm26 range
// (aarch64_insn_gen_branch_imm: [-128 MiB, +128 MiB), a multiple of 4).
func TestARM64Branch(t *testing.T) {
	const pc = 0xffff800080001000
	cases := []struct {
		target uint64
		link   bool
		word   uint32
		err    string
	}{
		{pc, false, 0x14000000, ""},
		{pc - 4, true, 0x97ffffff, ""},
		{pc + 0xffc, true, 0x940003ff, ""},
		{pc + 128<<20 - 4, true, 0x95ffffff, ""},
		{pc - 128<<20, false, 0x16000000, ""},
		{pc + 128<<20, true, 0, "out of the +-128 MiB"},
		{pc - 128<<20 - 4, true, 0, "out of the +-128 MiB"},
		{pc + 2, true, 0, "not a multiple of 4"},
		{0x0000000000001000, true, 0, "out of"},
	}
	for _, c := range cases {
		w, err := ARM64Branch(pc, c.target, c.link)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ARM64Branch(%#x) = %#x, %v; want an error %q", c.target, w, err, c.err)
			}
			continue
		}
		if err != nil || w != c.word {
			t.Errorf("ARM64Branch(%#x, link %v) = %#x, %v; want %#x", c.target, c.link, w, err, c.word)
			continue
		}
		got, link, ok := ARM64DecodeBranch(pc, w)
		if !ok || got != c.target || link != c.link {
			t.Errorf("ARM64DecodeBranch(%#x) = %#x, %v, %v; want %#x, %v", w, got, link, ok, c.target, c.link)
		}
	}
	for _, w := range []uint32{arm64Nop, 0xd65f03c0 /* ret */, 0xaa1e03e9 /* mov x9, x30 */, 0x54000000 /* b.eq */} {
		if _, _, ok := ARM64DecodeBranch(pc, w); ok {
			t.Errorf("ARM64DecodeBranch(%#x): decoded as a b/bl", w)
		}
	}
}

// FuzzARM64Branch: what ARM64Branch encodes decodes back to its target and
// link bit, and every b/bl word re-encodes to itself.
func FuzzARM64Branch(f *testing.F) {
	f.Add(uint64(0xffff800080001004), uint64(0xffff800080002000), uint32(0x940003ff), true)
	f.Add(uint64(0), uint64(1<<40), uint32(arm64Nop), false)
	f.Add(uint64(0xffffffffffffff00), uint64(0x100), uint32(0x17ffffff), false)
	f.Fuzz(func(t *testing.T, pc, target uint64, w uint32, link bool) {
		if enc, err := ARM64Branch(pc, target, link); err == nil {
			got, l, ok := ARM64DecodeBranch(pc, enc)
			if !ok || got != target || l != link {
				t.Fatalf("pc %#x target %#x link %v: %#x decodes to %#x, %v, %v", pc, target, link, enc, got, l, ok)
			}
		}
		if to, l, ok := ARM64DecodeBranch(pc, w); ok {
			again, err := ARM64Branch(pc, to, l)
			if err != nil || again != w {
				t.Fatalf("%#x at %#x -> %#x -> %#x, %v", w, pc, to, again, err)
			}
		}
	})
}

// TestARM64CallOpsLiteral: the literal the kernel writes
// (ftrace_rec_update_ops) is the one the entry loads ("bic x11, x30, #7;
// ldr x11, [x11, #-16]"), with the BL at +4 or, after "bti c", at +8 of
// an 8-byte aligned function, 8 bytes before the function.
func TestARM64CallOpsLiteral(t *testing.T) {
	const fn = 0xffff800080001040
	for _, bl := range []uint64{fn + 4, fn + 8} {
		lit := ARM64CallOpsLiteral(bl)
		if lit != fn-8 {
			t.Errorf("BL at fn+%d: literal at %#x, want fn-8 (%#x)", bl-fn, lit, uint64(fn-8))
		}
		if entry := (bl+4)&^7 - 16; entry != lit {
			t.Errorf("BL at fn+%d: the entry loads %#x, the kernel writes %#x", bl-fn, entry, lit)
		}
	}
	if MustOps(regs.ARM64).CallOpsLiteral == nil || MustOps(regs.X86_64).CallOpsLiteral != nil || MustOps(regs.S390X).CallOpsLiteral != nil {
		t.Error("CALL_OPS is arm64's alone")
	}
}

// newARM64Kernel is a Kernel over flat arm64 memory with one graph user
// that traces everything.
func newARM64Kernel(t *testing.T) (*Kernel, *regs.FlatMemory, *recorder) {
	t.Helper()
	a := regs.ARM64
	mem := regs.NewFlatMemory(a, a.Memory.Heap, a.Memory.Stack)
	rec := &recorder{written: map[string]bool{}}
	k, err := NewKernel(KernelConfig{Arch: a, Mem: mem, Heap: NewHeap(a.Memory.Heap), ReturnToHandler: a.Memory.Stubs.Base + 0x40, Obs: rec})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Graph.Register(&GraphOps{Name: "all", EntryFunc: accept}); err != nil {
		t.Fatal(err)
	}
	return k, mem, rec
}

// recorder is an Observer that keeps which slots were written and lists
// the reads of slots nothing wrote, as the harness's stale-read test does.
type recorder struct {
	written map[string]bool
	reads   []string
	stale   []string
}

func key(f *regs.Frame, s regs.Slot) string { return fmt.Sprintf("%s.%s", f.Layout.Name, s.Name) }

func (r *recorder) SlotRead(f *regs.Frame, s regs.Slot, addr, v uint64, acc string) {
	r.reads = append(r.reads, key(f, s))
	if !r.written[key(f, s)] {
		r.stale = append(r.stale, key(f, s))
	}
}
func (r *recorder) SlotWrite(f *regs.Frame, s regs.Slot, addr, v uint64, acc string) {
	r.written[key(f, s)] = true
}
func (r *recorder) StackRead(f *regs.Frame, addr, v uint64, acc string) {}

// TestARM64GraphFunc: ftrace_graph_func hooks fregs->lr and files the
// frame under fregs->fp (arch/arm64/kernel/ftrace.c); the return through
// an ftrace_regs built by return_to_handler finds it; the old graph path's
// prepare_ftrace_return(ip, &lr, fp) does the same with a pointer.
func TestARM64GraphFunc(t *testing.T) {
	k, mem, _ := newARM64Kernel(t)
	a := regs.ARM64
	const ip, ret, fp = 0xffff800080001004, 0xffff800080005678, 0xffff80008803ff00
	fregs := k.Frame(a.Memory.Stack.Base+0x1000, a.Frame)
	fregs.Set("lr", ret)
	fregs.Set("fp", fp)
	if err := k.EnableGraphViaOps(); err != nil {
		t.Fatal(err)
	}
	k.Ftrace.Dispatch(ip, ret, fregs)
	if lr, _ := fregs.Get("lr"); lr != k.RTH {
		t.Fatalf("fregs->lr = %#x, want return_to_handler %#x", lr, k.RTH)
	}
	frames, err := k.Graph.Frames()
	if err != nil || len(frames) != 1 || frames[0].Ret != ret || frames[0].Func != ip || frames[0].Retp != fp {
		t.Fatalf("shadow stack %+v, %v; want one frame {ret %#x, func %#x, retp = fp %#x}", frames, err, uint64(ret), uint64(ip), uint64(fp))
	}
	exit := k.Frame(a.Memory.Stack.Base+0x2000, a.Frame)
	exit.Set("fp", fp)
	got, fn, err := k.ReturnToHandler(ExitFregs, exit.Base)
	if err != nil || got != ret || fn != ip {
		t.Fatalf("ReturnToHandler = %#x, %#x, %v; want %#x, %#x", got, fn, err, uint64(ret), uint64(ip))
	}
	if pc, _ := exit.Get("pc"); pc != ret {
		t.Errorf("fregs->pc after the return = %#x, want the original return address", pc)
	}

	// v5.10: ftrace_graph_caller passes &regs->regs[30] and the fp.
	pt := k.Frame(a.Memory.Stack.Base+0x3000, a.PtRegs)
	pt.Set("lr", ret)
	slot := pt.Base + uint64(a.PtRegs.MustSlot("lr").Off)
	call, err := k.PrepareFtraceReturn(PrepareIPParentFP, [3]uint64{ip, slot, fp})
	if err != nil || call.Func != ip || call.Returns {
		t.Fatalf("PrepareFtraceReturn = %+v, %v", call, err)
	}
	if mem.ReadWord(slot) != k.RTH {
		t.Errorf("regs[30] = %#x, want return_to_handler", mem.ReadWord(slot))
	}
	if frames, _ := k.Graph.Frames(); len(frames) != 1 || frames[0].Retp != fp {
		t.Errorf("old graph path: frames %+v, want retp = fp %#x", frames, uint64(fp))
	}
}

// TestARM64PartialRegs: ftrace_partial_regs copies x0-x8, sp, pc, fp and
// lr; before fd2f74f8f3d3 it left pstate alone, so a never-written pstate
// is read and user_mode() holds (bpf_get_stackid's -EFAULT); after it,
// pstate is EL1h. An exit ftrace_regs that never got sp is read stale.
func TestARM64PartialRegs(t *testing.T) {
	a := regs.ARM64
	for _, fixed := range []bool{false, true} {
		t.Run(fmt.Sprintf("fixed=%v", fixed), func(t *testing.T) {
			k, _, rec := newARM64Kernel(t)
			fregs := k.Frame(a.Memory.Stack.Base+0x1000, a.Frame)
			// what v6.14's return_to_handler and ftrace_return_to_handler write
			for i := 0; i < 8; i++ {
				fregs.Set(fmt.Sprintf("x%d", i), uint64(100+i))
			}
			fregs.Set("fp", 0xffff80008803ff00)
			fregs.Set("pc", 0xffff800080005678)
			rec.stale = nil
			p, err := k.PartialRegs(fregs, fixed)
			if err != nil {
				t.Fatal(err)
			}
			wantStale := []string{"ftrace_regs.x8", "ftrace_regs.lr", "ftrace_regs.sp"}
			for _, w := range wantStale {
				if !strings.Contains(strings.Join(rec.stale, " "), w) {
					t.Errorf("stale reads %v, want %s among them", rec.stale, w)
				}
			}
			if len(rec.reads) != 13 {
				t.Errorf("ftrace_partial_regs read %d slots (%v), want 13: x0-x8, sp, pc, fp, lr", len(rec.reads), rec.reads)
			}
			if v, _ := p.Get("x3"); v != 103 {
				t.Errorf("pt_regs x3 = %d, want 103", v)
			}
			if v, _ := p.Get("pc"); v != 0xffff800080005678 {
				t.Errorf("pt_regs pc = %#x", v)
			}
			rec.stale = nil
			user, err := k.UserMode(p)
			if err != nil {
				t.Fatal(err)
			}
			staleP := strings.Contains(strings.Join(rec.stale, " "), "pt_regs.pstate")
			if user == fixed || staleP == fixed {
				t.Errorf("user_mode = %v, pstate read stale %v; want %v, %v", user, staleP, !fixed, !fixed)
			}
		})
	}
	// x86-64 and s390x: ftrace_regs holds the pt_regs, handed over as it is;
	// user_mode reads CS & 3 / psw.mask & PSW_MASK_PSTATE of it.
	for _, c := range []struct {
		arch       *regs.Arch
		slot       string
		kern, user uint64
	}{{regs.X86_64, "CS", 0, 0x33}, {regs.S390X, "psw.mask", 0x0400000180000000, 0x0705000180000000}} {
		a := c.arch
		k, err := NewKernel(KernelConfig{Arch: a, Mem: regs.NewFlatMemory(a, a.Memory.Heap), Heap: NewHeap(a.Memory.Heap)})
		if err != nil {
			t.Fatal(err)
		}
		fregs := k.Frame(a.Memory.Heap.Base, a.Frame)
		for _, fixed := range []bool{false, true} {
			p, err := k.PartialRegs(fregs, fixed)
			if err != nil || p != fregs {
				t.Fatalf("%s: ftrace_partial_regs = %v, %v; want the ftrace_regs itself", a.Name, p, err)
			}
		}
		if buf, err := k.PartialRegsBuffer(); buf != nil || err != nil {
			t.Errorf("%s: a copy buffer %v, %v; want none", a.Name, buf, err)
		}
		for _, want := range []bool{false, true} {
			v := c.kern
			if want {
				v = c.user
			}
			fregs.Set(c.slot, v)
			if got, err := k.UserMode(fregs); err != nil || got != want {
				t.Errorf("%s: user_mode with %s = %#x: %v, %v; want %v", a.Name, c.slot, v, got, err, want)
			}
		}
		if _, err := k.PartialRegs(nil, true); !errors.Is(err, EINVAL) {
			t.Errorf("%s: NULL fregs: %v, want EINVAL", a.Name, err)
		}
	}
}

// TestARM64SetOpsFunc: the CALL_OPS entry calls [op + FTRACE_OPS_FUNC].
func TestARM64SetOpsFunc(t *testing.T) {
	k, mem, _ := newARM64Kernel(t)
	k.SetOpsFunc(0xffff800080f00010)
	if got := mem.ReadWord(k.FunctionTraceOp + regs.ARM64FtraceOpsFunc); got != 0xffff800080f00010 {
		t.Errorf("op->func = %#x", got)
	}
}

// TestARM64FPTest: with HAVE_FUNCTION_GRAPH_FP_TEST arm64's struct
// ftrace_ret_stack is {ret, func, fp, retp} (FGRAPH_FRAME_OFFSET 4, a
// traced call of a user that reserves nothing takes 5 words), and a return
// with another frame pointer stops graph tracing with "Bad frame pointer";
// x86-64 and s390x keep 3 words and ignore the frame pointer.
func TestARM64FPTest(t *testing.T) {
	for _, c := range []struct {
		arch  *regs.Arch
		off   int
		fpErr bool
	}{{regs.X86_64, 3, false}, {regs.S390X, 3, false}, {regs.ARM64, 4, true}} {
		t.Run(c.arch.Name, func(t *testing.T) {
			a := c.arch
			if FrameOffsetOf(a) != c.off || ShadowStackMaxOffsetOf(a) != ShadowStackWords-(c.off+1+ArraySize) {
				t.Fatalf("FGRAPH_FRAME_OFFSET %d, max offset %d; want %d", FrameOffsetOf(a), ShadowStackMaxOffsetOf(a), c.off)
			}
			e := newEnv(t, a)
			if err := e.g.Register(&GraphOps{Name: "all", EntryFunc: accept}); err != nil {
				t.Fatal(err)
			}
			const fp, retp = 0x1234560, 0x7654320
			if !e.g.Enter(e.caller(0), e.fn(0), fp, retp, e.fregs) {
				t.Fatal("not traced")
			}
			if w := e.g.Stats().LastFrameWords; w != c.off+1 {
				t.Errorf("frame words %d, want %d", w, c.off+1)
			}
			frames, err := e.g.Frames()
			if err != nil || len(frames) != 1 || frames[0].Retp != retp || frames[0].Func != e.fn(0) {
				t.Fatalf("frames %+v, %v", frames, err)
			}
			if c.fpErr != (frames[0].FP == fp) {
				t.Errorf("fp word %#x (FP test %v)", frames[0].FP, c.fpErr)
			}
			if got := e.g.RetAddr(new(int), e.rth, retp); got != e.caller(0) {
				t.Errorf("ftrace_graph_ret_addr = %#x, want %#x", got, e.caller(0))
			}
			ret, err := e.g.ReturnFP(e.fregs, fp+16)
			switch {
			case c.fpErr && (!errors.Is(err, ErrBadFramePointer) || !e.g.Stopped() || !e.g.Warned(WarnBadFramePointer)):
				t.Errorf("return with another fp: %#x, %v (stopped %v): want Bad frame pointer", ret, err, e.g.Stopped())
			case !c.fpErr && (err != nil || ret != e.caller(0)):
				t.Errorf("return: %#x, %v; want %#x (no FP test)", ret, err, e.caller(0))
			}
			if corrupt := e.g.Stats().Corrupt; corrupt != map[bool]uint64{true: 1, false: 0}[c.fpErr] {
				t.Errorf("corrupt returns counted %d (FP test %v)", corrupt, c.fpErr)
			}
		})
	}
	// The same fp comes back: the return goes through.
	e := newEnv(t, regs.ARM64)
	if err := e.g.Register(&GraphOps{Name: "all", EntryFunc: accept}); err != nil {
		t.Fatal(err)
	}
	e.g.Enter(e.caller(1), e.fn(1), 0xabc0, 0xdef0, e.fregs)
	if ret, err := e.g.ReturnFP(e.fregs, 0xabc0); err != nil || ret != e.caller(1) {
		t.Errorf("return with the entry's fp: %#x, %v", ret, err)
	}
	e.empty()
}

// TestARM64PrepareArgOrders: the -pg eras' ftrace_graph_caller passes the
// traced function's saved-lr slot (in its frame record on the stack) and
// its caller's fp in both orders: v4.19 prepare_ftrace_return(&lr, pc,
// fp), v5.0 (pc, &lr, fp). Either way the slot gets return_to_handler and
// the frame is the traced function's.
func TestARM64PrepareArgOrders(t *testing.T) {
	a := regs.ARM64
	const ip, ret, fp = 0xffff800080001020, 0xffff800080005678, 0xffff80008803ff00
	for _, c := range []struct {
		abi  PrepareABI
		args func(slot uint64) [3]uint64
	}{
		{PrepareParentIPFP, func(slot uint64) [3]uint64 { return [3]uint64{slot, ip, fp} }},
		{PrepareIPParentFP, func(slot uint64) [3]uint64 { return [3]uint64{ip, slot, fp} }},
	} {
		k, mem, _ := newARM64Kernel(t)
		if err := k.EnableGraphViaOps(); err != nil {
			t.Fatal(err)
		}
		slot := a.Memory.Stack.Base + 0x1008 // the lr of a frame record {fp, lr}
		mem.WriteWord(slot, ret)
		call, err := k.PrepareFtraceReturn(c.abi, c.args(slot))
		if err != nil || call.Func != ip || call.Returns {
			t.Fatalf("abi %d: PrepareFtraceReturn = %+v, %v", c.abi, call, err)
		}
		if got := mem.ReadWord(slot); got != k.RTH {
			t.Errorf("abi %d: the saved lr = %#x, want return_to_handler", c.abi, got)
		}
		if frames, _ := k.Graph.Frames(); len(frames) != 1 || frames[0].Ret != ret || frames[0].Func != ip {
			t.Errorf("abi %d: frames %+v, want {ret %#x, func %#x}", c.abi, frames, uint64(ret), uint64(ip))
		}
	}
}
