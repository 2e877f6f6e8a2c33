package emu

/*
#include <stdlib.h>
#include "tm.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"trampemu/regs"
)

// x86-64 guest memory: each region of the memory map gets a physical home
// and 4-level page tables translate its kernel virtual address to it, as in
// a booted kernel. (s390x runs with DAT off: virtual = physical.)
const (
	x86PageTablePhys = 0x10000   // page tables live here, not mapped virtually
	x86PageTableSize = 64 << 10  // 16 pages: room for every table of the map
	x86RegionPhys    = 0x1000000 // first region's physical address
	x86PteFlags      = 0x1 | 0x4 // present, user (CPL 0 ignores U/S without SMEP)
	x86PteWrite      = 0x2       // writable
	x86PageSize      = 4096
	x86EntriesPage   = 512
)

// setupX86Paging writes page tables mapping every region and turns paging on.
func (m *Machine) setupX86Paging() error {
	ptr := C.calloc(C.size_t(x86PageTableSize), 1)
	if ptr == nil {
		return fmt.Errorf("emu: out of memory for page tables")
	}
	if err := ucCheck(C.tm_map(m.c, C.uint64_t(x86PageTablePhys), C.uint64_t(x86PageTableSize), C.uint32_t(regs.PermRead|regs.PermWrite), ptr)); err != nil {
		C.free(ptr)
		return fmt.Errorf("emu: mapping page tables: %w", err)
	}
	m.pagetables = ptr
	mem := unsafe.Slice((*byte)(ptr), x86PageTableSize)
	used := 1 // page 0 is the PML4
	// table returns the physical address of the next-level table behind
	// entry idx of the table at tablePhys, allocating it on first use.
	table := func(tablePhys uint64, idx uint64) (uint64, error) {
		off := tablePhys - x86PageTablePhys + idx*8
		e := binary.LittleEndian.Uint64(mem[off:])
		if e&1 != 0 {
			return e &^ 0xfff, nil
		}
		if (used+1)*x86PageSize > x86PageTableSize {
			return 0, fmt.Errorf("emu: page-table area full")
		}
		phys := uint64(x86PageTablePhys + used*x86PageSize)
		used++
		binary.LittleEndian.PutUint64(mem[off:], phys|x86PteFlags|x86PteWrite)
		return phys, nil
	}
	for _, r := range m.regions {
		for off := uint64(0); off < r.Size; off += x86PageSize {
			va := r.Base + off
			t := uint64(x86PageTablePhys)
			var err error
			for _, shift := range []uint{39, 30, 21} {
				if t, err = table(t, (va>>shift)&(x86EntriesPage-1)); err != nil {
					return err
				}
			}
			pte := (r.phys + off) | x86PteFlags
			if r.Perm&regs.PermWrite != 0 {
				pte |= x86PteWrite
			}
			binary.LittleEndian.PutUint64(mem[t-x86PageTablePhys+((va>>12)&(x86EntriesPage-1))*8:], pte)
		}
	}
	return ucCheck(C.tm_x86_paging(m.c, C.uint64_t(x86PageTablePhys)))
}
