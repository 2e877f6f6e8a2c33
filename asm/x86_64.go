package asm

import (
	"debug/elf"
	"fmt"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"trampemu/regs"
)

// x86Asm: x86-64 objects (EM_X86_64), the kernel's x86 macros and the
// golang.org/x/arch x86asm disassembler.
var x86Asm = &asmArch{
	arch:         regs.X86_64,
	elfMachine:   elf.EM_X86_64,
	prelude:      x86Prelude,
	disassembler: func(sym Symbolizer) Disassembler { return x86Dis{sym: sym} },
}

// x86Prelude: the x86-64 part of the prelude (see commonPrelude).
const x86Prelude = `
#define CONFIG_X86_64 1
#define CONFIG_64BIT 1
#define __x86_64__ 1
#define RET ret
#define ENDBR endbr64
/* arch/x86/include/asm/linkage.h (v5.18+): with CONFIG_X86_KERNEL_IBT
   every SYM_FUNC_START* opens with ENDBR (asm/ibt.h: endbr64). ENDBR
   written out is endbr64 whatever the options. */
#ifdef CONFIG_X86_KERNEL_IBT
#undef SYM_FUNC_START
#undef SYM_FUNC_START_NOALIGN
#undef SYM_FUNC_START_LOCAL
#undef SYM_FUNC_START_LOCAL_NOALIGN
#undef SYM_FUNC_START_WEAK
#undef SYM_FUNC_START_WEAK_NOALIGN
#undef SYM_TYPED_FUNC_START
#define SYM_FUNC_START(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_ALIGN) ASM_NL ENDBR
#define SYM_FUNC_START_NOALIGN(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_NONE) ASM_NL ENDBR
#define SYM_FUNC_START_LOCAL(name) SYM_START(name, SYM_L_LOCAL, SYM_A_ALIGN) ASM_NL ENDBR
#define SYM_FUNC_START_LOCAL_NOALIGN(name) SYM_START(name, SYM_L_LOCAL, SYM_A_NONE) ASM_NL ENDBR
#define SYM_FUNC_START_WEAK(name) SYM_START(name, SYM_L_WEAK, SYM_A_ALIGN) ASM_NL ENDBR
#define SYM_FUNC_START_WEAK_NOALIGN(name) SYM_START(name, SYM_L_WEAK, SYM_A_NONE) ASM_NL ENDBR
#define SYM_TYPED_FUNC_START(name) SYM_FUNC_START(name)
#endif
#define _ASM_PTR .quad
/* arch/x86/include/asm/nospec-branch.h: the register is "%rdi" up to
   v5.9 and a bare "rdi" from v5.10 ("x86/retpoline: Simplify retpolines");
   both are taken. The retpoline thunk is the plain indirect branch it
   stands for (the tool runs no speculation). */
.macro __NOSPEC_BRANCH insn:req, reg:req
	.irp r,rax,rbx,rcx,rdx,rsi,rdi,rbp,rsp,r8,r9,r10,r11,r12,r13,r14,r15
	.ifc \reg,\r
	\insn *%\r
	.endif
	.ifc \reg,%\r
	\insn *%\r
	.endif
	.endr
.endm
.macro JMP_NOSPEC reg:req
	__NOSPEC_BRANCH jmp, \reg
.endm
.macro CALL_NOSPEC reg:req
	__NOSPEC_BRANCH call, \reg
.endm
/* arch/x86/include/asm/frame.h: with CONFIG_FRAME_POINTER, rbp points
   one byte past the pt_regs so the unwinder knows a regs frame */
#ifdef CONFIG_FRAME_POINTER
.macro ENCODE_FRAME_POINTER ptregs_offset=0
	leaq 1+\ptregs_offset(%rsp), %rbp
.endm
#else
.macro ENCODE_FRAME_POINTER ptregs_offset=0
.endm
#endif
`

// x86Dis decodes x86-64 with golang.org/x/arch/x86/x86asm.
type x86Dis struct{ sym Symbolizer }

func (d x86Dis) Decode(code []byte, pc uint64) (in Inst, err error) {
	defer func() {
		if r := recover(); r != nil {
			in, err = Inst{}, fmt.Errorf("x86 decoder failed on % x: %v", code, r)
		}
	}()
	// ENDBR64 / ENDBR32 (f3 0f 1e fa/fb): x86asm decodes them as a lone REP.
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb) {
		op := "endbr64"
		if code[3] == 0xfb {
			op = "endbr32"
		}
		return Inst{Addr: pc, Len: 4, Bytes: code[:4], Op: op, Text: op, MemKnown: true}, nil
	}
	x, err := x86asm.Decode(code, 64)
	if err != nil {
		return Inst{}, fmt.Errorf("invalid x86-64 instruction at %#x (% x): %v", pc, prefixBytes(code, 8), err)
	}
	in = Inst{Addr: pc, Len: x.Len, Bytes: code[:x.Len]}
	in.Op = strings.ToLower(x.Op.String())
	var target uint64
	hasTarget := false
	for _, a := range x.Args {
		if r, ok := a.(x86asm.Rel); ok {
			target = pc + uint64(x.Len) + uint64(int64(r))
			hasTarget = true
		}
	}
	in.Text = gnuSuffixes(x86asm.GNUSyntax(x, pc, nil))
	for _, a := range x.Args {
		if m, ok := a.(x86asm.Mem); ok && m.Base == x86asm.RIP && m.Index == 0 {
			// objdump names the rip-relative address in a comment.
			addr := pc + uint64(x.Len) + uint64(m.Disp)
			in.Text += " # " + symText(d.sym, addr)
		}
	}
	if hasTarget {
		// GNU objdump style: "call ffffffff81f00000 <ftrace_stub>".
		fields := strings.Fields(in.Text)
		in.Text = fields[0] + " " + symText(d.sym, target)
		in.Target = target
	}
	x86Facts(&in, x, hasTarget)
	x86MemRefs(&in, x)
	return in, nil
}

// x86RegIndex maps a 64-bit x86asm register to its index in regs.X86_64.
func x86RegIndex(r x86asm.Reg) int {
	if r == 0 {
		return -1
	}
	if i, ok := regs.X86_64.Reg(strings.ToLower(r.String())); ok {
		return i
	}
	return -2 // a register the tool does not track (e.g. 32-bit addressing)
}

// x86MemRefs lists the memory accesses of an x86 instruction: the explicit
// operand (with the direction x86Facts found) and implicit stack traffic.
func x86MemRefs(in *Inst, x x86asm.Inst) {
	if !in.MemKnown {
		return
	}
	rsp := regs.X86_64.SP
	for i, a := range x.Args {
		m, ok := a.(x86asm.Mem)
		if !ok {
			continue
		}
		ref := MemRef{Base: x86RegIndex(m.Base), Index: x86RegIndex(m.Index), Scale: max(int(m.Scale), 1), Disp: m.Disp, Size: x.MemBytes}
		if m.Base == x86asm.RIP {
			ref.Base, ref.Disp = -1, int64(in.Addr)+int64(in.Len)+m.Disp
		}
		if ref.Base == -2 || ref.Index == -2 {
			in.MemKnown = false
			in.Mem = nil
			return
		}
		switch x.Op {
		case x86asm.LEA, x86asm.NOP:
			continue
		case x86asm.PUSH, x86asm.CALL, x86asm.JMP:
			ref.Load, ref.Size = true, 8
		case x86asm.POP:
			ref.Store, ref.Size = true, 8
		default:
			// Direction from the counts: the operand is read, written, or both.
			ref.Load = in.Loads > 0 && !isMovStore(x, i)
			ref.Store = in.Stores > 0 && i == 0
		}
		in.Mem = append(in.Mem, ref)
	}
	stack := func(disp int64, load bool) {
		in.Mem = append(in.Mem, MemRef{Base: rsp, Index: -1, Scale: 1, Disp: disp, Size: 8, Load: load, Store: !load})
	}
	switch x.Op {
	case x86asm.PUSH, x86asm.CALL, x86asm.PUSHF, x86asm.PUSHFQ:
		stack(-8, false)
	case x86asm.POP, x86asm.RET, x86asm.POPF, x86asm.POPFQ:
		stack(0, true)
	}
}

// isMovStore reports whether operand i of a move-class instruction is its
// destination (written, not read).
func isMovStore(x x86asm.Inst, i int) bool {
	switch x.Op {
	case x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.MOVQ, x86asm.MOVD,
		x86asm.MOVAPS, x86asm.MOVUPS, x86asm.MOVDQA, x86asm.MOVDQU, x86asm.MOVBE:
		return i == 0
	}
	return false
}

// gnuSuffixes drops the operand-size suffixes that x86asm adds and binutils
// 2.40's objdump does not print (callq -> call, pushq %rbp -> push %rbp,
// pushq 0x8(%rsp) -> push 0x8(%rsp), pushq $0x1 -> push $0x1: in 64-bit mode
// push and pop have no other operand size objdump would name).
func gnuSuffixes(t string) string {
	op, rest, _ := strings.Cut(t, " ")
	switch op {
	case "callq", "retq", "jmpq", "leaveq", "pushfq", "popfq", "pushq", "popq":
		op = strings.TrimSuffix(op, "q")
	}
	if rest == "" {
		return op
	}
	return op + " " + rest
}

func prefixBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func x86Facts(in *Inst, x x86asm.Inst, direct bool) {
	var mem x86asm.Mem
	memArg := -1
	for i, a := range x.Args {
		if m, ok := a.(x86asm.Mem); ok {
			mem, memArg = m, i
			break
		}
	}
	_ = mem
	mb := x.MemBytes
	load := func(n int) { in.Loads++; in.LoadBytes += n }
	store := func(n int) { in.Stores++; in.StoreBytes += n }
	in.MemKnown = true
	switch x.Op {
	case x86asm.CALL:
		store(8)
		if memArg >= 0 {
			load(8)
		}
		if direct {
			in.Flow = FlowCall
		} else {
			in.Flow = FlowIndirectCall
		}
	case x86asm.RET:
		load(8)
		in.Flow = FlowReturn
	case x86asm.JMP:
		if memArg >= 0 {
			load(8)
		}
		if direct {
			in.Flow = FlowJump
		} else {
			in.Flow = FlowIndirectJump
		}
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO,
		x86asm.JP, x86asm.JS, x86asm.JRCXZ, x86asm.JECXZ:
		in.Flow = FlowCondJump
	case x86asm.PUSH:
		if memArg >= 0 {
			load(8)
		}
		store(8)
	case x86asm.POP:
		load(8)
		if memArg >= 0 {
			store(8)
		}
	case x86asm.PUSHF, x86asm.PUSHFQ:
		store(8)
	case x86asm.POPF, x86asm.POPFQ:
		load(8)
	case x86asm.LEAVE:
		load(8)
	case x86asm.INT, x86asm.UD2, x86asm.HLT, x86asm.UD1, x86asm.UD0:
		in.Flow = FlowTrap
	case x86asm.LEA, x86asm.NOP:
		// Address arithmetic / hint only.
	case x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.MOVQ, x86asm.MOVD,
		x86asm.MOVAPS, x86asm.MOVUPS, x86asm.MOVDQA, x86asm.MOVDQU, x86asm.MOVBE,
		x86asm.CMOVA, x86asm.CMOVAE, x86asm.CMOVB, x86asm.CMOVBE, x86asm.CMOVE, x86asm.CMOVG,
		x86asm.CMOVGE, x86asm.CMOVL, x86asm.CMOVLE, x86asm.CMOVNE, x86asm.CMOVNO, x86asm.CMOVNP,
		x86asm.CMOVNS, x86asm.CMOVO, x86asm.CMOVP, x86asm.CMOVS:
		switch {
		case memArg == 0:
			store(mb)
		case memArg > 0:
			load(mb)
		}
	case x86asm.CMP, x86asm.TEST, x86asm.BT:
		if memArg >= 0 {
			load(mb)
		}
	case x86asm.ADD, x86asm.SUB, x86asm.AND, x86asm.OR, x86asm.XOR, x86asm.ADC, x86asm.SBB,
		x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT, x86asm.SHL, x86asm.SHR, x86asm.SAR,
		x86asm.ROL, x86asm.ROR, x86asm.IMUL, x86asm.XCHG, x86asm.XADD, x86asm.CMPXCHG,
		x86asm.BTS, x86asm.BTR, x86asm.BTC:
		switch {
		case memArg == 0:
			load(mb)
			store(mb)
		case memArg > 0:
			load(mb)
		}
	default:
		// Register-only instructions are safe to call memory-free; anything
		// else with a memory operand is unknown to the cost model.
		if memArg >= 0 {
			in.MemKnown = false
		}
	}
}
