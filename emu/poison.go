package emu

/*
#include "tm.h"
*/
import "C"

// PoisonXor is the constant of the poison pattern a watch writes below the
// stack pointer on every enter (WatchOptions.PoisonXor); the one home of the
// pattern, shared with tm.c through TM_POISON_ADDR_MASK.
const PoisonXor = 0x5afe000000000000

// poisonAddrMask is TM_POISON_ADDR_MASK: the address bits of the pattern.
const poisonAddrMask = uint64(C.TM_POISON_ADDR_MASK)

// Poison is the pattern word a watch with PoisonXor writes at guest address
// addr: recognisable in a finding, and different at every address.
func Poison(addr uint64) uint64 { return PoisonWith(PoisonXor, addr) }

// PoisonWith is the pattern word at addr for the constant xor.
func PoisonWith(xor, addr uint64) uint64 { return xor ^ (addr & poisonAddrMask) }
