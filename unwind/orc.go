package unwind

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// ORC register numbers (arch/x86/include/asm/orc_types.h, v6.1 and v6.12:
// the same values).
const (
	RegUndefined  = 0
	RegPrevSP     = 1
	RegDX         = 2
	RegDI         = 3
	RegBP         = 4
	RegSP         = 5
	RegR10        = 6
	RegR13        = 7
	RegBPIndirect = 8
	RegSPIndirect = 9
)

// Type is an entry's type in the v6.4+ numbering (ORC_TYPE_*,
// arch/x86/include/asm/orc_types.h v6.4+); a v6.1 table is decoded into it
// (v6.1 has CALL 0, REGS 1, REGS_PARTIAL 2 and an end bit).
type Type int

// Entry types (arch/x86/include/asm/orc_types.h, v6.4+).
const (
	TypeUndefined   Type = 0
	TypeEndOfStack  Type = 1
	TypeCall        Type = 2
	TypeRegs        Type = 3
	TypeRegsPartial Type = 4
)

func (t Type) String() string {
	switch t {
	case TypeUndefined:
		return "undefined"
	case TypeEndOfStack:
		return "end_of_stack"
	case TypeCall:
		return "call"
	case TypeRegs:
		return "regs"
	case TypeRegsPartial:
		return "regs_partial"
	}
	return fmt.Sprintf("type%d", int(t))
}

// Entry is one struct orc_entry with its ip.
type Entry struct {
	IP       uint64
	SPOffset int16
	BPOffset int16
	SPReg    uint8
	BPReg    uint8
	Type     Type
	Signal   bool
}

// Format is the layout of struct orc_entry's last byte: 61 (v6.1: type:2,
// end:1) or 64 (v6.4+: type:3, signal:1).
type Format int

// Table is an image's ORC table, sorted by ip with terminators (undefined
// entries) first among equal ips, as the kernel sorts a module's table
// (arch/x86/kernel/unwind_orc.c orc_sort_cmp).
type Table struct {
	Entries []Entry
	Format  Format
}

// EntrySize is sizeof(struct orc_entry) (arch/x86/include/asm/orc_types.h:
// packed, 6 bytes).
const EntrySize = 6

// ParseORC decodes an image's .orc_unwind_ip (s32 each, ip = the slot's
// own address + value) at ipAddr and .orc_unwind (6 bytes each) in format
// f. It never panics; mismatched sizes are an error.
func ParseORC(ipData []byte, ipAddr uint64, orcData []byte, f Format) (*Table, error) {
	if f != 61 && f != 64 {
		return nil, fmt.Errorf("orc: unknown format %d (61 or 64)", f)
	}
	if len(ipData)%4 != 0 || len(orcData)%EntrySize != 0 {
		return nil, fmt.Errorf("orc: .orc_unwind_ip has %d bytes, .orc_unwind %d: not whole entries", len(ipData), len(orcData))
	}
	n := len(ipData) / 4
	if len(orcData)/EntrySize != n {
		return nil, fmt.Errorf("orc: %d ips but %d entries", n, len(orcData)/EntrySize)
	}
	t := &Table{Format: f, Entries: make([]Entry, n)}
	for i := 0; i < n; i++ {
		rel := int32(binary.LittleEndian.Uint32(ipData[4*i:]))
		e := decodeEntry(orcData[EntrySize*i:EntrySize*(i+1)], f)
		e.IP = ipAddr + uint64(4*i) + uint64(int64(rel))
		t.Entries[i] = e
	}
	sort.SliceStable(t.Entries, func(i, j int) bool {
		a, b := t.Entries[i], t.Entries[j]
		if a.IP != b.IP {
			return a.IP < b.IP
		}
		return a.weak() && !b.weak()
	})
	return t, nil
}

// weak is a terminator: an undefined entry that yields to a real one at
// the same ip (v6.12 orc_sort_cmp tests type UNDEFINED; v6.1 sp_reg
// UNDEFINED && !end).
func (e Entry) weak() bool { return e.Type == TypeUndefined }

func decodeEntry(b []byte, f Format) Entry {
	e := Entry{
		SPOffset: int16(binary.LittleEndian.Uint16(b[0:])),
		BPOffset: int16(binary.LittleEndian.Uint16(b[2:])),
		SPReg:    b[4] & 0xf,
		BPReg:    b[4] >> 4,
	}
	if f == 61 {
		// v6.1: type:2 (CALL 0, REGS 1, REGS_PARTIAL 2), end:1; an
		// undefined sp_reg is "undefined" (end 0) or the end of the stack
		// (end 1) (arch/x86/kernel/unwind_orc.c v6.1 unwind_next_frame).
		switch b[5] & 3 {
		case 0:
			e.Type = TypeCall
		case 1:
			e.Type = TypeRegs
		default:
			e.Type = TypeRegsPartial
		}
		if e.SPReg == RegUndefined {
			e.Type = TypeUndefined
			if b[5]&4 != 0 {
				e.Type = TypeEndOfStack
			}
		}
		// v6.1 sets signal for both regs types (unwind_next_frame).
		e.Signal = e.Type == TypeRegs || e.Type == TypeRegsPartial
		return e
	}
	e.Type = Type(b[5] & 7)
	e.Signal = b[5]&8 != 0
	return e
}

// Find is __orc_find: the entry of the rightmost ip <= ip, and false when
// ip is below every entry (arch/x86/kernel/unwind_orc.c).
func (t *Table) Find(ip uint64) (Entry, bool) {
	i := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].IP > ip }) - 1
	if i < 0 {
		return Entry{}, false
	}
	return t.Entries[i], true
}

// RegName is the objtool --dump name of an ORC register.
func RegName(r uint8) string {
	switch r {
	case RegUndefined:
		return "(und)"
	case RegPrevSP:
		return "prevsp"
	case RegDX:
		return "dx"
	case RegDI:
		return "di"
	case RegBP:
		return "bp"
	case RegSP:
		return "sp"
	case RegR10:
		return "r10"
	case RegR13:
		return "r13"
	case RegBPIndirect:
		return "bp(ind)"
	case RegSPIndirect:
		return "sp(ind)"
	}
	return fmt.Sprintf("reg%d", r)
}

func (e Entry) String() string {
	sp := RegName(e.SPReg)
	if e.SPReg != RegUndefined {
		sp += fmt.Sprintf("%+d", e.SPOffset)
	}
	bp := RegName(e.BPReg)
	if e.BPReg != RegUndefined {
		bp += fmt.Sprintf("%+d", e.BPOffset)
	}
	s := fmt.Sprintf("%#x: sp:%s bp:%s type:%s", e.IP, sp, bp, e.Type)
	if e.Signal {
		s += " signal"
	}
	return s
}

// Section is the address and bytes of one section of a linked image.
type Section struct {
	Addr uint64
	Data []byte
}

// ImageORC reads the ORC table of a linked image from its .orc_unwind_ip
// and .orc_unwind sections, written by an objtool of hint format f (61 or
// 64, asm.Objtool.Format).
func ImageORC(f int, ip, orc Section) (*Table, error) {
	if len(ip.Data) == 0 {
		return nil, fmt.Errorf("orc: the image has no .orc_unwind_ip (objtool did not run, or wrote no entries)")
	}
	return ParseORC(ip.Data, ip.Addr, orc.Data, Format(f))
}
