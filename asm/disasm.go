package asm

import (
	"fmt"
	"strings"

	"golang.org/x/arch/s390x/s390xasm"
	"golang.org/x/arch/x86/x86asm"

	"trampemu/regs"
)

// Flow is what an instruction does to control flow.
type Flow uint8

// Control-flow kinds.
const (
	FlowNone         Flow = iota
	FlowCall              // direct call (x86 call rel32, s390x brasl/bras)
	FlowIndirectCall      // call through a register or memory (x86 call *, s390x basr)
	FlowJump              // unconditional direct jump
	FlowCondJump          // conditional direct jump
	FlowIndirectJump      // jump through a register or memory (x86 jmp *, s390x br)
	FlowReturn            // x86 ret
	FlowTrap              // int3, ud2, hlt, s390x 0x0000
)

// Inst is one decoded instruction with its static facts.
type Inst struct {
	Addr  uint64
	Len   int
	Bytes []byte
	Op    string // mnemonic, lower case ("mov", "stmg")
	Text  string // GNU syntax, branch targets as symbol+offset when known
	// Loads and Stores count memory accesses, implicit stack traffic of
	// call/ret/push/pop included; LoadBytes/StoreBytes their sizes.
	Loads, Stores         int
	LoadBytes, StoreBytes int
	// MemKnown is false when the tool has no memory-traffic facts for the
	// mnemonic (the counts are then 0 and cannot be trusted).
	MemKnown bool
	Flow     Flow
	Target   uint64 // direct branch target (Flow Call, Jump, CondJump)
	// Mem lists the memory accesses with their operands, implicit stack
	// traffic included (x86 push/pop/call/ret), so that an emulator can
	// compute each effective address from the registers before the
	// instruction runs (fault location, memory probes).
	Mem []MemRef
}

// MemRef is one memory access: base + index*scale + disp. Base and Index
// are register indices of the arch (regs.Arch.Regs), -1 for none; a
// rip-relative x86 operand has Base -1 and the absolute address in Disp.
type MemRef struct {
	Base, Index int
	Scale       int // 1 when there is no index
	Disp        int64
	Size        int // bytes accessed; 0 when unknown
	Load, Store bool
}

// Addr computes the operand's effective address from the register file
// (indices as in regs.Arch.Regs).
func (r MemRef) Addr(reg func(int) uint64) uint64 {
	a := uint64(r.Disp)
	if r.Base >= 0 {
		a += reg(r.Base)
	}
	if r.Index >= 0 {
		a += reg(r.Index) * uint64(max(r.Scale, 1))
	}
	return a
}

// Disassembler decodes instructions of one architecture.
type Disassembler interface {
	// Decode decodes the instruction at the start of code, located at pc.
	// It never panics, whatever the bytes; short or invalid input is an
	// error.
	Decode(code []byte, pc uint64) (Inst, error)
}

// Symbolizer names an address: symbol and offset, ok false when unknown.
type Symbolizer func(addr uint64) (name string, off uint64, ok bool)

// NewDisassembler returns the arch's disassembler; sym may be nil.
func NewDisassembler(a *regs.Arch, sym Symbolizer) Disassembler {
	if a.Name == "s390x" {
		return s390xDis{sym: sym}
	}
	return x86Dis{sym: sym}
}

// ForImage returns a disassembler that names addresses with the image's
// symbols.
func ForImage(im *Image) Disassembler { return NewDisassembler(im.Arch, im.Lookup) }

// Listing disassembles [start, end) of the image, one Inst per instruction;
// undecodable bytes end the listing with the error.
func Listing(im *Image, d Disassembler, start, end uint64) ([]Inst, error) {
	var out []Inst
	for pc := start; pc < end; {
		code := im.Bytes(pc, int(min(end-pc, 16)))
		in, err := d.Decode(code, pc)
		if err != nil {
			return out, fmt.Errorf("%s: %w", im.Describe(pc), err)
		}
		out = append(out, in)
		pc += uint64(in.Len)
	}
	return out, nil
}

func symText(sym Symbolizer, addr uint64) string {
	if sym != nil {
		if n, off, ok := sym(addr); ok {
			if off == 0 {
				return fmt.Sprintf("%x <%s>", addr, n)
			}
			return fmt.Sprintf("%x <%s+%#x>", addr, n, off)
		}
	}
	return fmt.Sprintf("%x", addr)
}

// ---- x86-64 ----

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

// ---- s390x ----

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
