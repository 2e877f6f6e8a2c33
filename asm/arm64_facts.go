package asm

import "golang.org/x/arch/arm64/arm64asm"

// arm64Mem says how an AArch64 instruction accesses memory.
type arm64Mem uint8

const (
	arm64NoMem     arm64Mem = iota // no access, or none the tool knows (see arm64FactsTable)
	arm64Address                   // an address, never accessed (prfm)
	arm64Load                      // one load through its memory operand (or literal)
	arm64Store                     // one store through its memory operand
	arm64LoadPair                  // ldp: two loads, at the address and the address + size
	arm64StorePair                 // stp: two stores, likewise
)

// arm64Fact is the memory-access and control-flow fact of one AArch64
// mnemonic (Arm Architecture Reference Manual for A-profile, DDI 0487,
// each instruction's "Operation").
type arm64Fact struct {
	mem arm64Mem
	// size is the bytes per access; 0: the width of the data register.
	size int
	// data is the argument holding the (first) data register: 0, or 1 for
	// store-exclusive (its status register comes first).
	data int
	// flow is the control flow; b with a condition is FlowCondJump.
	flow Flow
}

var arm64None = arm64Fact{}

// arm64FactsTable is the one facts table of arm64, by arm64asm's Op. A
// mnemonic that is not here is known to access no memory when it has no
// memory operand, and unknown (MemKnown false) when it has one.
// asm/testdata/facts.txt holds a decoded line for every entry. HINT-space
// instructions (nop, bti c, paciasp, autiasp) and udf are decoded before
// the table (arm64Dis.Decode).
var arm64FactsTable = map[arm64asm.Op]arm64Fact{
	arm64asm.LDR: {mem: arm64Load}, arm64asm.LDUR: {mem: arm64Load},
	arm64asm.LDRB: {mem: arm64Load, size: 1}, arm64asm.LDURB: {mem: arm64Load, size: 1},
	arm64asm.LDRH: {mem: arm64Load, size: 2}, arm64asm.LDURH: {mem: arm64Load, size: 2},
	arm64asm.LDRSB: {mem: arm64Load, size: 1}, arm64asm.LDRSH: {mem: arm64Load, size: 2},
	arm64asm.LDRSW: {mem: arm64Load, size: 4},
	arm64asm.LDAR:  {mem: arm64Load}, arm64asm.LDXR: {mem: arm64Load}, arm64asm.LDAXR: {mem: arm64Load},
	arm64asm.STR: {mem: arm64Store}, arm64asm.STUR: {mem: arm64Store},
	arm64asm.STRB: {mem: arm64Store, size: 1}, arm64asm.STURB: {mem: arm64Store, size: 1},
	arm64asm.STRH: {mem: arm64Store, size: 2}, arm64asm.STURH: {mem: arm64Store, size: 2},
	arm64asm.STLR: {mem: arm64Store},
	arm64asm.STXR: {mem: arm64Store, data: 1}, arm64asm.STLXR: {mem: arm64Store, data: 1},
	arm64asm.LDP: {mem: arm64LoadPair}, arm64asm.STP: {mem: arm64StorePair},
	arm64asm.PRFM: {mem: arm64Address},

	arm64asm.BL:  {flow: FlowCall},
	arm64asm.BLR: {flow: FlowIndirectCall},
	arm64asm.B:   {flow: FlowJump},
	arm64asm.CBZ: {flow: FlowCondJump}, arm64asm.CBNZ: {flow: FlowCondJump},
	arm64asm.TBZ: {flow: FlowCondJump}, arm64asm.TBNZ: {flow: FlowCondJump},
	arm64asm.BR:   {flow: FlowIndirectJump},
	arm64asm.RET:  {flow: FlowReturn},
	arm64asm.BRK:  {flow: FlowTrap},
	arm64asm.HLT:  {flow: FlowTrap},
	arm64asm.ERET: {flow: FlowReturn},

	// Register-only instructions of the trampolines and workloads.
	arm64asm.MOV: arm64None, arm64asm.MOVZ: arm64None, arm64asm.MOVK: arm64None, arm64asm.MOVN: arm64None,
	arm64asm.ADD: arm64None, arm64asm.ADDS: arm64None, arm64asm.SUB: arm64None, arm64asm.SUBS: arm64None,
	arm64asm.CMP: arm64None, arm64asm.CMN: arm64None, arm64asm.TST: arm64None, arm64asm.NEG: arm64None,
	arm64asm.AND: arm64None, arm64asm.ANDS: arm64None, arm64asm.ORR: arm64None, arm64asm.EOR: arm64None,
	arm64asm.BIC: arm64None, arm64asm.MVN: arm64None, arm64asm.LSL: arm64None, arm64asm.LSR: arm64None,
	arm64asm.ASR: arm64None, arm64asm.UBFX: arm64None, arm64asm.SBFX: arm64None, arm64asm.UBFIZ: arm64None,
	arm64asm.MUL: arm64None, arm64asm.MADD: arm64None, arm64asm.UDIV: arm64None, arm64asm.SDIV: arm64None,
	arm64asm.CSEL: arm64None, arm64asm.CSET: arm64None, arm64asm.CSINC: arm64None,
	arm64asm.ADR: arm64None, arm64asm.ADRP: arm64None,
	arm64asm.MRS: arm64None, arm64asm.MSR: arm64None,
	arm64asm.DMB: arm64None, arm64asm.DSB: arm64None, arm64asm.ISB: arm64None,
}

// arm64Facts fills in the memory traffic and control flow of x from
// arm64FactsTable.
func arm64Facts(in *Inst, x arm64asm.Inst) {
	memArg := -1
	for i, a := range x.Args {
		if a == nil {
			break
		}
		switch a.(type) {
		case arm64asm.MemImmediate, arm64asm.MemExtend:
			memArg = i
		}
		if memArg >= 0 {
			break
		}
	}
	f, ok := arm64FactsTable[x.Op]
	if memArg >= 0 && (!ok || f.mem == arm64NoMem) {
		return // MemKnown false: no facts for this memory operand
	}
	in.MemKnown = true
	in.Flow = f.flow
	for _, a := range x.Args {
		if a == nil {
			break
		}
		switch v := a.(type) {
		case arm64asm.Cond:
			if x.Op == arm64asm.B {
				in.Flow = FlowCondJump // b.cond
			}
		case arm64asm.PCRel:
			if f.flow == FlowCall || f.flow == FlowJump || f.flow == FlowCondJump {
				in.Target = arm64Target(x, in.Addr, v)
			}
		}
	}
	if f.mem == arm64NoMem || f.mem == arm64Address {
		return
	}
	size := f.size
	if size == 0 {
		size = arm64RegBytes(x.Args[f.data])
	}
	var ref MemRef
	switch {
	case memArg < 0:
		// ldr (literal): the address is static.
		lit := -1
		for i, a := range x.Args {
			if _, ok := a.(arm64asm.PCRel); ok {
				lit = i
			}
		}
		if lit < 0 || f.mem != arm64Load {
			in.MemKnown = false
			return
		}
		ref = MemRef{Base: -1, Index: -1, Scale: 1, Disp: int64(arm64Target(x, in.Addr, x.Args[lit].(arm64asm.PCRel)))}
	default:
		switch m := x.Args[memArg].(type) {
		case arm64asm.MemImmediate:
			ref = MemRef{Base: arm64RegIndex(arm64asm.Reg(m.Base)), Index: -1, Scale: 1}
			switch m.Mode {
			case arm64asm.AddrOffset, arm64asm.AddrPreIndex:
				imm, ok := arm64MemImm(m)
				if !ok {
					in.MemKnown = false
					return
				}
				ref.Disp = imm
			case arm64asm.AddrPostIndex:
				// The access is at the base; the immediate is added after.
			default:
				in.MemKnown = false // register post-index: SIMD structures
				return
			}
		case arm64asm.MemExtend:
			// Only a 64-bit index shifted by lsl (or not at all) is an
			// index*scale the register file can compute.
			idx := arm64RegIndex(m.Index)
			ext := m.Extend.String()
			if idx < 0 || (ext != "" && ext != "LSL" && ext != "UXTX" && ext != "SXTX") {
				in.MemKnown = false
				return
			}
			ref = MemRef{Base: arm64RegIndex(arm64asm.Reg(m.Base)), Index: idx, Scale: 1}
			if !m.ShiftMustBeZero {
				ref.Scale = 1 << m.Amount
			}
		}
	}
	if ref.Base == -2 || size == 0 {
		in.MemKnown = false
		return
	}
	ref.Size = size
	load := f.mem == arm64Load || f.mem == arm64LoadPair
	ref.Load, ref.Store = load, !load
	in.access(ref)
	if f.mem == arm64LoadPair || f.mem == arm64StorePair {
		second := ref
		second.Disp += int64(size)
		in.access(second)
	}
}
