// exact.h: the per-instruction counting mode (exact.c), an independent
// check of the block counters: slow, used only to prove them.
#ifndef TRAMPEMU_EXACT_H
#define TRAMPEMU_EXACT_H

#include "tm.h"

#define TM_EXACT_RANGES 4
#define TM_EXACT_SPANS 8

typedef struct tm_exact_count {
	uint64_t insns, loads, stores, load_bytes, store_bytes;
} tm_exact_count;

typedef struct tm_exact {
	uc_engine *uc;
	uint64_t lo[TM_EXACT_RANGES], hi[TM_EXACT_RANGES];
	int n;
	int cur;          // range of the instruction executing now, -1: none
	// [skip_lo, skip_hi): the clobber routine (emu/clobber.go), the host
	// function's work: its instructions are not counted and its accesses
	// (x86-64: the ret's pop) belong to the stub's branch, which stands
	// for the plain return stub
	uint64_t skip_lo, skip_hi;
	// the byte intervals this instruction has accessed so far, per kind
	// (0 load, 1 store): accesses that touch one interval are one access
	uint64_t ilo[2][TM_EXACT_SPANS], ihi[2][TM_EXACT_SPANS];
	int ni[2];
	tm_exact_count counts[TM_EXACT_RANGES];
	// pc_hash: FNV-1a (64-bit) over the address of every instruction
	// executed, in order, in or out of the ranges: the PC trace, hashed
	// here so that no Go code runs per instruction; pc_count its length.
	uint64_t pc_hash, pc_count;
	uc_hook h_code, h_mem;
} tm_exact;

#define TM_FNV_OFFSET 0xcbf29ce484222325ULL
#define TM_FNV_PRIME 0x100000001b3ULL

void tm_exact_reset_trace(tm_exact *e);

tm_exact *tm_exact_new(tm *m, const uint64_t *lo, const uint64_t *hi, int n, uc_err *err);
uc_err tm_exact_stop(tm_exact *e);
void tm_exact_free(tm_exact *e);

// Raw mode: every trampemu hook off (block counter and limit, host
// functions, watch, probes, tracer), for a baseline of Unicorn's own speed.
uc_err tm_raw_begin(tm *m, int keep_blocks);
#endif
