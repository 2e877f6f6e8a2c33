// exact.c: see exact.h. A code hook on every instruction notes which range
// the instruction is in and counts it; a memory hook counts the loads and
// stores Unicorn itself performs for it. Both are Unicorn's own view of
// the execution: nothing here uses the disassembler or the block table.
#include <stdlib.h>
#include "exact.h"

static void tm_exact_code(uc_engine *uc, uint64_t addr, uint32_t size, void *user) {
	tm_exact *e = user;
	if (addr >= e->skip_lo && addr < e->skip_hi)
		return;
	e->cur = -1;
	e->ni[0] = e->ni[1] = 0;
	// FNV-1a over the address's 8 bytes, low byte first.
	for (int b = 0; b < 8; b++) {
		e->pc_hash ^= (addr >> (8 * b)) & 0xff;
		e->pc_hash *= TM_FNV_PRIME;
	}
	e->pc_count++;
	for (int i = 0; i < e->n; i++) {
		if (addr >= e->lo[i] && addr < e->hi[i]) {
			e->cur = i;
			e->counts[i].insns++;
			return;
		}
	}
}

// tm_exact_mem counts one access of the current instruction. QEMU splits a
// multi-register access (s390x stmg/lmg) into one access per register, and
// not in address order (lmg loads the first and the last register first):
// the accesses of one kind whose bytes form one contiguous interval are
// one access, as the instruction's memory operand is one access.
static void tm_exact_mem(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *user) {
	tm_exact *e = user;
	if (e->cur < 0)
		return;
	tm_exact_count *c = &e->counts[e->cur];
	int k = type == UC_MEM_WRITE ? 1 : 0;
	uint64_t lo = addr, hi = addr + (uint64_t)size;
	if (k)
		c->store_bytes += (uint64_t)size;
	else
		c->load_bytes += (uint64_t)size;
	// Merge [lo, hi) with every interval it touches.
	int joined = 0;
	for (int i = 0; i < e->ni[k];) {
		if (lo <= e->ihi[k][i] && e->ilo[k][i] <= hi) {
			lo = lo < e->ilo[k][i] ? lo : e->ilo[k][i];
			hi = hi > e->ihi[k][i] ? hi : e->ihi[k][i];
			e->ni[k]--;
			e->ilo[k][i] = e->ilo[k][e->ni[k]];
			e->ihi[k][i] = e->ihi[k][e->ni[k]];
			joined++;
			continue;
		}
		i++;
	}
	// A new interval is one more access; joining j intervals makes j - 1
	// fewer.
	int64_t delta = 1 - joined;
	if (k)
		c->stores += delta;
	else
		c->loads += delta;
	if (e->ni[k] < TM_EXACT_SPANS) {
		e->ilo[k][e->ni[k]] = lo;
		e->ihi[k][e->ni[k]] = hi;
		e->ni[k]++;
	}
}

tm_exact *tm_exact_new(tm *m, const uint64_t *lo, const uint64_t *hi, int n, uc_err *err) {
	if (n < 1 || n > TM_EXACT_RANGES) {
		*err = UC_ERR_ARG;
		return NULL;
	}
	tm_exact *e = calloc(1, sizeof(tm_exact));
	if (!e) {
		*err = UC_ERR_NOMEM;
		return NULL;
	}
	e->uc = m->uc;
	e->n = n;
	e->skip_lo = m->host_hi;
	e->skip_hi = m->stub_hi;
	e->cur = -1;
	tm_exact_reset_trace(e);
	for (int i = 0; i < n; i++) {
		e->lo[i] = lo[i];
		e->hi[i] = hi[i];
	}
	// Every instruction, not only the ranges': the hook must also see
	// control leave a range, or the next instruction's accesses would be
	// counted against it.
	*err = uc_hook_add(m->uc, &e->h_code, UC_HOOK_CODE, (void *)tm_exact_code, e, 1, 0);
	if (*err == UC_ERR_OK)
		*err = uc_hook_add(m->uc, &e->h_mem, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, (void *)tm_exact_mem, e, 1, 0);
	// Code translated before the hooks existed does not call them: the
	// caller drops those translations (a whole-cache flush costs 100 ms).
	if (*err != UC_ERR_OK) {
		tm_exact_stop(e);
		free(e);
		return NULL;
	}
	return e;
}

uc_err tm_exact_stop(tm_exact *e) {
	uc_err err = UC_ERR_OK, err2 = UC_ERR_OK;
	if (e->h_code)
		err = uc_hook_del(e->uc, e->h_code);
	if (e->h_mem)
		err2 = uc_hook_del(e->uc, e->h_mem);
	e->h_code = e->h_mem = 0;
	return err != UC_ERR_OK ? err : err2;
}

void tm_exact_free(tm_exact *e) { free(e); }

void tm_exact_reset_trace(tm_exact *e) {
	e->pc_hash = TM_FNV_OFFSET;
	e->pc_count = 0;
}

// tm_raw_begin removes the block hook (unless keep_blocks) and the
// host-function hook (the host stubs are then the plain return
// instructions they are), for good:
// the machine stays raw. The caller drops the translations made with them
// and must have no watch, probe or tracer on (their hooks stay).
uc_err tm_raw_begin(tm *m, int keep_blocks) {
	uc_err err = UC_ERR_OK;
	if (!keep_blocks && m->h_block && (err = uc_hook_del(m->uc, m->h_block)) != UC_ERR_OK)
		return err;
	if (!keep_blocks)
		m->h_block = 0;
	if (m->h_host && (err = uc_hook_del(m->uc, m->h_host)) != UC_ERR_OK)
		return err;
	m->h_host = 0;
	return UC_ERR_OK; // the caller drops the hooked translations
}

