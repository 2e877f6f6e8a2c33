// live.c: reading registers where the engine keeps them.
//
// uc_reg_read costs 50-70 instructions per register (a switch on the
// register id per call, the batch loop around it), and a checked traced
// call reads every register at each of its four watch events: a third of
// what the checks add to a call. The engine keeps the general registers as
// plain words of its CPU state (QEMU's CPUArchState: x86-64 regs[16],
// s390x regs[16], arm64 xregs[32], riscv64 gpr[32]), which is what its own
// uc_reg_read returns for them, and its hooks run with that state written
// back (Unicorn's block and code hooks are TCG helpers that may read
// globals). Unicorn does not export where that state lies, so it is found
// by value: every register of idx gets a distinct pattern, and the words
// of the uc_struct that point into readable, writable memory are followed
// to the block that holds each pattern exactly once within LIVE_SCAN bytes
// of the pointer; the same word must lead to the registers of a second
// engine of the arch (a pointer that merely lies near the state on the
// heap does not), and tm_live_use, which every machine goes through, then
// needs two more rounds of patterns at the same offsets and the registers'
// own values after they are put back. The word and the offsets are the
// same for every engine of an arch in one process, so the Go side keeps
// them. Registers the search does not cover (pc, flags: computed by the
// engine) are read through uc_reg_read; nothing found, every register is.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm.h"

uint64_t tm_pattern(int r, int k);

#define LIVE_WORDS 4096       // words of the uc_struct followed
#define LIVE_SCAN (1u << 20)  // bytes searched from each pointer
#define LIVE_RANGES 65536

typedef struct { uint64_t lo, hi; } live_range;

// live_ranges reads the process's readable, writable, not executable
// mappings from /proc/self/maps.
static int live_ranges(live_range *r, int max) {
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	char line[512];
	int n = 0;
	while (n < max && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;
		char perm[8];
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) != 3)
			continue;
		// the CPU state is written by the engine and never code
		if (perm[0] != 'r' || perm[1] != 'w' || perm[2] == 'x' || strstr(line, "[vvar") || strstr(line, "[vsyscall]"))
			continue;
		r[n].lo = lo;
		r[n].hi = hi;
		n++;
	}
	fclose(f);
	return n;
}

// live_end is the end of the readable mapping holding [p, p+8), 0 if none.
static uint64_t live_end(const live_range *r, int n, uint64_t p) {
	for (int i = 0; i < n; i++)
		if (p >= r[i].lo && p < r[i].hi && r[i].hi - p >= 8)
			return r[i].hi;
	return 0;
}

static int live_write(tm *m, const int *idx, int n, int round, const uint64_t *vals) {
	for (int k = 0; k < n; k++) {
		uint64_t v = vals ? vals[k] : tm_pattern(round, k);
		if (uc_reg_write(m->uc, m->reg_ids[idx[k]], &v) != UC_ERR_OK)
			return 0;
	}
	return 1;
}

// live_count: how many registers of idx show round's pattern (or vals) at
// base + off[k]; off[k] < 0 does not count (tm_live_use).
static int live_count(const uint8_t *base, const int32_t *off, int n, int round, const uint64_t *vals) {
	int got = 0;
	for (int k = 0; k < n; k++) {
		uint64_t v, want = vals ? vals[k] : tm_pattern(round, k);
		if (off[k] < 0)
			continue;
		memcpy(&v, base + off[k], 8);
		got += v == want;
	}
	return got;
}

// live_twin_holds: in the engine twin, word w of the uc_struct leads to
// its registers idx at offsets off (two rounds of patterns written through
// the engine, read back there).
static int live_twin_holds(uc_engine *twin, const live_range *r, int nr, const tm *m, const int *idx, int n, int w, const int32_t *off) {
	const uint8_t *uc = (const uint8_t *)twin;
	if (!live_end(r, nr, (uint64_t)(uc + 8 * w)))
		return 0;
	uint64_t p;
	memcpy(&p, uc + 8 * w, 8);
	if (!p || (p & 7))
		return 0;
	for (int k = 0; k < n; k++)
		if (!live_end(r, nr, p + (uint64_t)off[k]))
			return 0;
	for (int round = 4; round < 6; round++) {
		for (int k = 0; k < n; k++) {
			uint64_t v = tm_pattern(round & 1, k) ^ ((uint64_t)round << 56);
			if (uc_reg_write(twin, m->reg_ids[idx[k]], &v) != UC_ERR_OK)
				return 0;
		}
		for (int k = 0; k < n; k++) {
			uint64_t v;
			memcpy(&v, (const uint8_t *)p + off[k], 8);
			if (v != (tm_pattern(round & 1, k) ^ ((uint64_t)round << 56)))
				return 0;
		}
	}
	return 1;
}

// tm_live_find finds the engine's CPU state for the registers idx[0..n)
// (see the file comment); on success it turns live reads on and returns
// how many registers it found, with the uc_struct word in *word and the
// offsets by position in idx in off; -1: nothing found, nothing changed.
int tm_live_find(tm *m, const int *idx, int n, int *word, int32_t *off) {
	uint64_t saved[TM_NREGS];
	if (n <= 0 || n > m->nregs)
		return -1;
	for (int k = 0; k < n; k++)
		if (uc_reg_read(m->uc, m->reg_ids[idx[k]], &saved[k]) != UC_ERR_OK)
			return -1;
	live_range *r = malloc(sizeof(live_range) * LIVE_RANGES);
	if (!r)
		return -1;
	int nr = live_ranges(r, LIVE_RANGES);
	int best_w = -1;
	int32_t best_off[TM_NREGS];
	uc_engine *twin = NULL;
	if (!live_write(m, idx, n, 0, NULL))
		goto out;
	const uint8_t *uc = (const uint8_t *)m->uc;
	for (int w = 0; w < LIVE_WORDS && best_w < 0; w++) {
		if (!live_end(r, nr, (uint64_t)(uc + 8 * w)))
			break;
		uint64_t p;
		memcpy(&p, uc + 8 * w, 8);
		uint64_t end = live_end(r, nr, p);
		if (!end || (p & 7))
			continue;
		if (end - p > LIVE_SCAN)
			end = p + LIVE_SCAN;
		int32_t o[TM_NREGS];
		int found = 0;
		for (int k = 0; k < n; k++) {
			uint64_t want = tm_pattern(0, k);
			o[k] = -1;
			for (uint64_t a = p; a + 8 <= end; a += 8) {
				uint64_t v;
				memcpy(&v, (const uint8_t *)a, 8);
				if (v != want)
					continue;
				if (o[k] >= 0) { // twice: not the state
					o[k] = -1;
					break;
				}
				o[k] = (int32_t)(a - p);
			}
			if (o[k] < 0)
				break; // a register not here: next word
			found++;
		}
		if (found < n)
			continue;
		// Every register here. A pointer that merely lies near the state
		// on the heap (a word past the uc_struct, a neighbour object)
		// holds it at another offset in the next engine: the word must
		// lead to the registers of a second engine of the arch too.
		if (!twin) {
			// Unicorn builds the CPU at the first call that needs it; the
			// maps are read again for the memory it took
			uint64_t zero = 0;
			if (uc_open((uc_arch)m->arch, (uc_mode)m->mode, &twin) != UC_ERR_OK) {
				twin = NULL;
				break;
			}
			if (uc_reg_write(twin, m->reg_ids[idx[0]], &zero) != UC_ERR_OK)
				break;
			nr = live_ranges(r, LIVE_RANGES);
		}
		if (live_twin_holds(twin, r, nr, m, idx, n, w, o)) {
			best_w = w;
			memcpy(best_off, o, sizeof(int32_t) * (size_t)n);
		}
	}
	if (twin)
		uc_close(twin);
	if (best_w >= 0) {
		*word = best_w;
		memcpy(off, best_off, sizeof(int32_t) * (size_t)n);
	}
out:
	free(r);
	live_write(m, idx, n, 0, saved);
	if (best_w < 0)
		return -1;
	return tm_live_use(m, idx, n, best_w, off);
}

// tm_live_event reads a watch event's registers (all but the pc) with live
// reads on; a leave reads the flags only with leave_flags (else they are
// 0): x86-64 EFLAGS costs QEMU's lazy condition codes a computation, and
// only a check of full pt_regs looks at them after a run.
uc_err tm_live_event(tm *m, int enter) {
	for (int j = 0; j < m->nlive; j++)
		memcpy(&m->regs[m->live_idx[j]], m->live + m->live_at[j], 8 * (size_t)m->live_len[j]);
	if (m->nrest) {
		uc_err err = uc_reg_read_batch(m->uc, m->rest_ids, m->rest_ptrs, m->nrest);
		if (err != UC_ERR_OK)
			return err;
	}
	int fi = m->flags_index;
	if (fi < 0 || fi == m->pc_index)
		return UC_ERR_OK;
	if (!enter && !m->leave_flags) {
		m->regs[fi] = 0;
		return UC_ERR_OK;
	}
	return uc_reg_read(m->uc, m->reg_ids[fi], &m->regs[fi]);
}

// tm_live_use turns live reads on for this engine with the word and the
// offsets another engine of the arch found: two rounds of patterns and the
// registers' own values must show there (else -1, nothing changed);
// returns how many registers are read live.
int tm_live_use(tm *m, const int *idx, int n, int word, const int32_t *off) {
	uint64_t saved[TM_NREGS];
	if (n <= 0 || n > m->nregs || word < 0 || word >= LIVE_WORDS)
		return -1;
	for (int k = 0; k < n; k++)
		if (uc_reg_read(m->uc, m->reg_ids[idx[k]], &saved[k]) != UC_ERR_OK)
			return -1;
	uint64_t p;
	memcpy(&p, (const uint8_t *)m->uc + 8 * word, 8);
	const uint8_t *base = (const uint8_t *)p;
	int want = 0;
	for (int k = 0; k < n; k++)
		want += off[k] >= 0;
	if (!want || !p || (p & 7))
		return -1;
	// every word read must be mapped: this engine's word may point
	// elsewhere than the first one's did
	live_range *r = malloc(sizeof(live_range) * LIVE_RANGES);
	if (!r)
		return -1;
	int nr = live_ranges(r, LIVE_RANGES);
	for (int k = 0; k < n && want; k++)
		if (off[k] >= 0 && !live_end(r, nr, p + (uint64_t)off[k]))
			want = 0;
	free(r);
	if (!want)
		return -1;
	int ok = 1;
	for (int round = 2; round < 4 && ok; round++) {
		// rounds 2 and 3: patterns neither search used
		uint64_t vals[TM_NREGS];
		for (int k = 0; k < n; k++)
			vals[k] = tm_pattern(round & 1, k) ^ ((uint64_t)round << 56);
		ok = live_write(m, idx, n, 0, vals) && live_count(base, off, n, 0, vals) == want;
	}
	live_write(m, idx, n, 0, saved);
	if (!ok || live_count(base, off, n, 0, saved) != want)
		return -1;
	for (int i = 0; i < TM_NREGS; i++)
		m->live_off[i] = -1;
	for (int k = 0; k < n; k++)
		m->live_off[idx[k]] = off[k];
	m->live = (uint8_t *)base;
	m->live_on = 1;
	m->nlive = m->nrest = 0;
	for (int i = 0; i < m->nregs; i++) {
		if (i == m->pc_index || i == m->flags_index)
			continue; // the flags: tm_live_event
		if (m->live_off[i] >= 0) {
			int j = m->nlive - 1;
			if (j >= 0 && m->live_idx[j] + m->live_len[j] == i &&
			    m->live_at[j] + 8 * m->live_len[j] == m->live_off[i]) {
				m->live_len[j]++; // the next word of the run
				continue;
			}
			m->live_idx[m->nlive] = i;
			m->live_len[m->nlive] = 1;
			m->live_at[m->nlive++] = m->live_off[i];
		} else {
			m->rest_ids[m->nrest] = m->reg_ids[i];
			m->rest_ptrs[m->nrest++] = &m->regs[i];
		}
	}
	return want;
}
