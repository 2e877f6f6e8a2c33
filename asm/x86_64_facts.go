package asm

import (
	"golang.org/x/arch/x86/x86asm"

	"trampemu/regs"
)

// x86Operand says how an x86 instruction accesses its explicit memory
// operand.
type x86Operand uint8

const (
	// x86NoOperand: the mnemonic has no memory-operand form the tool knows;
	// an instruction that has one gets MemKnown false.
	x86NoOperand x86Operand = iota
	x86Address              // an address, never accessed (lea, nop)
	x86Read                 // read (cmp, test; push, call *, jmp *)
	x86Write                // written (pop to memory, setcc)
	x86Move                 // written as operand 0, read as a later operand (mov)
	x86Update               // read and written as operand 0, read as a later operand (add)
	x86Exchange             // read and written wherever it is (xchg)
)

// x86Stack is an x86 instruction's implicit stack access.
type x86Stack uint8

const (
	x86NoStack x86Stack = iota
	x86Push             // stores at rsp-size (push, pushf, call)
	x86Pop              // loads at rsp (pop, popf, ret)
	x86Leave            // loads 8 bytes at rbp (leave is mov %rbp,%rsp; pop %rbp)
)

// x86Fact is the memory-access and control-flow fact of one x86 mnemonic
// (Intel SDM vol. 2, each instruction's "Operation").
type x86Fact struct {
	operand x86Operand
	// size is the bytes of the operand access; 0: the operand's size
	// (x86asm's MemBytes).
	size  int
	stack x86Stack
	// stackSize is the bytes of the stack access; 0: 8.
	stackSize int
	// flow is the control flow with a direct (rel) target; FlowCall and
	// FlowJump through a register or memory become FlowIndirectCall and
	// FlowIndirectJump.
	flow Flow
}

// x86FactsTable is the one facts table of x86-64, by mnemonic. A mnemonic
// that is not here is known to access no memory when it has no memory
// operand, and unknown (MemKnown false) when it has one.
// asm/testdata/facts.txt holds a decoded line for every entry.
var x86FactsTable = map[x86asm.Op]x86Fact{
	x86asm.CALL: {operand: x86Read, size: 8, stack: x86Push, flow: FlowCall},
	x86asm.RET:  {stack: x86Pop, flow: FlowReturn},
	x86asm.JMP:  {operand: x86Read, size: 8, flow: FlowJump},

	x86asm.JA: {flow: FlowCondJump}, x86asm.JAE: {flow: FlowCondJump}, x86asm.JB: {flow: FlowCondJump},
	x86asm.JBE: {flow: FlowCondJump}, x86asm.JE: {flow: FlowCondJump}, x86asm.JG: {flow: FlowCondJump},
	x86asm.JGE: {flow: FlowCondJump}, x86asm.JL: {flow: FlowCondJump}, x86asm.JLE: {flow: FlowCondJump},
	x86asm.JNE: {flow: FlowCondJump}, x86asm.JNO: {flow: FlowCondJump}, x86asm.JNP: {flow: FlowCondJump},
	x86asm.JNS: {flow: FlowCondJump}, x86asm.JO: {flow: FlowCondJump}, x86asm.JP: {flow: FlowCondJump},
	x86asm.JS: {flow: FlowCondJump}, x86asm.JRCXZ: {flow: FlowCondJump}, x86asm.JECXZ: {flow: FlowCondJump},

	x86asm.PUSH:   {operand: x86Read, size: 8, stack: x86Push},
	x86asm.POP:    {operand: x86Write, size: 8, stack: x86Pop},
	x86asm.PUSHF:  {stack: x86Push, stackSize: 2}, // pushfw (66 9c)
	x86asm.PUSHFQ: {stack: x86Push},
	x86asm.POPF:   {stack: x86Pop, stackSize: 2}, // popfw (66 9d)
	x86asm.POPFQ:  {stack: x86Pop},
	x86asm.LEAVE:  {stack: x86Leave},

	x86asm.INT: {flow: FlowTrap}, x86asm.UD2: {flow: FlowTrap}, x86asm.HLT: {flow: FlowTrap},
	// ud1/ud0 raise #UD whatever their ModRM operand, which is never
	// accessed (Intel SDM vol. 2, UD).
	x86asm.UD1: {operand: x86Address, flow: FlowTrap}, x86asm.UD0: {operand: x86Address, flow: FlowTrap},

	x86asm.LEA: {operand: x86Address},
	x86asm.NOP: {operand: x86Address},

	x86asm.MOV: {operand: x86Move}, x86asm.MOVZX: {operand: x86Move}, x86asm.MOVSX: {operand: x86Move},
	x86asm.MOVSXD: {operand: x86Move}, x86asm.MOVQ: {operand: x86Move}, x86asm.MOVD: {operand: x86Move},
	x86asm.MOVAPS: {operand: x86Move}, x86asm.MOVUPS: {operand: x86Move}, x86asm.MOVDQA: {operand: x86Move},
	x86asm.MOVDQU: {operand: x86Move}, x86asm.MOVBE: {operand: x86Move},
	x86asm.CMOVA: {operand: x86Move}, x86asm.CMOVAE: {operand: x86Move}, x86asm.CMOVB: {operand: x86Move},
	x86asm.CMOVBE: {operand: x86Move}, x86asm.CMOVE: {operand: x86Move}, x86asm.CMOVG: {operand: x86Move},
	x86asm.CMOVGE: {operand: x86Move}, x86asm.CMOVL: {operand: x86Move}, x86asm.CMOVLE: {operand: x86Move},
	x86asm.CMOVNE: {operand: x86Move}, x86asm.CMOVNO: {operand: x86Move}, x86asm.CMOVNP: {operand: x86Move},
	x86asm.CMOVNS: {operand: x86Move}, x86asm.CMOVO: {operand: x86Move}, x86asm.CMOVP: {operand: x86Move},
	x86asm.CMOVS: {operand: x86Move},
	x86asm.SETE:  {operand: x86Write}, x86asm.SETNE: {operand: x86Write},

	x86asm.CMP: {operand: x86Read}, x86asm.TEST: {operand: x86Read}, x86asm.BT: {operand: x86Read},
	// The one-operand forms read the memory operand (rdx:rax is the
	// destination); imul's two- and three-operand forms read their source.
	x86asm.MUL: {operand: x86Read}, x86asm.IMUL: {operand: x86Read}, x86asm.DIV: {operand: x86Read},
	x86asm.IDIV: {operand: x86Read},

	x86asm.ADD: {operand: x86Update}, x86asm.SUB: {operand: x86Update}, x86asm.AND: {operand: x86Update},
	x86asm.OR: {operand: x86Update}, x86asm.XOR: {operand: x86Update}, x86asm.ADC: {operand: x86Update},
	x86asm.SBB: {operand: x86Update}, x86asm.INC: {operand: x86Update}, x86asm.DEC: {operand: x86Update},
	x86asm.NEG: {operand: x86Update}, x86asm.NOT: {operand: x86Update}, x86asm.SHL: {operand: x86Update},
	x86asm.SHR: {operand: x86Update}, x86asm.SAR: {operand: x86Update}, x86asm.ROL: {operand: x86Update},
	x86asm.ROR: {operand: x86Update}, x86asm.XADD: {operand: x86Update}, x86asm.CMPXCHG: {operand: x86Update},
	x86asm.BTS: {operand: x86Update}, x86asm.BTR: {operand: x86Update}, x86asm.BTC: {operand: x86Update},
	x86asm.XCHG: {operand: x86Exchange},

	// Register-only instructions of the trampolines and workloads.
	x86asm.CLI: {}, x86asm.STI: {}, x86asm.CLD: {}, x86asm.CDQE: {}, x86asm.CQO: {}, x86asm.CDQ: {},
	x86asm.CWDE: {}, x86asm.BSWAP: {},
}

// x86Facts fills in the memory traffic and control flow of x from
// x86FactsTable; direct says the instruction has a rel target.
func x86Facts(in *Inst, x x86asm.Inst, direct bool) {
	memArg := -1
	for i, a := range x.Args {
		if _, ok := a.(x86asm.Mem); ok {
			memArg = i
			break
		}
	}
	f, ok := x86FactsTable[x.Op]
	if memArg >= 0 && (!ok || f.operand == x86NoOperand) {
		return // MemKnown false: no facts for this memory operand
	}
	in.MemKnown = true
	in.Flow = f.flow
	if !direct {
		switch f.flow {
		case FlowCall:
			in.Flow = FlowIndirectCall
		case FlowJump:
			in.Flow = FlowIndirectJump
		}
	}
	if memArg >= 0 && f.operand != x86Address {
		m := x.Args[memArg].(x86asm.Mem)
		ref := MemRef{Base: x86RegIndex(m.Base), Index: x86RegIndex(m.Index), Scale: max(int(m.Scale), 1), Disp: m.Disp, Size: f.size}
		if ref.Size == 0 {
			ref.Size = x.MemBytes
		}
		if m.Base == x86asm.RIP {
			ref.Base, ref.Disp = -1, int64(in.Addr)+int64(in.Len)+m.Disp
		}
		if ref.Base == -2 || ref.Index == -2 {
			// A register the tool does not track (32-bit addressing).
			in.MemKnown = false
			return
		}
		switch f.operand {
		case x86Read:
			ref.Load = true
		case x86Write:
			ref.Store = true
		case x86Move:
			ref.Load, ref.Store = memArg > 0, memArg == 0
		case x86Update:
			ref.Load, ref.Store = true, memArg == 0
		case x86Exchange:
			ref.Load, ref.Store = true, true
		}
		in.access(ref)
	}
	size := f.stackSize
	if size == 0 {
		size = 8
	}
	switch f.stack {
	case x86Push:
		in.access(MemRef{Base: regs.X86_64.SP, Index: -1, Scale: 1, Disp: -int64(size), Size: size, Store: true})
	case x86Pop:
		in.access(MemRef{Base: regs.X86_64.SP, Index: -1, Scale: 1, Size: size, Load: true})
	case x86Leave:
		in.access(MemRef{Base: regs.X86_64.FP, Index: -1, Scale: 1, Size: 8, Load: true})
	}
}
