package asm

import (
	"strings"

	"golang.org/x/arch/s390x/s390xasm"
)

// s390xMem says how an s390x instruction accesses storage.
type s390xMem uint8

const (
	s390xNoMem     s390xMem = iota // no access (the D(X,B) of la, bc, bas is an address)
	s390xLoad                      // reads size bytes at its operand
	s390xStore                     // writes size bytes at its operand
	s390xLoadMany                  // lmg: size bytes per register of the range
	s390xStoreMany                 // stmg: size bytes per register of the range
	s390xSSMove                    // mvc: writes operand 1, reads operand 2 (the length's bytes)
	s390xSSUpdate                  // xc, nc, oc: reads and writes operand 1, reads operand 2
	s390xSSCompare                 // clc: reads both operands
)

// s390xFlowRule says how an s390x instruction's control flow follows from
// its operands.
type s390xFlowRule uint8

const (
	s390xNoFlow   s390xFlowRule = iota
	s390xCall                   // brasl, bras: a direct call
	s390xCallReg                // basr r1,r2: an indirect call unless r2 is %r0
	s390xCallAddr               // bas r1,D(X,B): an indirect call
	s390xJumpReg                // bcr m,r2: a nop for mask 0 or r2 %r0; an indirect jump for mask 15; else a conditional indirect jump
	s390xJumpAddr               // bc m,D(X,B): a nop for mask 0; an indirect jump for mask 15; else a conditional indirect jump
	s390xJumpMask               // brc, brcl: mask 0 a nop, 15 a jump, else a conditional jump
	s390xCondJump               // compare-and-branch, branch-on-count: a conditional jump
	s390xJumpPSW                // lpswe: an indirect jump through the loaded PSW
)

// s390xFact is the storage-access and control-flow fact of one s390x
// mnemonic (z/Architecture Principles of Operation, SA22-7832, each
// instruction's description).
type s390xFact struct {
	mem  s390xMem
	size int // bytes per access (per register for the range forms); the SS forms take the length
	flow s390xFlowRule
}

var (
	s390xNone     = s390xFact{}
	s390xCallFact = s390xFact{flow: s390xCall}
	s390xCond     = s390xFact{flow: s390xCondJump}
)

func s390xLd(n int) s390xFact { return s390xFact{mem: s390xLoad, size: n} }
func s390xSt(n int) s390xFact { return s390xFact{mem: s390xStore, size: n} }

// s390xFactsTable is the one facts table of s390x, by base mnemonic
// (s390xasm's Op: brcl, not its extended mnemonic jg). A mnemonic that is
// not here is unknown (MemKnown false). asm/testdata/facts.txt holds a
// decoded line for every entry.
var s390xFactsTable = map[string]s390xFact{
	"stg": s390xSt(8), "st": s390xSt(4), "sty": s390xSt(4), "sth": s390xSt(2), "sthy": s390xSt(2),
	"stc": s390xSt(1), "stcy": s390xSt(1), "std": s390xSt(8), "stdy": s390xSt(8), "ste": s390xSt(4),
	"stey": s390xSt(4), "stgrl": s390xSt(8), "strl": s390xSt(4), "mvghi": s390xSt(8), "mvhi": s390xSt(4),
	"mvhhi": s390xSt(2), "mvi": s390xSt(1), "mviy": s390xSt(1),
	// stosm/stnsm store the 1-byte system mask ("STORE THEN OR/AND SYSTEM
	// MASK"); arch/s390/kernel/mcount.S v5.x uses stosm.
	"stosm": s390xSt(1), "stnsm": s390xSt(1),

	"lg": s390xLd(8), "l": s390xLd(4), "ly": s390xLd(4), "lgf": s390xLd(4), "llgf": s390xLd(4),
	"lh": s390xLd(2), "lhy": s390xLd(2), "lgh": s390xLd(2), "llgh": s390xLd(2), "lb": s390xLd(1),
	"lgb": s390xLd(1), "llgc": s390xLd(1), "llc": s390xLd(1), "ltg": s390xLd(8), "lt": s390xLd(4),
	"ltgf": s390xLd(4), "lgrl": s390xLd(8), "lrl": s390xLd(4), "lgfrl": s390xLd(4), "llgfrl": s390xLd(4),
	"ld": s390xLd(8), "ldy": s390xLd(8), "le": s390xLd(4), "ley": s390xLd(4), "cg": s390xLd(8),
	"c": s390xLd(4), "cy": s390xLd(4), "clg": s390xLd(8), "cl": s390xLd(4), "cly": s390xLd(4),
	"cgrl": s390xLd(8), "clgrl": s390xLd(8), "crl": s390xLd(4), "ag": s390xLd(8), "a": s390xLd(4),
	"ay": s390xLd(4), "sg": s390xLd(8), "s": s390xLd(4), "ng": s390xLd(8), "n": s390xLd(4),
	"og": s390xLd(8), "o": s390xLd(4), "xg": s390xLd(8), "x": s390xLd(4), "alg": s390xLd(8),
	"slg": s390xLd(8), "msg": s390xLd(8), "tm": s390xLd(1), "tmy": s390xLd(1), "cli": s390xLd(1),
	"cliy": s390xLd(1), "clgf": s390xLd(4), "cgf": s390xLd(4), "agf": s390xLd(4), "sgf": s390xLd(4),
	"lrvg": s390xLd(8), "lrv": s390xLd(4), "cghsi": s390xLd(8), "chsi": s390xLd(4), "clghsi": s390xLd(8),
	"clfhsi": s390xLd(4),

	"stmg": {mem: s390xStoreMany, size: 8}, "stm": {mem: s390xStoreMany, size: 4}, "stmy": {mem: s390xStoreMany, size: 4},
	"lmg": {mem: s390xLoadMany, size: 8}, "lm": {mem: s390xLoadMany, size: 4}, "lmy": {mem: s390xLoadMany, size: 4},

	// lpswe D(B): loads the 16-byte PSW (mask, address) and continues at
	// its address: a load and a jump through memory
	// (arch/s390/kernel/mcount.S v6.2+ arch_rethook_trampoline returns so).
	"lpswe": {mem: s390xLoad, size: 16, flow: s390xJumpPSW},
	"mvc":   {mem: s390xSSMove}, "xc": {mem: s390xSSUpdate}, "nc": {mem: s390xSSUpdate},
	"oc": {mem: s390xSSUpdate}, "clc": {mem: s390xSSCompare},

	"brasl": s390xCallFact, "bras": s390xCallFact,
	"basr": {flow: s390xCallReg}, "bas": {flow: s390xCallAddr},
	"bcr": {flow: s390xJumpReg}, "bc": {flow: s390xJumpAddr},
	"brc": {flow: s390xJumpMask}, "brcl": {flow: s390xJumpMask},
	"cgij": s390xCond, "cij": s390xCond, "cgrj": s390xCond, "crj": s390xCond, "clgij": s390xCond,
	"clgrj": s390xCond, "brctg": s390xCond, "brct": s390xCond,

	"la": s390xNone, "lay": s390xNone, "larl": s390xNone, "lgr": s390xNone, "lr": s390xNone,
	"lgfr": s390xNone, "llgfr": s390xNone, "ltgr": s390xNone, "ltr": s390xNone, "aghi": s390xNone,
	"aghik": s390xNone, "ahi": s390xNone, "ahik": s390xNone, "afi": s390xNone, "agfi": s390xNone,
	"algfi": s390xNone, "slgfi": s390xNone, "lghi": s390xNone, "lhi": s390xNone, "lgfi": s390xNone,
	"llilf": s390xNone, "llill": s390xNone, "llilh": s390xNone, "llihf": s390xNone, "iilf": s390xNone,
	"iihf": s390xNone, "oilf": s390xNone, "oihf": s390xNone, "nilf": s390xNone, "nill": s390xNone,
	"nihf": s390xNone, "agr": s390xNone, "ar": s390xNone, "sgr": s390xNone, "sr": s390xNone,
	"ngr": s390xNone, "nr": s390xNone, "ogr": s390xNone, "or": s390xNone, "xgr": s390xNone,
	"xr": s390xNone, "agrk": s390xNone, "sgrk": s390xNone, "msgr": s390xNone, "msgfi": s390xNone,
	"cgr": s390xNone, "cr": s390xNone, "clgr": s390xNone, "clr": s390xNone, "cghi": s390xNone,
	"chi": s390xNone, "clgfi": s390xNone, "cgfi": s390xNone, "sllg": s390xNone, "srlg": s390xNone,
	"srag": s390xNone, "sll": s390xNone, "srl": s390xNone, "rllg": s390xNone, "risbg": s390xNone,
	"risbgn": s390xNone, "locgr": s390xNone, "locr": s390xNone, "epsw": s390xNone, "ipm": s390xNone,
	"spm": s390xNone, "ex": s390xNone, "exrl": s390xNone, "lcgr": s390xNone, "lpgr": s390xNone,
	"lngr": s390xNone, "ltgfr": s390xNone, "dsgr": s390xNone, "dlgr": s390xNone, "mlgr": s390xNone,
}

// s390xFacts fills in the storage traffic and control flow of x from
// s390xFactsTable and names relative targets with sym.
func s390xFacts(in *Inst, x s390xasm.Inst, sym Symbolizer) {
	op := strings.ToLower(x.Op.String()) // the base mnemonic (brcl, not jgnop)
	var regsIn []int
	lastReg := -1
	var length int
	var rel int64
	hasRel := false
	var mem []MemRef // the D(X,B) operands, in order
	var cur *MemRef
	for _, a := range x.Args {
		switch v := a.(type) {
		case s390xasm.Disp12:
			mem = append(mem, MemRef{Base: -1, Index: -1, Scale: 1, Disp: int64(v)})
			cur = &mem[len(mem)-1]
		case s390xasm.Disp20:
			mem = append(mem, MemRef{Base: -1, Index: -1, Scale: 1, Disp: int64(int32(uint32(v)<<12) >> 12)})
			cur = &mem[len(mem)-1]
		case s390xasm.Base:
			if cur != nil && v != 0 {
				cur.Base = int(v)
			}
		case s390xasm.Index:
			if cur != nil && v != 0 {
				cur.Index = int(v)
			}
		case s390xasm.Reg:
			regsIn = append(regsIn, int(v))
			lastReg = int(v)
		case s390xasm.Len:
			length = int(v) + 1
		case s390xasm.RegIm12:
			rel, hasRel = int64(int16(v))*2, true
		case s390xasm.RegIm16:
			rel, hasRel = int64(int16(v))*2, true
		case s390xasm.RegIm24:
			rel, hasRel = int64(int32(v<<8)>>8)*2, true
		case s390xasm.RegIm32:
			rel, hasRel = int64(int32(v))*2, true
		case s390xasm.Mask:
			regsIn = append(regsIn, 100+int(v)) // keep masks apart from registers
		}
	}
	mask := -1
	if len(regsIn) > 0 && regsIn[0] >= 100 {
		mask = regsIn[0] - 100
	}
	target := uint64(int64(in.Addr) + rel)
	if hasRel {
		// objdump style: "brasl %r14,f00000 <ftrace_stub>", "lgrl %r4,1000000 <function_trace_op>".
		if i := strings.LastIndexAny(in.Text, " ,"); i > 0 {
			in.Text = in.Text[:i+1] + symText(sym, target)
		}
	}
	f, ok := s390xFactsTable[op]
	if !ok {
		return // MemKnown false
	}
	in.MemKnown = true
	// One storage operand: the D(X,B) one, or the static address of a
	// relative-long load or store (lgrl, stgrl).
	one := func() (MemRef, bool) {
		switch {
		case len(mem) == 1:
			return mem[0], true
		case len(mem) == 0 && hasRel:
			return MemRef{Base: -1, Index: -1, Scale: 1, Disp: int64(target)}, true
		}
		return MemRef{}, false
	}
	switch f.mem {
	case s390xLoad, s390xStore:
		r, ok := one()
		if !ok {
			in.MemKnown = false
			return
		}
		r.Size, r.Load, r.Store = f.size, f.mem == s390xLoad, f.mem == s390xStore
		in.access(r)
	case s390xLoadMany, s390xStoreMany:
		r, ok := one()
		if !ok || len(regsIn) < 2 {
			in.MemKnown = false
			return
		}
		n := (regsIn[1]-regsIn[0]+16)%16 + 1
		r.Size, r.Load, r.Store = n*f.size, f.mem == s390xLoadMany, f.mem == s390xStoreMany
		in.access(r)
	case s390xSSMove, s390xSSUpdate, s390xSSCompare:
		if len(mem) != 2 {
			in.MemKnown = false
			return
		}
		op1, op2 := mem[0], mem[1]
		op1.Size, op2.Size = length, length
		op2.Load = true
		switch f.mem {
		case s390xSSMove:
			op1.Store = true
		case s390xSSUpdate:
			op1.Load, op1.Store = true, true
		case s390xSSCompare:
			op1.Load = true
		}
		if op == "xc" && op1.Base == op2.Base && op1.Index == op2.Index && op1.Disp == op2.Disp {
			// xc of a field with itself zeroes it without reading it: QEMU
			// translates it to plain stores of zero (target/s390x/tcg/
			// translate.c op_xc, "If the addresses are identical, this is a
			// store/memset of zero", Unicorn 2.1.1), so the emulator does
			// no load; the one operand is written.
			op1.Load = false
			in.access(op1)
			break
		}
		in.access(op1)
		in.access(op2)
	}
	switch f.flow {
	case s390xCall:
		in.Flow, in.Target = FlowCall, target
	case s390xCallReg:
		if len(regsIn) == 2 && regsIn[1] != 0 {
			in.Flow = FlowIndirectCall
		}
	case s390xCallAddr:
		in.Flow = FlowIndirectCall
	case s390xJumpPSW:
		in.Flow = FlowIndirectJump
	case s390xJumpReg:
		switch {
		case mask == 0 || lastReg <= 0: // nopr
		case mask == 15:
			in.Flow = FlowIndirectJump
		default:
			in.Flow = FlowCondIndirectJump
		}
	case s390xJumpAddr:
		switch mask {
		case 0: // nop
		case 15:
			in.Flow = FlowIndirectJump
		default:
			in.Flow = FlowCondIndirectJump
		}
	case s390xJumpMask:
		switch mask {
		case 0: // nop
		case 15:
			in.Flow, in.Target = FlowJump, target
		default:
			in.Flow, in.Target = FlowCondJump, target
		}
	case s390xCondJump:
		in.Flow, in.Target = FlowCondJump, target
	}
}
