package emu

/*
#include "tm.h"
*/
import "C"

import (
	"sort"
	"unsafe"
)

// Block is one translated basic block with its execution count (counting
// on) and its instruction count.
type Block struct {
	Addr  uint64
	Size  int
	Insns int
	Count uint64
}

// Blocks returns every block seen so far, sorted by address, with the counts
// accumulated since the last ResetCounts.
func (m *Machine) Blocks() []Block {
	n := C.tm_block_count(m.c)
	if n == 0 {
		return nil
	}
	buf := make([]C.tm_block, n)
	k := C.tm_blocks_copy(m.c, (*C.tm_block)(unsafe.Pointer(&buf[0])), n)
	out := make([]Block, 0, k)
	for _, b := range buf[:k] {
		out = append(out, Block{Addr: uint64(b.addr), Size: int(b.size), Insns: int(b.ninsn), Count: uint64(b.count)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Addr != out[j].Addr {
			return out[i].Addr < out[j].Addr
		}
		return out[i].Size < out[j].Size
	})
	return out
}

// ResetCounts zeroes every block's execution count.
func (m *Machine) ResetCounts() { C.tm_reset_counts(m.c) }
