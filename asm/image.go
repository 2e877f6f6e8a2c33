package asm

import (
	"bytes"
	"debug/elf"
	"fmt"
	"sort"
	"strings"

	"trampemu/regs"
)

// Image is a linked program for one guest architecture.
type Image struct {
	Arch     *regs.Arch
	Sections []Section
	Symbols  []Symbol // sorted by address, then name
	// Units are the code ranges of the source groups, in link order.
	Units []Unit
	// HostFuncs maps each host-function symbol to its stub address.
	HostFuncs map[string]uint64
	// ELF is the linked file (for objdump and for saving).
	ELF []byte
	// Objtool is the kernel objtool every object went through (x86-64),
	// nil for an arch without one; ObjtoolWarnings are its warnings, in
	// source order. The ORC table it wrote is in the sections
	// .orc_unwind_ip and .orc_unwind (package unwind reads it).
	Objtool         *Objtool
	ObjtoolWarnings []ObjtoolWarning
	byName          map[string]int
}

// SectionNamed returns the allocated section of that name.
func (im *Image) SectionNamed(name string) (Section, bool) {
	for _, s := range im.Sections {
		if s.Name == name {
			return s, true
		}
	}
	return Section{}, false
}

// Section is one allocated section of the image.
type Section struct {
	Name string
	Addr uint64
	Data []byte
	Exec bool
}

// Symbol is a named address in the image.
type Symbol struct {
	Name   string
	Addr   uint64
	Size   uint64
	Func   bool // STT_FUNC
	Global bool
}

// Unit is the code range [Start, End) of one group of sources.
type Unit struct {
	Name       string
	Start, End uint64
}

// Contains reports whether addr is in the unit's code.
func (u Unit) Contains(addr uint64) bool { return addr >= u.Start && addr < u.End }

// LoadELF reads a linked ELF executable for arch. It rejects anything it
// cannot map (wrong machine, sections outside the guest memory map) with an
// error and never panics, whatever the bytes.
func LoadELF(a *regs.Arch, data []byte) (im *Image, err error) {
	defer func() {
		// debug/elf is meant not to panic on malformed input; this keeps a
		// missed case an error too.
		if r := recover(); r != nil {
			im, err = nil, fmt.Errorf("malformed ELF: %v", r)
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	want := mustAsmArch(a).elfMachine
	if f.Machine != want {
		return nil, fmt.Errorf("ELF machine is %v, want %v for %s", f.Machine, want, a.Name)
	}
	if f.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("ELF class is %v, want ELFCLASS64", f.Class)
	}
	im = &Image{Arch: a, byName: map[string]int{}, ELF: data}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Size == 0 {
			continue
		}
		// Place before reading: a malformed size must not make us allocate
		// more than a guest region holds.
		r, ok := a.Memory.Find(s.Addr)
		if !ok || s.Size > r.End()-s.Addr {
			return nil, fmt.Errorf("section %s at %#x+%#x lies outside the %s guest memory map", s.Name, s.Addr, s.Size, a.Name)
		}
		sec := Section{Name: s.Name, Addr: s.Addr, Exec: s.Flags&elf.SHF_EXECINSTR != 0}
		if s.Type == elf.SHT_NOBITS {
			sec.Data = make([]byte, s.Size)
		} else {
			d, err := s.Data()
			if err != nil {
				return nil, fmt.Errorf("section %s: %w", s.Name, err)
			}
			if uint64(len(d)) != s.Size {
				return nil, fmt.Errorf("section %s: %d bytes of data for size %#x", s.Name, len(d), s.Size)
			}
			sec.Data = d
		}
		im.Sections = append(im.Sections, sec)
	}
	syms, err := f.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		return nil, fmt.Errorf("symbols: %w", err)
	}
	for _, s := range syms {
		t := elf.ST_TYPE(s.Info)
		if s.Name == "" || t == elf.STT_SECTION || t == elf.STT_FILE || s.Section == elf.SHN_UNDEF {
			continue
		}
		if s.Name[0] == '$' && elf.ST_BIND(s.Info) == elf.STB_LOCAL && t == elf.STT_NOTYPE {
			// An AArch64 mapping symbol ($x code, $d data: "ELF for the
			// Arm 64-bit Architecture", Mapping symbols), not a name.
			continue
		}
		im.Symbols = append(im.Symbols, Symbol{
			Name: s.Name, Addr: s.Value, Size: s.Size,
			Func: t == elf.STT_FUNC, Global: elf.ST_BIND(s.Info) != elf.STB_LOCAL,
		})
	}
	sort.SliceStable(im.Symbols, func(i, j int) bool {
		if im.Symbols[i].Addr != im.Symbols[j].Addr {
			return im.Symbols[i].Addr < im.Symbols[j].Addr
		}
		return im.Symbols[i].Name < im.Symbols[j].Name
	})
	for i, s := range im.Symbols {
		if _, dup := im.byName[s.Name]; !dup || s.Global {
			im.byName[s.Name] = i
		}
	}
	return im, nil
}

// finishUnits turns the linker script's unit markers into Units and drops
// the markers from the symbol table.
func (im *Image) finishUnits(names []string) {
	for i, n := range names {
		s, _ := im.Symbol(fmt.Sprintf("__trampemu_unit%d_start", i))
		e, _ := im.Symbol(fmt.Sprintf("__trampemu_unit%d_end", i))
		im.Units = append(im.Units, Unit{Name: n, Start: s, End: e})
	}
	kept := im.Symbols[:0]
	for _, s := range im.Symbols {
		if !strings.HasPrefix(s.Name, "__trampemu_unit") {
			kept = append(kept, s)
		}
	}
	im.Symbols = kept
	im.byName = map[string]int{}
	for i, s := range im.Symbols {
		if _, dup := im.byName[s.Name]; !dup || s.Global {
			im.byName[s.Name] = i
		}
	}
}

// Symbol returns the address of a symbol or host function.
func (im *Image) Symbol(name string) (uint64, bool) {
	if i, ok := im.byName[name]; ok {
		return im.Symbols[i].Addr, true
	}
	if a, ok := im.HostFuncs[name]; ok {
		return a, true
	}
	return 0, false
}

// Unit finds a unit by name.
func (im *Image) Unit(name string) (Unit, bool) {
	for _, u := range im.Units {
		if u.Name == name {
			return u, true
		}
	}
	return Unit{}, false
}

// Lookup returns the symbol at or before addr (name, offset), preferring
// host functions for stub addresses. ok is false when nothing precedes addr
// in the same section.
func (im *Image) Lookup(addr uint64) (string, uint64, bool) {
	for name, h := range im.HostFuncs {
		if addr >= h && addr < h+HostStubStride {
			return name, addr - h, true
		}
	}
	i := sort.Search(len(im.Symbols), func(i int) bool { return im.Symbols[i].Addr > addr }) - 1
	if i < 0 {
		return "", 0, false
	}
	// Among symbols at the same address prefer a global one.
	best := i
	for j := i; j >= 0 && im.Symbols[j].Addr == im.Symbols[i].Addr; j-- {
		if im.Symbols[j].Global && !im.Symbols[best].Global {
			best = j
		}
	}
	s := im.Symbols[best]
	if sec, ok := im.sectionOf(addr); !ok || !sec.contains(s.Addr) {
		return "", 0, false
	}
	return s.Name, addr - s.Addr, true
}

// Describe renders addr as "sym+0xoff" (or "sym") when a symbol covers it,
// else as a hex address.
func (im *Image) Describe(addr uint64) string {
	if im == nil {
		return fmt.Sprintf("%#x", addr)
	}
	n, off, ok := im.Lookup(addr)
	switch {
	case !ok:
		return fmt.Sprintf("%#x", addr)
	case off == 0:
		return n
	default:
		return fmt.Sprintf("%s+%#x", n, off)
	}
}

func (s Section) contains(addr uint64) bool {
	return addr >= s.Addr && addr < s.Addr+uint64(len(s.Data))
}

func (im *Image) sectionOf(addr uint64) (Section, bool) {
	for _, s := range im.Sections {
		if s.contains(addr) {
			return s, true
		}
	}
	return Section{}, false
}

// Bytes returns up to n bytes of the image at addr (fewer at a section end).
func (im *Image) Bytes(addr uint64, n int) []byte {
	s, ok := im.sectionOf(addr)
	if !ok {
		return nil
	}
	off := addr - s.Addr
	end := off + uint64(n)
	if end > uint64(len(s.Data)) {
		end = uint64(len(s.Data))
	}
	return s.Data[off:end]
}

// FuncRange returns the address range of a function symbol: its ELF size
// when set, else up to the next symbol of its section.
func (im *Image) FuncRange(name string) (start, end uint64, ok bool) {
	i, found := im.byName[name]
	if !found {
		return 0, 0, false
	}
	s := im.Symbols[i]
	if s.Size > 0 {
		return s.Addr, s.Addr + s.Size, true
	}
	sec, ok := im.sectionOf(s.Addr)
	if !ok {
		return 0, 0, false
	}
	end = sec.Addr + uint64(len(sec.Data))
	for _, t := range im.Symbols[i+1:] {
		if t.Addr > s.Addr && t.Addr < end {
			end = t.Addr
			break
		}
	}
	return s.Addr, end, true
}

// McountLoc returns the call sites of traced functions that the sources
// recorded in section __mcount_loc (one word each), as the kernel collects
// them for dynamic ftrace.
func (im *Image) McountLoc() []uint64 {
	start, ok1 := im.Symbol("__start_mcount_loc")
	stop, ok2 := im.Symbol("__stop_mcount_loc")
	if !ok1 || !ok2 || stop <= start {
		return nil
	}
	b := im.Bytes(start, int(stop-start))
	var out []uint64
	for i := 0; i+8 <= len(b); i += 8 {
		out = append(out, im.Arch.Word(b[i:]))
	}
	return out
}
