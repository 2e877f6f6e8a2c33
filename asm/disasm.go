package asm

import (
	"fmt"
	"sync"

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
	// FlowCondIndirectJump: a conditional jump through a register or
	// memory (s390x bcr/bc with a mask other than 0 and 15).
	FlowCondIndirectJump
	// When adding a kind, name it in flowNames.
)

var flowNames = [...]string{
	FlowNone: "none", FlowCall: "call", FlowIndirectCall: "indirect-call", FlowJump: "jump",
	FlowCondJump: "cond-jump", FlowIndirectJump: "indirect-jump", FlowReturn: "return", FlowTrap: "trap",
	FlowCondIndirectJump: "cond-indirect-jump",
}

// String names the flow kind ("call", "cond-jump").
func (f Flow) String() string {
	if int(f) < len(flowNames) {
		return flowNames[f]
	}
	return fmt.Sprintf("Flow(%d)", f)
}

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

// access records one memory access of the instruction and counts it.
func (in *Inst) access(r MemRef) {
	if r.Load {
		in.Loads++
		in.LoadBytes += r.Size
	}
	if r.Store {
		in.Stores++
		in.StoreBytes += r.Size
	}
	in.Mem = append(in.Mem, r)
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
	return mustAsmArch(a).disassembler(sym)
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

// xarchDecodeMu serialises the golang.org/x/arch decoders that record which
// table entries matched in a package-level slice (decoderCover in
// s390xasm and arm64asm v0.33.0, decode.go, s390xasm allocating it on first
// use): two machines disassembling at once would race on it.
var xarchDecodeMu sync.Mutex
