package asm

import "golang.org/x/arch/riscv64/riscv64asm"

// riscv64Mem says how an RV64 instruction accesses memory.
type riscv64Mem uint8

const (
	riscv64NoMem riscv64Mem = iota // no access
	riscv64Load                    // one load through its rs1+imm operand
	riscv64Store                   // one store through its rs1+imm operand
)

// riscv64Fact is the memory-access and control-flow fact of one RV64
// mnemonic (The RISC-V Instruction Set Manual, Volume I: Unprivileged
// ISA, RV32I/RV64I "Load and Store Instructions", "Control Transfer
// Instructions"; Volume II for the privileged returns).
type riscv64Fact struct {
	mem  riscv64Mem
	size int // bytes per access
	flow Flow
	// link: a jal/jalr whose rd is not x0 is a call (flow is the jump's
	// kind otherwise); jalr x0, 0(ra) is a return.
	link bool
}

var riscv64None = riscv64Fact{}

// riscv64FactsTable is the one facts table of riscv64, by riscv64asm's
// Op. A mnemonic that is not here is known to access no memory when it
// has no memory operand, and unknown (MemKnown false) when it has one
// (the atomics, whose RegPtr operand the tool does not model).
// asm/testdata/facts.txt holds a decoded line for every entry. The
// all-zero halfword, mret, sret and wfi are decoded before the table
// (riscv64Dis.Decode): riscv64asm has no privileged instructions.
var riscv64FactsTable = map[riscv64asm.Op]riscv64Fact{
	riscv64asm.LB: {mem: riscv64Load, size: 1}, riscv64asm.LBU: {mem: riscv64Load, size: 1},
	riscv64asm.LH: {mem: riscv64Load, size: 2}, riscv64asm.LHU: {mem: riscv64Load, size: 2},
	riscv64asm.LW: {mem: riscv64Load, size: 4}, riscv64asm.LWU: {mem: riscv64Load, size: 4},
	riscv64asm.LD: {mem: riscv64Load, size: 8},
	riscv64asm.SB: {mem: riscv64Store, size: 1}, riscv64asm.SH: {mem: riscv64Store, size: 2},
	riscv64asm.SW: {mem: riscv64Store, size: 4}, riscv64asm.SD: {mem: riscv64Store, size: 8},

	riscv64asm.JAL:  {flow: FlowJump, link: true},
	riscv64asm.JALR: {flow: FlowIndirectJump, link: true},
	riscv64asm.BEQ:  {flow: FlowCondJump}, riscv64asm.BNE: {flow: FlowCondJump},
	riscv64asm.BLT: {flow: FlowCondJump}, riscv64asm.BGE: {flow: FlowCondJump},
	riscv64asm.BLTU: {flow: FlowCondJump}, riscv64asm.BGEU: {flow: FlowCondJump},
	riscv64asm.EBREAK: {flow: FlowTrap}, riscv64asm.ECALL: {flow: FlowTrap},

	// Register-only instructions of the trampolines and workloads.
	riscv64asm.LUI: riscv64None, riscv64asm.AUIPC: riscv64None,
	riscv64asm.ADDI: riscv64None, riscv64asm.ADDIW: riscv64None, riscv64asm.ADD: riscv64None,
	riscv64asm.ADDW: riscv64None, riscv64asm.SUB: riscv64None, riscv64asm.SUBW: riscv64None,
	riscv64asm.ANDI: riscv64None, riscv64asm.ORI: riscv64None, riscv64asm.XORI: riscv64None,
	riscv64asm.AND: riscv64None, riscv64asm.OR: riscv64None, riscv64asm.XOR: riscv64None,
	riscv64asm.SLLI: riscv64None, riscv64asm.SRLI: riscv64None, riscv64asm.SRAI: riscv64None,
	riscv64asm.SLL: riscv64None, riscv64asm.SRL: riscv64None, riscv64asm.SRA: riscv64None,
	riscv64asm.SLT: riscv64None, riscv64asm.SLTU: riscv64None, riscv64asm.SLTI: riscv64None,
	riscv64asm.SLTIU: riscv64None, riscv64asm.MUL: riscv64None, riscv64asm.DIVU: riscv64None,
	riscv64asm.REMU:  riscv64None,
	riscv64asm.CSRRW: riscv64None, riscv64asm.CSRRS: riscv64None, riscv64asm.CSRRC: riscv64None,
	riscv64asm.CSRRWI: riscv64None, riscv64asm.CSRRSI: riscv64None, riscv64asm.CSRRCI: riscv64None,
	riscv64asm.FENCE: riscv64None, riscv64asm.FENCE_I: riscv64None,
}

// riscv64Facts fills in the memory traffic and control flow of x from
// riscv64FactsTable.
func riscv64Facts(in *Inst, x riscv64asm.Inst) {
	var mem *riscv64asm.RegOffset
	hasMem := false
	for _, a := range x.Args {
		switch v := a.(type) {
		case riscv64asm.RegOffset:
			if x.Op != riscv64asm.JALR {
				mem, hasMem = &v, true
			}
		case riscv64asm.RegPtr:
			hasMem = true
		}
	}
	f, ok := riscv64FactsTable[x.Op]
	if hasMem && (!ok || f.mem == riscv64NoMem) {
		return // MemKnown false
	}
	in.MemKnown = true
	in.Flow = f.flow
	switch x.Op {
	case riscv64asm.JAL:
		in.Target = in.Addr + uint64(int64(x.Args[1].(riscv64asm.Simm).Imm))
		if x.Args[0].(riscv64asm.Reg) != riscv64asm.X0 {
			in.Flow = FlowCall
		}
	case riscv64asm.JALR:
		rd := x.Args[0].(riscv64asm.Reg)
		t := x.Args[1].(riscv64asm.RegOffset)
		switch {
		case rd != riscv64asm.X0:
			in.Flow = FlowIndirectCall
		case t.OfsReg == riscv64asm.X1 && t.Ofs.Imm == 0:
			in.Flow = FlowReturn
		}
	case riscv64asm.BEQ, riscv64asm.BNE, riscv64asm.BLT, riscv64asm.BGE, riscv64asm.BLTU, riscv64asm.BGEU:
		in.Target = in.Addr + uint64(int64(x.Args[2].(riscv64asm.Simm).Imm))
	}
	if f.mem == riscv64NoMem || mem == nil {
		return
	}
	base := riscv64RegIndex(mem.OfsReg)
	if base == -2 {
		in.MemKnown = false
		return
	}
	load := f.mem == riscv64Load
	in.access(MemRef{Base: base, Index: -1, Scale: 1, Disp: int64(mem.Ofs.Imm), Size: f.size, Load: load, Store: !load})
}
