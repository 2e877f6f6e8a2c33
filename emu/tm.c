// tm.c: see tm.h. Fixed-arity wrappers for Unicorn's variadic calls
// (uc_hook_add, uc_ctl) live here too: cgo cannot call variadic functions.
#include <stdlib.h>
#include <string.h>
#include "tm.h"
#include "_cgo_export.h"

tm *tm_new(int arch, int mode, uintptr_t handle, const int *reg_ids, int nregs, int pc_index, int flags_index, uc_err *err) {
	if (nregs < 1 || nregs > TM_NREGS || pc_index < 0 || pc_index >= nregs || flags_index < -1 || flags_index >= nregs) {
		*err = UC_ERR_ARG;
		return NULL;
	}
	tm *m = calloc(1, sizeof(tm));
	if (!m) {
		*err = UC_ERR_NOMEM;
		return NULL;
	}
	m->arch = arch;
	m->mode = mode;
	*err = uc_open((uc_arch)arch, (uc_mode)mode, &m->uc);
	if (*err != UC_ERR_OK) {
		free(m);
		return NULL;
	}
	m->handle = handle;
	memcpy(m->reg_ids, reg_ids, sizeof(m->reg_ids[0]) * (size_t)nregs);
	m->nregs = nregs;
	m->pc_index = pc_index;
	m->flags_index = flags_index;
	m->cap = 1024;
	m->blocks = calloc(m->cap, sizeof(tm_block));
	if (!m->blocks) {
		uc_close(m->uc);
		free(m);
		*err = UC_ERR_NOMEM;
		return NULL;
	}
	m->insn_limit = UINT64_MAX;
	m->leave_flags = 1;
	for (int i = 0; i < nregs; i++) {
		if (i == pc_index)
			continue;
		m->event_ids[m->nevent] = m->reg_ids[i];
		m->event_ptrs[m->nevent++] = &m->regs[i];
	}
	// The arch's own setup (the s390x PSW mask, x86-64 paging) is done by
	// the Go hooks of emu/x86_64.go and emu/s390x.go.
	return m;
}

void tm_free(tm *m) {
	if (!m)
		return;
	if (m->uc)
		uc_close(m->uc);
	free(m->probes);
	free(m->probe_first);
	free(m->log);
	free(m->wlog);
	free(m->poison_pat);
	free(m->blocks);
	if (m->ctx)
		uc_context_free(m->ctx);
	free(m);
}

uc_err tm_map(tm *m, uint64_t addr, uint64_t size, uint32_t perms, void *mem) {
	return uc_mem_map_ptr(m->uc, addr, size, perms, mem);
}

// tm_add_region tells the C side where a guest virtual region lives in host
// memory, so the watch can poison and copy stack bytes without Go.
int tm_add_region(tm *m, uint64_t base, uint64_t size, void *host) {
	if (m->nregions >= TM_MAX_REGIONS)
		return -1;
	m->regions[m->nregions++] = (tm_region){base, size, host};
	return 0;
}

static uint8_t *tm_host(tm *m, uint64_t addr, uint64_t n) {
	for (int i = 0; i < m->nregions; i++) {
		tm_region *r = &m->regions[i];
		if (addr >= r->base && addr - r->base <= r->size && n <= r->size - (addr - r->base))
			return r->host + (addr - r->base);
	}
	return NULL;
}

// tm_watch logs a tm_wevent each time control enters [lo, hi) from outside
// or leaves it for code outside it and outside the host stubs (see
// tm_block_hook); lo == hi turns it off. Each event carries the guest word
// at tag (0: none), e.g. which call of a batch the guest is making. An
// enter poisons [sp - poison_below, sp - poison_keep).
// Returns -1 when out of memory, -2 when tag is not in guest memory.
int tm_watch(tm *m, uint64_t lo, uint64_t hi, uint64_t mid, uint32_t poison_below, uint32_t poison_keep, uint64_t poison_xor, int big_endian, uint64_t tag) {
	const uint8_t *tag_host = NULL;
	if (tag) {
		tag_host = tm_host(m, tag, 8);
		if (!tag_host)
			return -2;
	}
	if (!m->wlog) {
		m->wcap = 1024;
		m->wlog = calloc(m->wcap, sizeof(tm_wevent));
		if (!m->wlog)
			return -1;
	}
	m->watch_lo = lo;
	m->watch_hi = hi;
	m->watch_mid = mid > lo && mid < hi ? mid : 0;
	m->watching = hi > lo;
	m->poison_below = poison_below & ~7u;
	m->poison_keep = poison_keep < m->poison_below ? (poison_keep + 7) & ~7u : m->poison_below;
	m->poison_xor = poison_xor;
	m->big_endian = big_endian;
	m->wn = 0;
	free(m->poison_pat);
	m->poison_pat = NULL;
	m->poison_n = m->poison_next = 0;
	if (m->poison_below) {
		m->poison_pat = malloc((size_t)TM_POISON_CACHE * m->poison_below);
		if (!m->poison_pat)
			return -1;
	}
	m->tag_host = tag_host;
	return 0;
}

static void tm_watch_event(tm *m, uint64_t addr, int enter, int sp_index) {
	if (m->wn == m->wcap) {
		goWatchFull(m->handle); // the Go side drains the log
		if (m->wn == m->wcap)
			m->wn = 0; // nobody drained: drop rather than overflow
	}
	tm_wevent *e = &m->wlog[m->wn++];
	e->enter = enter;
	e->naccess = m->log_n;
	e->pc = addr;
	e->tag = 0;
	if (m->tag_host)
		memcpy(&e->tag, m->tag_host, 8);
	memcpy(e->regs, m->regs, sizeof(e->regs[0]) * (size_t)m->nregs);
	uint64_t sp = m->regs[sp_index];
	// Both events of an invocation copy the same bytes: from the sp at enter.
	if (enter)
		m->enter_sp = sp;
	uint8_t *above = tm_host(m, m->enter_sp, TM_ABOVE);
	e->above_ok = above != NULL;
	if (above)
		memcpy(e->above, above, TM_ABOVE);
	e->below = 0;
	const uint8_t *b = tm_host(m, sp - 8, 8);
	if (b)
		memcpy(&e->below, b, 8);
	if (!enter || !m->poison_below)
		return;
	uint64_t lo = sp - m->poison_below;
	uint32_t n = m->poison_below - m->poison_keep; // the kept bytes stay
	uint64_t *below = (uint64_t *)tm_host(m, lo, m->poison_below);
	if (!below || (lo & 7) || !n)
		return;
	for (uint32_t c = 0; c < m->poison_n; c++) {
		if (m->poison_lo[c] == lo) {
			memcpy(below, m->poison_pat + (size_t)c * m->poison_below, n);
			return;
		}
	}
	for (uint32_t i = 0; i < n / 8; i++) {
		uint64_t a = lo + 8 * (uint64_t)i;
		uint64_t v = m->poison_xor ^ (a & TM_POISON_ADDR_MASK);
		below[i] = m->big_endian ? __builtin_bswap64(v) : v;
	}
	uint32_t c = m->poison_next;
	m->poison_next = (c + 1) % TM_POISON_CACHE;
	if (m->poison_n < TM_POISON_CACHE)
		m->poison_n++;
	m->poison_lo[c] = lo;
	memcpy(m->poison_pat + (size_t)c * m->poison_below, below, n);
}

static inline uint64_t tm_hash(uint64_t addr, uint32_t size) {
	uint64_t h = addr ^ ((uint64_t)size << 47);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static void tm_grow(tm *m) {
	uint32_t ocap = m->cap;
	tm_block *old = m->blocks;
	tm_block *nb = calloc((size_t)ocap * 2, sizeof(tm_block));
	if (!nb)
		return; // keep probing the full-ish table; lookups still terminate
	m->cap = ocap * 2;
	m->blocks = nb;
	for (uint32_t i = 0; i < ocap; i++) {
		if (old[i].size == 0)
			continue;
		uint32_t j = (uint32_t)tm_hash(old[i].addr, old[i].size) & (m->cap - 1);
		while (m->blocks[j].size != 0)
			j = (j + 1) & (m->cap - 1);
		m->blocks[j] = old[i];
	}
	free(old);
}

static tm_block *tm_lookup(tm *m, uint64_t addr, uint32_t size) {
	uint32_t mask = m->cap - 1;
	uint32_t j = (uint32_t)tm_hash(addr, size) & mask;
	for (;;) {
		tm_block *b = &m->blocks[j];
		if (b->size == size && b->addr == addr)
			return b;
		if (b->size == 0)
			break;
		j = (j + 1) & mask;
	}
	if ((m->n + 1) * 2 > m->cap) {
		tm_grow(m);
		if (m->n + 2 > m->cap) {
			// Out of memory and the table full: count nothing for this
			// block, but keep the instruction limit working.
			static __thread tm_block overflow;
			overflow = (tm_block){addr, size, goBlockInsns(m->handle, addr, size), 0};
			return &overflow;
		}
		mask = m->cap - 1;
		j = (uint32_t)tm_hash(addr, size) & mask;
		while (m->blocks[j].size != 0)
			j = (j + 1) & mask;
	}
	tm_block *b = &m->blocks[j];
	b->addr = addr;
	b->size = size;
	b->count = 0;
	b->ninsn = goBlockInsns(m->handle, addr, size);
	m->n++;
	return b;
}

// tm_pattern is calibration value k of round r: distinct per register and
// round, and unlike anything else a fresh CPU state holds.
uint64_t tm_pattern(int r, int k) {
	uint64_t v = 0x7e3c5a96d1f2b408ULL ^ ((uint64_t)(k + 1) * 0x9e3779b97f4a7c15ULL);
	return r ? ~v ^ 0x0123456789abcdefULL : v;
}

// tm_find finds the one offset of v (host byte order) in the context's
// bytes: -1 when it is not there, or there more than once.
static int32_t tm_find(tm *m, uint64_t v) {
	int32_t at = -1;
	for (size_t o = 0; o + 8 <= m->ctx_size; o++) {
		if (memcmp(m->ctx_bytes + o, &v, 8) != 0)
			continue;
		if (at >= 0)
			return -1;
		at = (int32_t)o;
	}
	return at;
}

// tm_ctx_calibrate finds where the registers idx[0..n) lie in a saved
// context (uc_context_save copies the CPU state; uc_context_size is the
// size of the whole allocation, which this reads as plain bytes): each gets
// a distinct value in two rounds, and an offset counts only when each
// round found its value there and nowhere else. The registers get their
// values back, and a last save must show them at the offsets found. On
// success the register reads of callbacks and events come from the
// context (ctx_on); returns how many registers do, or -1 (nothing changed:
// every read goes through uc_reg_read).
int tm_ctx_calibrate(tm *m, const int *idx, int n) {
	uint64_t saved[TM_NREGS];
	int32_t off[2][TM_NREGS];
	if (n <= 0 || n > m->nregs)
		return -1;
	if (!m->ctx) {
		if (uc_context_alloc(m->uc, &m->ctx) != UC_ERR_OK) {
			m->ctx = NULL;
			return -1;
		}
		m->ctx_bytes = (const uint8_t *)m->ctx;
		m->ctx_size = uc_context_size(m->uc);
	}
	for (int k = 0; k < n; k++)
		if (uc_reg_read(m->uc, m->reg_ids[idx[k]], &saved[k]) != UC_ERR_OK)
			return -1;
	int ok = 1;
	for (int r = 0; r < 2 && ok; r++) {
		for (int k = 0; k < n; k++) {
			uint64_t v = tm_pattern(r, k);
			if (uc_reg_write(m->uc, m->reg_ids[idx[k]], &v) != UC_ERR_OK)
				ok = 0;
		}
		if (!ok || uc_context_save(m->uc, m->ctx) != UC_ERR_OK) {
			ok = 0;
			break;
		}
		for (int k = 0; k < n; k++)
			off[r][k] = tm_find(m, tm_pattern(r, k));
	}
	for (int k = 0; k < n; k++)
		uc_reg_write(m->uc, m->reg_ids[idx[k]], &saved[k]);
	if (!ok || uc_context_save(m->uc, m->ctx) != UC_ERR_OK)
		return -1;
	int32_t found[TM_NREGS];
	int got = 0;
	for (int i = 0; i < TM_NREGS; i++)
		found[i] = -1;
	for (int k = 0; k < n; k++) {
		uint64_t v;
		if (off[0][k] < 0 || off[0][k] != off[1][k])
			continue;
		memcpy(&v, m->ctx_bytes + off[0][k], 8);
		if (v != saved[k])
			continue;
		found[idx[k]] = off[0][k];
		got++;
	}
	if (!got)
		return -1;
	memcpy(m->ctx_off, found, sizeof(found));
	m->ctx_on = 1;
	return got;
}

// tm_read_set reads registers idx[0..n) into the batch: from one saved
// context when calibrated, every register the context does not hold (or
// all, without one) in one uc_reg_read_batch.
static uc_err tm_read_set(tm *m, const int *idx, int n) {
	int ids[TM_NREGS];
	void *ptrs[TM_NREGS];
	int k = 0;
	if (m->live_on) {
		for (int j = 0; j < n; j++) {
			int i = idx[j];
			const uint8_t *at = tm_live_slot(m, i);
			if (at) {
				memcpy(&m->regs[i], at, 8);
				continue;
			}
			ids[k] = m->reg_ids[i];
			ptrs[k++] = &m->regs[i];
		}
		return k ? uc_reg_read_batch(m->uc, ids, ptrs, k) : UC_ERR_OK;
	}
	if (m->ctx_on) {
		uc_err err = uc_context_save(m->uc, m->ctx);
		if (err != UC_ERR_OK)
			return err;
	}
	for (int j = 0; j < n; j++) {
		int i = idx[j];
		if (m->ctx_on && m->ctx_off[i] >= 0) {
			memcpy(&m->regs[i], m->ctx_bytes + m->ctx_off[i], 8);
			continue;
		}
		ids[k] = m->reg_ids[i];
		ptrs[k++] = &m->regs[i];
	}
	if (k == 0)
		return UC_ERR_OK;
	return uc_reg_read_batch(m->uc, ids, ptrs, k);
}

uc_err tm_read_regs(tm *m) {
	int idx[TM_NREGS];
	for (int i = 0; i < m->nregs; i++)
		idx[i] = i;
	m->dirty = 0;
	m->valid = ~0ULL;
	return tm_read_set(m, idx, m->nregs);
}

// tm_reg_read_engine reads register idx with uc_reg_read (never from the
// context), for the tests.
uc_err tm_reg_read_engine(tm *m, int idx, uint64_t *v) {
	return uc_reg_read(m->uc, m->reg_ids[idx], v);
}

// tm_read_reg reads register idx into the callback's batch.
uc_err tm_read_reg(tm *m, int idx) {
	m->valid |= 1ULL << idx;
	const uint8_t *at = tm_live_slot(m, idx);
	if (at) {
		memcpy(&m->regs[idx], at, 8);
		return UC_ERR_OK;
	}
	return uc_reg_read(m->uc, m->reg_ids[idx], &m->regs[idx]);
}

// tm_read_missing reads every register the callback has not read yet (one
// batch; registers Go set keep Go's value).
uc_err tm_read_missing(tm *m) {
	int idx[TM_NREGS];
	int n = 0;
	for (int i = 0; i < m->nregs; i++) {
		if (m->valid & (1ULL << i))
			continue;
		idx[n++] = i;
	}
	m->valid = ~0ULL;
	if (n == 0)
		return UC_ERR_OK;
	return tm_read_set(m, idx, n);
}

void tm_set_prefetch(tm *m, const int *idx, int n) {
	m->nprefetch = 0;
	for (int k = 0; k < n && k < TM_NREGS; k++) {
		if (idx[k] < 0 || idx[k] >= m->nregs || idx[k] == m->pc_index)
			continue;
		m->prefetch_ids[m->nprefetch] = m->reg_ids[idx[k]];
		m->prefetch_ptrs[m->nprefetch] = &m->regs[idx[k]];
		m->prefetch_idx[m->nprefetch++] = idx[k];
	}
}

void tm_set_clobber(tm *m, const int *idx, const uint64_t *val, int n, int flags, uint64_t flags_xor, uint64_t flags_or) {
	m->nclob = 0;
	for (int k = 0; k < n && k < TM_NREGS; k++) {
		m->clob_idx[m->nclob] = idx[k];
		m->clob_val[m->nclob++] = val[k];
	}
	m->clob_flags = flags;
	m->flags_xor = flags_xor;
	m->flags_or = flags_or;
}

// tm_prefetch starts a Go host call: the pc (the stub) and the prefetch
// set are valid, nothing is dirty.
static uc_err tm_prefetch(tm *m, uint64_t addr) {
	m->dirty = 0;
	m->valid = 1ULL << m->pc_index;
	m->regs[m->pc_index] = addr;
	for (int k = 0; k < m->nprefetch; k++)
		m->valid |= 1ULL << m->prefetch_idx[k];
	if (m->nprefetch == 0)
		return UC_ERR_OK;
	if (!m->ctx_on && !m->live_on)
		return uc_reg_read_batch(m->uc, m->prefetch_ids, m->prefetch_ptrs, m->nprefetch);
	return tm_read_set(m, m->prefetch_idx, m->nprefetch);
}

// tm_finish ends a host call: the registers Go set and, with clobber, the
// clobber of every volatile register Go did not set, in one write batch.
static uc_err tm_finish(tm *m, int clobber) {
	int ids[2 * TM_NREGS + 1];
	void *ptrs[2 * TM_NREGS + 1];
	uint64_t flags = 0;
	int n = 0;
	uint64_t dirty = m->dirty;
	for (int i = 0; i < m->nregs; i++) {
		if (dirty & (1ULL << i)) {
			uint8_t *at = tm_live_slot(m, i);
			if (at) {
				memcpy(at, &m->regs[i], 8); // where uc_reg_write would put it (live.c)
				continue;
			}
			ids[n] = m->reg_ids[i];
			ptrs[n++] = &m->regs[i];
		}
	}
	if (clobber) {
		for (int k = 0; k < m->nclob; k++) {
			int i = m->clob_idx[k];
			if (dirty & (1ULL << i))
				continue;
			uint8_t *at = tm_live_slot(m, i);
			if (at) {
				memcpy(at, &m->clob_val[k], 8);
				continue;
			}
			ids[n] = m->reg_ids[i];
			ptrs[n++] = &m->clob_val[k];
		}
		int fi = m->flags_index;
		if (fi >= 0 && m->clob_flags && !(dirty & (1ULL << fi))) {
			if (!(m->valid & (1ULL << fi)))
				tm_read_reg(m, fi);
			flags = (m->regs[fi] ^ m->flags_xor) | m->flags_or;
			ids[n] = m->reg_ids[fi];
			ptrs[n++] = &flags;
		}
	}
	m->dirty = 0;
	if (n == 0)
		return UC_ERR_OK;
	return uc_reg_write_batch(m->uc, ids, ptrs, n);
}

int tm_set_fast(tm *m, uint64_t addr, int on, int nargs, const int *arg_idx, int require_arg, uint64_t require, int clobber) {
	tm_fast *f = tm_fast_of(m, addr);
	if (!f) {
		if (m->nfast >= TM_MAX_FAST)
			return -1;
		f = &m->fast[m->nfast++];
		memset(f, 0, sizeof(*f));
		f->addr = addr;
	}
	if (nargs > TM_FAST_ARGS || require_arg >= nargs)
		return -2;
	f->on = on;
	f->nargs = nargs;
	for (int k = 0; k < nargs; k++)
		f->arg_idx[k] = arg_idx[k];
	f->require_arg = require_arg;
	f->require = require;
	f->clobber = clobber;
	return 0;
}

tm_fast *tm_fast_of(tm *m, uint64_t addr) {
	for (int i = 0; i < m->nfast; i++)
		if (m->fast[i].addr == addr)
			return &m->fast[i];
	return NULL;
}

// tm_fast_call runs a host call in C (tm_fast); 0: it needs Go after all.
static int tm_fast_call(tm *m, tm_fast *f) {
	int ids[TM_FAST_ARGS];
	void *ptrs[TM_FAST_ARGS];
	uint64_t args[TM_FAST_ARGS];
	int n = 0;
	for (int k = 0; k < f->nargs; k++) {
		int i = f->arg_idx[k];
		const uint8_t *at = tm_live_slot(m, i);
		if (at) {
			memcpy(&args[k], at, 8);
			continue;
		}
		ids[n] = m->reg_ids[i];
		ptrs[n++] = &args[k];
	}
	if (n && uc_reg_read_batch(m->uc, ids, ptrs, n) != UC_ERR_OK)
		return 0;
	if (f->require_arg >= 0 && args[f->require_arg] != f->require)
		return 0;
	f->calls++;
	memcpy(f->last, args, sizeof(args[0]) * (size_t)f->nargs);
	m->dirty = 0;
	m->valid = 0;
	tm_finish(m, f->clobber);
	return 1;
}

// tm_read_event_regs reads what a watch event needs: the general
// registers, the pc (the block's address, no read needed) and the flags /
// PSW mask / NZCV (x86-64 EFLAGS is computed from QEMU's lazy condition codes on
// every read; at a leave they tell whether a trampoline that hands full
// pt_regs to its callbacks restored them).
static uc_err tm_read_event_regs(tm *m, uint64_t addr, int enter) {
	m->dirty = 0;
	m->regs[m->pc_index] = addr;
	if (m->live_on)
		return tm_live_event(m, enter);
	if (!m->ctx_on)
		return uc_reg_read_batch(m->uc, m->event_ids, m->event_ptrs, m->nevent);
	int idx[TM_NREGS];
	int n = 0;
	for (int i = 0; i < m->nregs; i++) {
		if (i != m->pc_index)
			idx[n++] = i;
	}
	return tm_read_set(m, idx, n);
}

uc_err tm_write_dirty(tm *m) {
	int ids[TM_NREGS];
	void *ptrs[TM_NREGS];
	int n = 0;
	for (int i = 0; i < m->nregs; i++) {
		if (m->dirty & (1ULL << i)) {
			ids[n] = m->reg_ids[i];
			ptrs[n] = &m->regs[i];
			n++;
		}
	}
	m->dirty = 0;
	if (n == 0)
		return UC_ERR_OK;
	return uc_reg_write_batch(m->uc, ids, ptrs, n);
}

uc_err tm_reg_write(tm *m, int idx, uint64_t v) {
	return uc_reg_write(m->uc, m->reg_ids[idx], &v);
}

// tm_guard_stop ends the run at a wrong control transfer (tm_guard).
static void tm_guard_stop(tm *m, uc_engine *uc, int loops) {
	m->ff_pending = 0;
	m->ff_loops = loops;
	m->stop = TM_STOP_CONTROL;
	uc_emu_stop(uc);
}

// tm_guard_leave judges a leave of part `part` to addr (the registers just
// read): a pc other than the one Go said the run must leave to, or an sp
// above the bound, is wrong; the run stops at the next block, which shows
// whether control goes straight back in (a loop the kernel would never
// leave).
static void tm_guard_leave(tm *m, uint64_t addr, int part) {
	m->leave_part = part;
	m->leave_irq = m->run_irq;
	m->since_leave = 0;
	memcpy(m->leave_regs, m->regs, sizeof(m->regs[0]) * (size_t)m->nregs);
	if (m->run_irq || m->ff_pending)
		return; // an interrupted run's damage is the interrupt model's finding
	int why = TM_FF_NONE;
	if (m->want_leave && addr != m->want_leave)
		why = TM_FF_WRONG_PC;
	else if (m->guard_sp_max && m->regs[m->sp_index] > m->guard_sp_max)
		why = TM_FF_SP;
	if (why == TM_FF_NONE)
		return;
	m->ff_pending = 1;
	m->ff_reason = why;
	m->ff_pc = addr;
	m->ff_want = m->want_leave;
	memcpy(m->ff_regs, m->regs, sizeof(m->regs[0]) * (size_t)m->nregs);
}

// tm_guard_block runs at every block while guarding, before the watch's
// events for it; nonzero: the run stops here (no event logged).
static int tm_guard_block(tm *m, uc_engine *uc, int inside) {
	int reenter = inside && inside != m->in_watch && inside == m->guard_part;
	if (reenter) {
		// straight back in at the sp the run that left had entered with:
		// the same call again (x86-64 call pushes into the same slot;
		// arm64 bl and s390x brasl leave sp alone)
		uint64_t sp = 0;
		uc_reg_read(uc, m->reg_ids[m->sp_index], &sp);
		reenter = sp == m->enter_sp && m->leave_part == m->guard_part && m->since_leave == 1;
	}
	if (m->ff_pending) {
		tm_guard_stop(m, uc, reenter);
		return 1;
	}
	if (reenter && !m->leave_irq) {
		// the block the guarded range left to called straight back into
		// it, from the same call site, with nothing run in between
		m->ff_reason = TM_FF_REENTER;
		m->ff_pc = m->leave_regs[m->pc_index];
		m->ff_want = 0;
		memcpy(m->ff_regs, m->leave_regs, sizeof(m->regs[0]) * (size_t)m->nregs);
		tm_guard_stop(m, uc, 1);
		return 1;
	}
	return 0;
}

static void tm_block_hook(uc_engine *uc, uint64_t addr, uint32_t size, void *user) {
	tm *m = user;
	if (addr >= m->host_hi && addr < m->stub_hi)
		return; // the clobber routine: the host function's work, like Go's, not the guest's
	tm_block *b = tm_lookup(m, addr, size);
	m->insns += b->ninsn;
	if (m->counting)
		b->count++;
	if (m->watching) {
		int inside = 0;
		if (addr >= m->watch_lo && addr < m->watch_hi)
			inside = m->watch_mid && addr >= m->watch_mid ? 2 : 1;
		int stub = addr >= m->stub_lo && addr < m->stub_hi;
		if (m->guard && tm_guard_block(m, uc, inside))
			return;
		if (inside != m->in_watch && (inside || !stub)) {
			int was = m->in_watch;
			if (inside && was) {
				// straight from one watched range into the other: the
				// first run left, a new one enters
				tm_read_event_regs(m, addr, 0);
				tm_watch_event(m, addr, 0, m->sp_index);
				if (m->guard)
					tm_guard_leave(m, addr, was);
			}
			m->in_watch = inside;
			tm_read_event_regs(m, addr, inside != 0);
			tm_watch_event(m, addr, inside != 0, m->sp_index);
			if (inside) {
				m->want_leave = 0;
				m->run_irq = 0;
			} else if (m->guard) {
				tm_guard_leave(m, addr, was);
			}
			if (inside && addr >= m->irq_lo && addr < m->irq_hi) {
				m->irq_armed = m->irq_on;
				if (m->irq_armed) {
					if (m->irq_armed_runs++)
						m->irq_target = m->irq_taken ? m->irq_target + 1 : 0;
					m->irq_taken = 0;
				}
				m->irq_k = 0;
			}
		}
		if (!stub)
			m->since_leave++;
	}
	if (m->call_limit && m->tag_host) {
		uint64_t tag;
		memcpy(&tag, m->tag_host, 8);
		if (tag != m->call_tag) {
			m->call_tag = tag;
			m->call_start = m->insns;
		} else if (m->insns - m->call_start > m->call_limit) {
			m->call_limited = 1;
			m->stop = TM_STOP_LIMIT;
			uc_emu_stop(uc);
		}
	}
	if (m->insns > m->insn_limit) {
		m->stop = TM_STOP_LIMIT;
		uc_emu_stop(uc);
	}
	// Unicorn 2.1.1's riscv64 loses a uc_emu_stop from the timer's thread
	// while a block loops on itself; the flag is seen here.
	if (m->timed_out)
		uc_emu_stop(uc);
}

// tm_guard turns the guard on or off: part is the in_watch value (1: below
// the watch's mid, 2: at or above it) of the range a straight re-entry is
// wrong for (0: none), sp_max the highest sp a leave may have (0: any).
void tm_guard(tm *m, int on, int part, uint64_t sp_max) {
	m->guard = on;
	m->guard_part = part;
	m->guard_sp_max = sp_max;
	m->ff_pending = 0;
	m->want_leave = 0;
	m->since_leave = 0;
	m->leave_part = 0;
}

// tm_call_limit bounds the instructions of each call (the watch's tag word
// names the call); 0 turns it off. The current call starts now.
void tm_call_limit(tm *m, uint64_t limit) {
	m->call_limit = limit;
	m->call_start = m->insns;
	if (m->tag_host)
		memcpy(&m->call_tag, m->tag_host, 8);
}

static void tm_host_hook(uc_engine *uc, uint64_t addr, uint32_t size, void *user) {
	tm *m = user;
	for (int i = 0; i < m->nfast; i++) {
		if (m->fast[i].addr == addr) {
			if (m->fast[i].on && tm_fast_call(m, &m->fast[i]))
				return;
			break;
		}
	}
	tm_prefetch(m, addr);
	int r = goHostCall(m->handle, addr); // bit 0: stop; bit 1: clobber
	tm_finish(m, r & 2);
	if (r & 1) {
		m->stop = TM_STOP_GO;
		uc_emu_stop(uc);
	}
}

static void tm_intr_hook(uc_engine *uc, uint32_t intno, void *user) {
	tm *m = user;
	m->stop = TM_STOP_INTR;
	m->intno = (int)intno;
	uc_emu_stop(uc);
}

static bool tm_mem_hook(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *user) {
	tm *m = user;
	m->fault_type = (int)type;
	m->fault_addr = addr;
	m->fault_size = size;
	uc_reg_read(uc, m->reg_ids[m->pc_index], &m->fault_pc);
	return false;
}

// tm_psw_hook runs before an s390x LPSWE D(B) (opcode b2b2, S format):
// a PSW mask with EA set and BA clear is a specification exception on the
// CPU (Principles of Operation, "Program-Status Word": the EA/BA
// combination 1/0 is invalid), which Unicorn 2.1.1 does not raise: its
// translator asserts on that mode (target/s390x/translate.c
// pc_to_link_info) and aborts the process. The run stops before the
// instruction instead, as a fault with the mask.
static void tm_psw_hook(uc_engine *uc, uint64_t addr, uint32_t size, void *user) {
	tm *m = user;
	uint8_t b[4], w[8];
	if (uc_mem_read(uc, addr, b, 4) != UC_ERR_OK || b[0] != 0xb2 || b[1] != 0xb2)
		return;
	int base = b[2] >> 4;
	uint64_t ea = ((uint64_t)(b[2] & 0xf) << 8) | b[3];
	if (base != 0) {
		uint64_t r = 0;
		uc_reg_read(uc, UC_S390X_REG_R0 + base, &r);
		ea += r;
	}
	if (uc_mem_read(uc, ea, w, 8) != UC_ERR_OK)
		return; // the access faults: Unicorn reports it
	uint64_t mask = 0;
	for (int i = 0; i < 8; i++)
		mask = mask << 8 | w[i];
	if (((mask >> 32) & 1) && !((mask >> 31) & 1)) {
		m->stop = TM_STOP_PSW;
		m->fault_addr = mask;
		m->fault_pc = addr;
		uc_reg_write(uc, m->reg_ids[m->pc_index], &addr); // leave the block before the instruction runs
		uc_emu_stop(uc);
	}
}

// tm_guard_psw hooks the instruction at addr with tm_psw_hook.
uc_err tm_guard_psw(tm *m, uint64_t addr) {
	uc_hook h;
	return uc_hook_add(m->uc, &h, UC_HOOK_CODE, (void *)tm_psw_hook, m, addr, addr);
}

// tm_hooks adds the engine's hooks: the block hook everywhere, the host
// hook on [stub_lo, host_hi) (the host stubs; the rest of the stub region
// up to stub_hi holds the clobber routine, which runs hook-free).
uc_err tm_hooks(tm *m, uint64_t stub_lo, uint64_t stub_hi, uint64_t host_hi) {
	uc_err err;
	m->stub_lo = stub_lo;
	m->stub_hi = stub_hi;
	m->host_hi = host_hi;
	err = uc_hook_add(m->uc, &m->h_block, UC_HOOK_BLOCK, (void *)tm_block_hook, m, 1, 0);
	if (err != UC_ERR_OK)
		return err;
	if (host_hi > stub_lo) {
		err = uc_hook_add(m->uc, &m->h_host, UC_HOOK_CODE, (void *)tm_host_hook, m, stub_lo, host_hi - 1);
		if (err != UC_ERR_OK)
			return err;
	}
	err = uc_hook_add(m->uc, &m->h_intr, UC_HOOK_INTR, (void *)tm_intr_hook, m, 1, 0);
	if (err != UC_ERR_OK)
		return err;
	return uc_hook_add(m->uc, &m->h_mem, UC_HOOK_MEM_INVALID, (void *)tm_mem_hook, m, 1, 0);
}

uc_err tm_run(tm *m, uint64_t begin, uint64_t until, uint64_t limit) {
	m->insns = 0;
	m->insn_limit = limit;
	m->stop = TM_STOP_NONE;
	m->intno = 0;
	m->fault_type = 0;
	m->fault_addr = 0;
	m->fault_size = 0;
	m->fault_pc = 0;
	m->in_watch = 0;
	m->timed_out = 0;
	m->ff_pending = 0;
	m->ff_reason = TM_FF_NONE;
	m->ff_loops = 0;
	m->want_leave = 0;
	m->since_leave = 0;
	m->leave_part = 0;
	m->run_irq = 0;
	m->call_limited = 0;
	m->call_start = 0;
	if (m->tag_host)
		memcpy(&m->call_tag, m->tag_host, 8);
	// No Unicorn timeout: its watchdog thread polls every 2 us and takes a
	// core. The Go side stops the run from a timer instead (tm_timeout).
	return uc_emu_start(m->uc, begin, until, 0, 0);
}

// tm_timeout is called from another thread when a run's time is up.
void tm_timeout(tm *m) {
	m->timed_out = 1;
	uc_emu_stop(m->uc);
}

uc_err tm_remove_cache(tm *m, uint64_t begin, uint64_t end) {
	return uc_ctl_remove_cache(m->uc, begin, end);
}

void tm_reset_counts(tm *m) {
	for (uint32_t i = 0; i < m->cap; i++)
		m->blocks[i].count = 0;
}

uint32_t tm_block_count(tm *m) { return m->n; }

uint32_t tm_blocks_copy(tm *m, tm_block *out, uint32_t max) {
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->cap && k < max; i++)
		if (m->blocks[i].size != 0)
			out[k++] = m->blocks[i];
	return k;
}

void tm_stop(tm *m) { uc_emu_stop(m->uc); }

static void tm_probe_hook(uc_engine *uc, uint64_t addr, uint32_t size, void *user) {
	tm *m = user;
	if (!m->probing || addr < m->probe_lo || addr >= m->probe_hi)
		return;
	uint32_t first = m->probe_first[addr - m->probe_lo];
	if (!first)
		return;
	for (uint32_t i = first - 1; i < m->nprobes && m->probes[i].pc == addr; i++) {
		tm_probe *p = &m->probes[i];
		uint64_t a = (uint64_t)p->disp, v = 0;
		if (p->base >= 0) {
			uc_reg_read(uc, p->base, &v);
			a += v;
		}
		if (p->index >= 0) {
			uc_reg_read(uc, p->index, &v);
			a += v * (uint64_t)p->scale;
		}
		if (m->log_n < m->log_cap) {
			tm_access *e = &m->log[m->log_n++];
			e->pc = addr;
			e->addr = a;
			e->size = p->size;
			e->flags = p->flags;
		} else {
			m->log_overflow = 1;
		}
	}
}

// tm_set_probes logs, while probing is on, the effective address of each
// listed memory access when its instruction runs. One C code hook over
// [lo, hi) finds an instruction's probes through a per-byte table: no
// memory hook (which would slow every access) and no hook per instruction
// (Unicorn scans every code hook's range for each hooked instruction).
// probes must be sorted by pc; call it before the code first runs.
// tm_stop_probes removes the probe hook (the caller then flushes the
// translations of the probed range so they no longer call it).
uc_err tm_stop_probes(tm *m) {
	m->probing = 0;
	if (!m->h_probe)
		return UC_ERR_OK;
	uc_err err = uc_hook_del(m->uc, m->h_probe);
	m->h_probe = 0;
	return err;
}

static void tm_trace_hook(uc_engine *uc, uint64_t addr, uint32_t size, void *user) {
	tm *m = user;
	if (addr >= m->stub_lo && addr < m->stub_hi)
		return; // host stubs: goHostCall tells the tracer
	tm_read_regs(m);
	int stop = goTraceStep(m->handle, addr);
	tm_write_dirty(m);
	if (stop) {
		m->stop = TM_STOP_GO;
		uc_emu_stop(uc);
	}
}

// tm_trace calls the Go tracer before every instruction in [lo, hi) (lo ==
// hi: no tracing). The caller flushes the range's translations, which were
// made without the hook.
uc_err tm_trace(tm *m, uint64_t lo, uint64_t hi) {
	if (m->h_trace) {
		uc_err err = uc_hook_del(m->uc, m->h_trace);
		m->h_trace = 0;
		if (err != UC_ERR_OK)
			return err;
	}
	if (hi <= lo)
		return UC_ERR_OK;
	return uc_hook_add(m->uc, &m->h_trace, UC_HOOK_CODE, (void *)tm_trace_hook, m, lo, hi - 1);
}

static void tm_irq_hook(uc_engine *uc, uint64_t addr, uint32_t size, void *user) {
	tm *m = user;
	if (!m->irq_armed || m->irq_taken || !m->in_watch || m->irq_k++ != m->irq_target)
		return;
	m->irq_taken = 1;
	m->run_irq = 1;
	tm_read_regs(m);
	m->regs[m->pc_index] = addr;
	int stop = goInterrupt(m->handle, addr);
	tm_write_dirty(m);
	if (stop) {
		m->stop = TM_STOP_GO;
		uc_emu_stop(uc);
		return;
	}
	uint64_t sp = m->regs[m->sp_index];
	uint64_t lo = (sp - m->irq_depth) & ~7ULL;
	uint64_t hi = sp - m->poison_keep; // the kept bytes stay
	uint64_t *below = (uint64_t *)tm_host(m, lo, sp - lo);
	if (!below || !m->irq_depth || hi <= lo)
		return;
	for (uint64_t i = 0; i < (hi - lo) / 8; i++) {
		uint64_t a = lo + 8 * i;
		uint64_t v = m->poison_xor ^ (a & TM_POISON_ADDR_MASK);
		below[i] = m->big_endian ? __builtin_bswap64(v) : v;
	}
}

// tm_interrupts arms the interrupt model on [lo, hi) (lo == hi: off). The
// range must lie inside the watched range (runs are counted at its enter
// events); call it before the code first runs, and flush its translations.
uc_err tm_interrupts(tm *m, uint64_t lo, uint64_t hi, uint32_t depth) {
	if (m->h_irq) {
		uc_err err = uc_hook_del(m->uc, m->h_irq);
		m->h_irq = 0;
		if (err != UC_ERR_OK)
			return err;
	}
	m->irq_lo = lo;
	m->irq_hi = hi;
	m->irq_depth = depth & ~7u;
	m->irq_k = m->irq_target = 0;
	m->irq_taken = 0;
	m->irq_armed = 0;
	m->irq_on = 1;
	m->irq_armed_runs = 0;
	if (hi <= lo)
		return UC_ERR_OK;
	return uc_hook_add(m->uc, &m->h_irq, UC_HOOK_CODE, (void *)tm_irq_hook, m, lo, hi - 1);
}

uc_err tm_set_probes(tm *m, uint64_t lo, uint64_t hi, const tm_probe *probes, uint32_t n) {
	if (m->probes || hi <= lo || hi - lo > (64u << 20))
		return UC_ERR_ARG;
	m->log_cap = 1 << 16;
	m->log = calloc(m->log_cap, sizeof(tm_access));
	m->probes = calloc(n ? n : 1, sizeof(tm_probe));
	m->probe_first = calloc(hi - lo, sizeof(uint32_t));
	if (!m->log || !m->probes || !m->probe_first)
		return UC_ERR_NOMEM;
	memcpy(m->probes, probes, n * sizeof(tm_probe));
	m->nprobes = n;
	m->probe_lo = lo;
	m->probe_hi = hi;
	for (uint32_t i = n; i-- > 0;) {
		if (m->probes[i].pc >= lo && m->probes[i].pc < hi)
			m->probe_first[m->probes[i].pc - lo] = i + 1;
	}
	return uc_hook_add(m->uc, &m->h_probe, UC_HOOK_CODE, (void *)tm_probe_hook, m, lo, hi - 1);
}

uc_err tm_x86_paging(tm *m, uint64_t cr3) {
	uc_err err;
	uc_x86_msr efer = {0xC0000080, 0};
	uint64_t cr0 = 0, cr4 = 0;
	if ((err = uc_reg_read(m->uc, UC_X86_REG_MSR, &efer)) != UC_ERR_OK)
		return err;
	efer.value |= (1ULL << 8) | (1ULL << 10); // LME, LMA
	if ((err = uc_reg_write(m->uc, UC_X86_REG_MSR, &efer)) != UC_ERR_OK)
		return err;
	if ((err = uc_reg_read(m->uc, UC_X86_REG_CR4, &cr4)) != UC_ERR_OK)
		return err;
	cr4 |= 1ULL << 5; // PAE
	if ((err = uc_reg_write(m->uc, UC_X86_REG_CR4, &cr4)) != UC_ERR_OK)
		return err;
	if ((err = uc_reg_write(m->uc, UC_X86_REG_CR3, &cr3)) != UC_ERR_OK)
		return err;
	if ((err = uc_reg_read(m->uc, UC_X86_REG_CR0, &cr0)) != UC_ERR_OK)
		return err;
	cr0 |= 1ULL | (1ULL << 16) | (1ULL << 31); // PE, WP, PG
	return uc_reg_write(m->uc, UC_X86_REG_CR0, &cr0);
}

uint64_t tm_x86_cr2(tm *m) {
	uint64_t v = 0;
	uc_reg_read(m->uc, UC_X86_REG_CR2, &v);
	return v;
}

unsigned int tm_version(unsigned int *major, unsigned int *minor) { return uc_version(major, minor); }
int tm_api_major(void) { return UC_API_MAJOR; }
int tm_api_minor(void) { return UC_API_MINOR; }

// tm_uc_reg_id lets the tests compare package regs' register ids with the
// C headers: which = 0..17 (x86-64, s390x), 0..33 (arm64) or 0..31
// (riscv64) in regs order.
int tm_uc_reg_id(int arch, int which) {
	static const int x86[] = {
		UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX,
		UC_X86_REG_RSI, UC_X86_REG_RDI, UC_X86_REG_RBP, UC_X86_REG_RSP,
		UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
		UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
		UC_X86_REG_RIP, UC_X86_REG_EFLAGS,
	};
	static const int s390x[] = {
		UC_S390X_REG_R0, UC_S390X_REG_R1, UC_S390X_REG_R2, UC_S390X_REG_R3,
		UC_S390X_REG_R4, UC_S390X_REG_R5, UC_S390X_REG_R6, UC_S390X_REG_R7,
		UC_S390X_REG_R8, UC_S390X_REG_R9, UC_S390X_REG_R10, UC_S390X_REG_R11,
		UC_S390X_REG_R12, UC_S390X_REG_R13, UC_S390X_REG_R14, UC_S390X_REG_R15,
		UC_S390X_REG_PC, UC_S390X_REG_PSWM,
	};
	static const int arm64[] = {
		UC_ARM64_REG_X0, UC_ARM64_REG_X1, UC_ARM64_REG_X2, UC_ARM64_REG_X3,
		UC_ARM64_REG_X4, UC_ARM64_REG_X5, UC_ARM64_REG_X6, UC_ARM64_REG_X7,
		UC_ARM64_REG_X8, UC_ARM64_REG_X9, UC_ARM64_REG_X10, UC_ARM64_REG_X11,
		UC_ARM64_REG_X12, UC_ARM64_REG_X13, UC_ARM64_REG_X14, UC_ARM64_REG_X15,
		UC_ARM64_REG_X16, UC_ARM64_REG_X17, UC_ARM64_REG_X18, UC_ARM64_REG_X19,
		UC_ARM64_REG_X20, UC_ARM64_REG_X21, UC_ARM64_REG_X22, UC_ARM64_REG_X23,
		UC_ARM64_REG_X24, UC_ARM64_REG_X25, UC_ARM64_REG_X26, UC_ARM64_REG_X27,
		UC_ARM64_REG_X28, UC_ARM64_REG_X29, UC_ARM64_REG_X30,
		UC_ARM64_REG_SP, UC_ARM64_REG_PC, UC_ARM64_REG_NZCV,
	};
	static const int riscv64[] = {
		UC_RISCV_REG_A0, UC_RISCV_REG_A1, UC_RISCV_REG_A2, UC_RISCV_REG_A3,
		UC_RISCV_REG_A4, UC_RISCV_REG_A5, UC_RISCV_REG_A6, UC_RISCV_REG_A7,
		UC_RISCV_REG_RA, UC_RISCV_REG_SP, UC_RISCV_REG_GP, UC_RISCV_REG_TP,
		UC_RISCV_REG_S0, UC_RISCV_REG_S1, UC_RISCV_REG_S2, UC_RISCV_REG_S3,
		UC_RISCV_REG_S4, UC_RISCV_REG_S5, UC_RISCV_REG_S6, UC_RISCV_REG_S7,
		UC_RISCV_REG_S8, UC_RISCV_REG_S9, UC_RISCV_REG_S10, UC_RISCV_REG_S11,
		UC_RISCV_REG_T0, UC_RISCV_REG_T1, UC_RISCV_REG_T2, UC_RISCV_REG_T3,
		UC_RISCV_REG_T4, UC_RISCV_REG_T5, UC_RISCV_REG_T6, UC_RISCV_REG_PC,
	};
	if (which < 0)
		return -1;
	if (arch == UC_ARCH_RISCV && which < (int)(sizeof(riscv64) / sizeof(riscv64[0])))
		return riscv64[which];
	if (arch == UC_ARCH_X86 && which < (int)(sizeof(x86) / sizeof(x86[0])))
		return x86[which];
	if (arch == UC_ARCH_S390X && which < (int)(sizeof(s390x) / sizeof(s390x[0])))
		return s390x[which];
	if (arch == UC_ARCH_ARM64 && which < (int)(sizeof(arm64) / sizeof(arm64[0])))
		return arm64[which];
	return -1;
}
