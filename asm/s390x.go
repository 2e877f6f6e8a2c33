package asm

import (
	"debug/elf"
	"fmt"
	"strings"

	"golang.org/x/arch/s390x/s390xasm"

	"trampemu/regs"
)

// s390Asm: s390x objects (EM_S390), the kernel's s390 macros and the
// golang.org/x/arch s390xasm disassembler.
var s390Asm = &asmArch{
	arch:         regs.S390X,
	elfMachine:   elf.EM_S390,
	prelude:      s390xPrelude,
	disassembler: func(sym Symbolizer) Disassembler { return s390xDis{sym: sym} },
}

// s390xPrelude: the s390x part of the prelude (see commonPrelude).
const s390xPrelude = `
#define CONFIG_64BIT 1
#define __s390x__ 1
#define __s390__ 1
#define EX_TABLE(from, to)
/* arch/s390/include/asm/march.h (v6.10+) */
#if defined(CONFIG_HAVE_MARCH_Z196_FEATURES) && !defined(MARCH_HAS_Z196_FEATURES)
#define MARCH_HAS_Z196_FEATURES 1
#endif
/* arch/s390/include/asm/ftrace.h (v4.x): the mcount call's return offset
   without -mhotpatch */
#define MCOUNT_RETURN_FIXUP 18
.macro BR_EX reg:req, rest:vararg
	br \reg
.endm
.macro BASR_EX rsave:req, rtarget:req
	basr \rsave,\rtarget
.endm
.macro B_EX reg:req, rest:vararg
	br \reg
.endm
.macro GEN_BR_THUNK args:vararg
.endm
`

// s390xDis decodes s390x with golang.org/x/arch/s390x/s390xasm.
type s390xDis struct{ sym Symbolizer }

// s390x instruction lengths from the first two opcode bits (z/Architecture
// Principles of Operation, "Instruction formats").
func s390xLen(b byte) int {
	switch b >> 6 {
	case 0:
		return 2
	case 3:
		return 6
	}
	return 4
}

func (d s390xDis) Decode(code []byte, pc uint64) (in Inst, err error) {
	defer func() {
		if r := recover(); r != nil {
			in, err = Inst{}, fmt.Errorf("s390x decoder failed on % x: %v", code, r)
		}
	}()
	if len(code) < 2 {
		return Inst{}, fmt.Errorf("truncated s390x instruction at %#x (% x)", pc, code)
	}
	n := s390xLen(code[0])
	if len(code) < n {
		return Inst{}, fmt.Errorf("truncated s390x instruction at %#x: %d of %d bytes (% x)", pc, len(code), n, code)
	}
	// s390xasm reads 6 bytes whatever the length: pad.
	var buf [8]byte
	copy(buf[:], code[:n])
	if code[0] == 0 && code[1] == 0 {
		return Inst{Addr: pc, Len: 2, Bytes: code[:2], Op: ".short", Text: ".short 0x0000", MemKnown: true, Flow: FlowTrap}, nil
	}
	x, err := s390xasm.Decode(buf[:])
	if err != nil || x.Len != n || x.Op == 0 {
		return Inst{}, fmt.Errorf("invalid s390x instruction at %#x (% x)", pc, code[:n])
	}
	in = Inst{Addr: pc, Len: n, Bytes: code[:n]}
	in.Text = s390xasm.GNUSyntax(x, pc)
	if n == 4 && strings.HasPrefix(in.Text, "nopr") {
		// s390xasm names bc with mask 0 "nopr" like the 2-byte bcr 0; GNU
		// (and the assembler, which would emit 2 bytes for nopr) call the
		// 4-byte form "nop".
		in.Text = "nop" + strings.TrimPrefix(in.Text, "nopr")
	}
	in.Op = strings.Fields(in.Text)[0]
	s390xFacts(&in, x, d.sym)
	return in, nil
}

// s390x memory traffic per mnemonic: bytes per access.
var (
	s390xStores = map[string]int{
		"stg": 8, "st": 4, "sty": 4, "sth": 2, "sthy": 2, "stc": 1, "stcy": 1, "std": 8, "stdy": 8,
		"ste": 4, "stey": 4, "stgrl": 8, "strl": 4, "mvghi": 8, "mvhi": 4, "mvhhi": 2, "mvi": 1, "mviy": 1,
		// stosm/stnsm store the 1-byte system mask (z/Architecture Principles
		// of Operation, "STORE THEN OR/AND SYSTEM MASK"); mcount.S v5.x uses stosm.
		"stosm": 1, "stnsm": 1,
	}
	s390xLoads = map[string]int{
		"lg": 8, "l": 4, "ly": 4, "lgf": 4, "llgf": 4, "lh": 2, "lhy": 2, "lgh": 2, "llgh": 2, "lb": 1,
		"lgb": 1, "llgc": 1, "llc": 1, "ltg": 8, "lt": 4, "ltgf": 4, "lgrl": 8, "lrl": 4, "lgfrl": 4,
		"llgfrl": 4, "ld": 8, "ldy": 8, "le": 4, "ley": 4, "cg": 8, "c": 4, "cy": 4, "clg": 8, "cl": 4,
		"cly": 4, "cgrl": 8, "clgrl": 8, "crl": 4, "ag": 8, "a": 4, "ay": 4, "sg": 8, "s": 4, "ng": 8,
		"n": 4, "og": 8, "o": 4, "xg": 8, "x": 4, "alg": 8, "slg": 8, "msg": 8, "tm": 1, "tmy": 1,
		"cli": 1, "cliy": 1, "clgf": 4, "cgf": 4, "agf": 4, "sgf": 4, "lrvg": 8, "lrv": 4,
		"cghsi": 8, "chsi": 4, "clghsi": 8, "clfhsi": 4,
	}
	// No memory access (the D(X,B) of la/lay/bc/bas/ex is an address, not a load).
	s390xNoMem = map[string]bool{
		"la": true, "lay": true, "larl": true, "lgr": true, "lr": true, "lgfr": true, "llgfr": true,
		"ltgr": true, "ltr": true, "aghi": true, "aghik": true, "ahi": true, "ahik": true, "afi": true,
		"agfi": true, "algfi": true, "slgfi": true, "lghi": true, "lhi": true, "lgfi": true, "llilf": true,
		"llill": true, "llilh": true, "llihf": true, "iilf": true, "iihf": true, "oilf": true, "oihf": true,
		"nilf": true, "nill": true, "nihf": true, "agr": true, "ar": true, "sgr": true, "sr": true,
		"ngr": true, "nr": true, "ogr": true, "or": true, "xgr": true, "xr": true, "agrk": true,
		"sgrk": true, "msgr": true, "msgfi": true, "cgr": true, "cr": true, "clgr": true, "clr": true,
		"cghi": true, "chi": true, "clgfi": true, "cgfi": true, "sllg": true, "srlg": true, "srag": true,
		"sll": true, "srl": true, "rllg": true, "risbg": true, "risbgn": true, "locgr": true, "locr": true,
		"epsw": true, "ipm": true, "spm": true, "brasl": true, "bras": true, "basr": true, "bas": true,
		"br": true, "bcr": true, "nopr": true, "nop": true, "jg": true, "brcl": true, "brc": true,
		"j": true, "jgnop": true, "jnop": true, "bc": true, "ex": true, "exrl": true, "cgij": true,
		"cij": true, "cgrj": true, "crj": true, "clgij": true, "clgrj": true, "brctg": true, "brct": true,
		"lcgr": true, "lpgr": true, "lngr": true, "ltgfr": true, "dsgr": true, "dlgr": true, "mlgr": true,
	}
	// Register-range loads and stores: bytes per register.
	s390xMulti = map[string]struct {
		store bool
		size  int
	}{"stmg": {true, 8}, "stm": {true, 4}, "stmy": {true, 4}, "lmg": {false, 8}, "lm": {false, 4}, "lmy": {false, 4}}
	// Storage-to-storage with a length: bytes read and written.
	s390xSS = map[string]struct{ loads, stores int }{
		"mvc": {1, 1}, "xc": {1, 1}, "nc": {1, 1}, "oc": {1, 1}, "clc": {2, 0},
	}
)

// xcClears reports an xc whose two operands are the same field (the same
// base and displacement; the length is shared): the s390x idiom for
// zeroing storage.
func xcClears(op string, mem []MemRef) bool {
	return op == "xc" && len(mem) == 2 && mem[0].Base == mem[1].Base && mem[0].Index == mem[1].Index && mem[0].Disp == mem[1].Disp
}

// relLoadStore describes the access of a relative-long load or store.
func relLoadStore(op string, in *Inst) (MemRef, bool) {
	if !strings.HasSuffix(op, "rl") || op == "larl" || op == "exrl" {
		return MemRef{}, false
	}
	if in.Loads+in.Stores == 0 {
		return MemRef{}, false
	}
	return MemRef{Base: -1, Index: -1, Scale: 1, Size: in.LoadBytes + in.StoreBytes, Load: in.Loads > 0, Store: in.Stores > 0}, true
}

func s390xFacts(in *Inst, x s390xasm.Inst, sym Symbolizer) {
	op := strings.ToLower(x.Op.String()) // the base mnemonic (brcl, not jgnop)
	load := func(n int) { in.Loads++; in.LoadBytes += n }
	store := func(n int) { in.Stores++; in.StoreBytes += n }
	in.MemKnown = true
	var regsIn []int
	lastReg := -1
	var length int
	var rel int64
	hasRel := false
	var cur *MemRef
	for _, a := range x.Args {
		switch v := a.(type) {
		case s390xasm.Disp12:
			in.Mem = append(in.Mem, MemRef{Base: -1, Index: -1, Scale: 1, Disp: int64(v)})
			cur = &in.Mem[len(in.Mem)-1]
		case s390xasm.Disp20:
			in.Mem = append(in.Mem, MemRef{Base: -1, Index: -1, Scale: 1, Disp: int64(int32(uint32(v)<<12) >> 12)})
			cur = &in.Mem[len(in.Mem)-1]
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
	if s390xNoMem[op] {
		in.Mem = nil // address computations and branch targets, not accesses
	}
	mask := -1
	if len(regsIn) > 0 && regsIn[0] >= 100 {
		mask = regsIn[0] - 100
	}
	switch {
	case s390xStores[op] > 0:
		store(s390xStores[op])
	case s390xLoads[op] > 0:
		load(s390xLoads[op])
	case s390xMulti[op].size > 0:
		m := s390xMulti[op]
		if len(regsIn) >= 2 {
			n := (regsIn[1]-regsIn[0]+16)%16 + 1
			if m.store {
				store(n * m.size)
			} else {
				load(n * m.size)
			}
		} else {
			in.MemKnown = false
		}
	case s390xSS[op].loads+s390xSS[op].stores > 0:
		ss := s390xSS[op]
		if xcClears(op, in.Mem) {
			// xc of a field with itself zeroes it without reading it: QEMU
			// translates it to plain stores of zero (target/s390x/tcg/
			// translate.c op_xc, "If the addresses are identical, this is a
			// store/memset of zero", Unicorn 2.1.1), so the emulator does
			// no load; the one operand is written.
			ss.loads = 0
			in.Mem = in.Mem[:1]
		}
		for i := 0; i < ss.loads; i++ {
			load(length)
		}
		for i := 0; i < ss.stores; i++ {
			store(length)
		}
	case s390xNoMem[op]:
	default:
		in.MemKnown = false
	}
	for i := range in.Mem {
		r := &in.Mem[i]
		switch {
		case s390xSS[op].loads+s390xSS[op].stores > 0:
			// SS format: operand 1 is read and written (mvc: written), operand 2 read.
			r.Size = length
			r.Load = (i == 1 || op != "mvc") && !(op == "xc" && len(in.Mem) == 1)
			r.Store = i == 0 && s390xSS[op].stores > 0
		case len(in.Mem) == 1:
			r.Size = in.LoadBytes + in.StoreBytes
			r.Load, r.Store = in.Loads > 0, in.Stores > 0
		}
	}
	if lr, ok := relLoadStore(op, in); ok && hasRel {
		// Relative-long loads/stores (lgrl, stgrl): the address is static.
		lr.Disp = int64(in.Addr) + rel
		in.Mem = append(in.Mem, lr)
	}
	target := uint64(int64(in.Addr) + rel)
	switch op {
	case "brasl", "bras":
		in.Flow, in.Target = FlowCall, target
	case "basr":
		if len(regsIn) == 2 && regsIn[1] != 0 {
			in.Flow = FlowIndirectCall
		}
	case "bcr":
		// bcr 15,%rN (br): an indirect jump; bcr with mask 0 or %r0 is a nop.
		if mask == 15 && lastReg > 0 {
			in.Flow = FlowIndirectJump
		}
	case "brc", "brcl":
		switch mask {
		case 0: // nop
		case 15:
			in.Flow, in.Target = FlowJump, target
		default:
			in.Flow, in.Target = FlowCondJump, target
		}
	case "cgij", "cij", "cgrj", "crj", "clgij", "clgrj", "brctg", "brct":
		in.Flow, in.Target = FlowCondJump, target
	}
	if hasRel {
		// objdump style: "brasl %r14,f00000 <ftrace_stub>", "lgrl %r4,1000000 <function_trace_op>".
		if i := strings.LastIndexAny(in.Text, " ,"); i > 0 {
			in.Text = in.Text[:i+1] + symText(sym, target)
		}
	}
}
