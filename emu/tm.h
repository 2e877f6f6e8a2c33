// tm.h: the C half of trampemu's Unicorn binding. Hooks that run on every
// block or host call live here so that the hot path stays in C; Go is called
// only at host functions, watch transitions and the first sight of a block.
#ifndef TRAMPEMU_TM_H
#define TRAMPEMU_TM_H

#include <stdint.h>
#include <unicorn/unicorn.h>

// TM_NREGS is regs.NumRegs, the capacity of a register batch: arm64's 34
// (x0-x30, sp, pc, nzcv); x86-64 and s390x use the first 18. Each machine
// has its own count and pc / flags indices (tm.nregs, pc_index,
// flags_index, from regs.Arch).
#define TM_NREGS 34

enum {
	TM_STOP_NONE = 0,
	TM_STOP_LIMIT = 1,  // instruction limit reached
	TM_STOP_INTR = 2,   // interrupt / trap instruction
	TM_STOP_GO = 3,     // a Go callback asked to stop (error or done)
	TM_STOP_CONTROL = 4, // the guard saw a control transfer known wrong (tm_guard)
	TM_STOP_PSW = 5,     // s390x lpswe of a PSW the CPU refuses (tm_guard_psw): fault_addr holds its mask
};

// Why the guard (tm_guard) stopped a run: tm.ff_reason.
enum {
	TM_FF_NONE = 0,
	TM_FF_WRONG_PC = 1, // a watched run left to another pc than tm.want_leave
	TM_FF_REENTER = 2,  // the guarded range was entered again straight from its own leave block
	TM_FF_SP = 3,       // a watched run left with sp above tm.guard_sp_max
};

#define TM_ABOVE 256     // bytes of the stack above sp kept per watch event
#define TM_MAX_REGIONS 8
#define TM_POISON_CACHE 4
// TM_POISON_ADDR_MASK: the address bits in the poison pattern (emu.Poison).
#define TM_POISON_ADDR_MASK 0x0000ffffffffffffULL

typedef struct tm_region {
	uint64_t base, size; // guest virtual
	uint8_t *host;
} tm_region;

// tm_wevent: control entered (enter = 1) or left the watched range.
typedef struct tm_wevent {
	uint32_t enter;
	uint32_t above_ok; // the above bytes were in guest memory
	uint32_t naccess;  // memory-probe log entries before this event
	uint32_t pad;
	uint64_t pc;
	uint64_t tag; // the guest word at tag_host at that moment, raw bytes
	uint64_t below; // the guest word just below sp (enter: before the poison), raw bytes
	uint64_t regs[TM_NREGS];
	uint8_t above[TM_ABOVE];
} tm_wevent;

#define TM_MAX_FAST 4
#define TM_FAST_ARGS 4

// tm_fast: a host function that runs in C while on (tm_set_fast): its whole
// effect is a count, the arguments of the last call and the clobber, so no
// Go runs; a call whose require_arg argument is not require goes to Go.
typedef struct tm_fast {
	uint64_t addr;
	int on;
	int nargs;
	int arg_idx[TM_FAST_ARGS]; // the argument registers, as indices into regs
	int require_arg;           // -1: none
	uint64_t require;
	int clobber;
	uint64_t calls;            // calls made in C since the Go side last took them
	uint64_t last[TM_FAST_ARGS];
} tm_fast;

typedef struct tm_block {
	uint64_t addr;
	uint32_t size;
	uint32_t ninsn;
	uint64_t count;
} tm_block;

typedef struct tm_access {
	uint64_t pc;
	uint64_t addr;
	uint32_t size;
	uint32_t flags; // 1 load, 2 store
} tm_access;

// tm_probe: one memory access of the instruction at pc:
// address = disp + base + index * scale (registers by Unicorn id, -1: none).
typedef struct tm_probe {
	uint64_t pc;
	int64_t disp;
	int32_t base, index, scale;
	uint32_t size;
	uint32_t flags; // 1 load, 2 store
	uint32_t pad;
} tm_probe;

typedef struct tm {
	uc_engine *uc;
	uintptr_t handle; // the Go Machine's id (registry.go)

	int reg_ids[TM_NREGS];
	int nregs;                // registers the arch tracks (<= TM_NREGS)
	int pc_index;             // index of the program counter in regs
	int flags_index;          // index of the flags / PSW mask / NZCV in regs, -1: none (riscv64)
	uint64_t regs[TM_NREGS];  // register batch, valid inside Go callbacks
	uint64_t dirty;           // registers Go wrote during a callback (bit i: regs[i])
	uint64_t valid;           // registers of regs[] read from the engine for the current callback
	// read before every Go host call (the argument registers): the rest on
	// demand (tm_read_reg, tm_read_missing), so that the x86-64 flags are
	// not computed from QEMU's lazy condition codes unless asked
	int prefetch_idx[TM_NREGS];
	int nprefetch;
	// the engine ids and batch addresses of the prefetch set and of a
	// watch event's registers (all but pc), built once: a read is one
	// uc_reg_read_batch with no set-up
	int prefetch_ids[TM_NREGS];
	void *prefetch_ptrs[TM_NREGS];
	int event_ids[TM_NREGS];
	void *event_ptrs[TM_NREGS];
	int nevent;
	// the clobber of a clobbering host function (tm_set_clobber): every
	// volatile register but the link register gets clob_val, the flags
	// (clob_flags) (v ^ flags_xor) | flags_or; one write batch with the
	// registers Go set
	int clob_idx[TM_NREGS];
	uint64_t clob_val[TM_NREGS];
	int nclob;
	int clob_flags;
	uint64_t flags_xor, flags_or;
	tm_fast fast[TM_MAX_FAST];
	int nfast;

	uint64_t insns;      // instructions executed in this run (block granularity)
	uint64_t insn_limit; // stop after this many
	int counting;        // count executions per block

	tm_block *blocks; // open addressing on (addr, size)
	uint32_t cap, n;

	int watching, in_watch; // in_watch: 0 outside, 1 below watch_mid, 2 at or above it
	uint64_t watch_lo, watch_hi;
	uint64_t watch_mid; // 0, or where a second watched range starts: crossing it is a leave and an enter
	// on enter, the poison_below bytes below sp get the pattern
	// poison_xor ^ (address & 0xffffffffffff) per word (big_endian: s390x)
	uint32_t poison_below;
	// poison_keep bytes right below sp are left alone, by the watch and by
	// the interrupt model alike (WatchOptions.Keep): poison_below and
	// irq_depth count from sp, the pattern starts poison_keep below it
	uint32_t poison_keep;
	uint64_t poison_xor;
	int big_endian;
	int sp_index;     // index of the stack pointer in regs
	uint64_t enter_sp; // sp at the last enter event
	tm_wevent *wlog;
	uint32_t wcap, wn;
	const uint8_t *tag_host; // a guest word copied into every event, or NULL
	// the last TM_POISON_CACHE poison patterns written, by start address:
	// a trampoline is entered at a handful of stack depths, so the pattern
	// is copied rather than computed word by word
	uint64_t poison_lo[TM_POISON_CACHE];
	uint8_t *poison_pat; // TM_POISON_CACHE * poison_below bytes
	uint32_t poison_n, poison_next;

	tm_region regions[TM_MAX_REGIONS];
	int nregions;
	uint64_t stub_lo, stub_hi;
	uint64_t host_hi; // [stub_lo, host_hi): host stubs; [host_hi, stub_hi): the clobber routine, host work (not counted)

	int stop;
	volatile int timed_out;
	int intno;
	int fault_type;
	uint64_t fault_addr;
	int fault_size;
	uint64_t fault_pc; // the pc the invalid-memory hook read

	uc_hook h_block, h_host, h_intr, h_mem;
	uc_hook h_trace; // per-instruction Go tracer (debugging; slow), or 0

	// memory probes: accesses of chosen instructions, logged while probing
	tm_probe *probes; // sorted by pc
	uint32_t nprobes;
	uint64_t probe_lo, probe_hi;
	uint32_t *probe_first; // per byte of [lo, hi): 1 + index of its first probe, 0 = none
	uc_hook h_probe;
	int probing;
	tm_access *log;
	uint32_t log_cap, log_n;
	int log_overflow;

	// interrupt model (tm_interrupts): while irq_on, one asynchronous
	// interrupt in every run of the code in [irq_lo, irq_hi), before its
	// irq_target-th instruction (0 = the first); the next interrupted run
	// takes the next boundary, and a run too short for its target
	// restarts the cycle at 0. The
	// interrupt calls Go (goInterrupt) and then overwrites irq_depth bytes
	// below sp (but the poison_keep bytes right below it) with the poison
	// pattern of tm_watch, as the interrupt's frame would.
	uint64_t irq_lo, irq_hi;
	uc_hook h_irq;
	uint32_t irq_k, irq_target, irq_depth;
	int irq_taken, irq_armed, irq_on;
	uint64_t irq_armed_runs;
	int run_irq; // the current watched run was interrupted

	// the guard (tm_guard): with it on, a run stops at the first control
	// transfer known to be wrong, decided in the block hook at the leave
	// events the watch logs anyway; costs nothing per block otherwise.
	int guard;
	int guard_part;         // in_watch value of the range guarded against re-entry (0: none)
	uint64_t guard_sp_max;  // a leave with sp above it is wrong (0: no bound)
	uint64_t want_leave;    // where the current watched run must leave to (0: unknown); cleared at every enter
	uint32_t since_leave;   // blocks since the last leave of the guarded range
	int leave_part;         // the part that leave left
	int leave_irq;          // that run was interrupted
	int ff_pending;         // a wrong leave: stop at the next block (which tells whether it loops)
	int ff_reason;          // TM_FF_*
	int ff_loops;           // the next block entered the guarded range again: the transfer repeats forever
	uint64_t ff_pc, ff_want;
	uint64_t ff_regs[TM_NREGS]; // the registers at that leave
	uint64_t leave_regs[TM_NREGS];

	// registers read from a saved copy of the CPU state (tm_ctx_calibrate):
	// one uc_context_save and a load per register instead of one
	// uc_reg_read per register, for an arch whose context is small and
	// whose register reads are slow (s390x). ctx_off[i] is where register
	// i's value lies in the context's bytes, -1: read through uc_reg_read
	// (a register whose value is computed, such as a flags register).
	uc_context *ctx;
	const uint8_t *ctx_bytes;
	size_t ctx_size;
	int32_t ctx_off[TM_NREGS];
	int ctx_on;

	// registers read where the engine itself keeps them (live.c
	// tm_live_find): the CPU state the engine's uc_reg_read reads, found
	// once by value and checked on every machine; live_off[i] is register
	// i's offset from live, -1: read through uc_reg_read (a computed
	// register: pc, flags). Before ctx_on when both are set.
	uint8_t *live;
	int32_t live_off[TM_NREGS];
	int live_on;
	// a watch event's reads with live on: nlive runs of registers copied
	// from the engine's state (arm64 x0-x30 are one), then the rest
	// (nrest: registers not found; none on any arch here) and the flags
	// through the engine
	int nlive, nrest;
	// leave_flags: a leave event reads the flags register too (1 from
	// tm_new; 0: it holds 0, the checks of the run do not read it)
	int leave_flags;
	int arch, mode; // as uc_open got them (live.c opens a twin engine)
	int live_idx[TM_NREGS];   // the first register of run j
	int32_t live_at[TM_NREGS]; // its offset from live
	int live_len[TM_NREGS];   // registers in run j: consecutive indices at consecutive words
	int rest_ids[TM_NREGS];
	void *rest_ptrs[TM_NREGS];

	// per-call instruction limit (checked driver): the tag word changes at
	// every call; a call that runs more than call_limit instructions stops
	// the run as the instruction limit does
	uint64_t call_limit, call_start, call_tag;
	int call_limited;
} tm;

tm *tm_new(int arch, int mode, uintptr_t handle, const int *reg_ids, int nregs, int pc_index, int flags_index, uc_err *err);
void tm_free(tm *m);
uc_err tm_map(tm *m, uint64_t addr, uint64_t size, uint32_t perms, void *mem);
int tm_add_region(tm *m, uint64_t base, uint64_t size, void *host);
int tm_watch(tm *m, uint64_t lo, uint64_t hi, uint64_t mid, uint32_t poison_below, uint32_t poison_keep, uint64_t poison_xor, int big_endian, uint64_t tag);
uc_err tm_interrupts(tm *m, uint64_t lo, uint64_t hi, uint32_t depth);
void tm_guard(tm *m, int on, int part, uint64_t sp_max);
void tm_call_limit(tm *m, uint64_t limit);
uc_err tm_hooks(tm *m, uint64_t stub_lo, uint64_t stub_hi, uint64_t host_hi);
uc_err tm_guard_psw(tm *m, uint64_t addr);
uc_err tm_run(tm *m, uint64_t begin, uint64_t until, uint64_t limit);
void tm_timeout(tm *m);
int tm_ctx_calibrate(tm *m, const int *idx, int n);
int tm_live_find(tm *m, const int *idx, int n, int *word, int32_t *off);
int tm_live_use(tm *m, const int *idx, int n, int word, const int32_t *off);
uc_err tm_live_event(tm *m, int enter);

// tm_live_slot is where register i lies in the engine's state, NULL when
// it is read and written through the engine (live.c).
static inline uint8_t *tm_live_slot(tm *m, int i) {
	return m->live_on && m->live_off[i] >= 0 ? m->live + m->live_off[i] : NULL;
}
uc_err tm_read_regs(tm *m);
uc_err tm_write_dirty(tm *m);
uc_err tm_read_reg(tm *m, int idx);
uc_err tm_reg_read_engine(tm *m, int idx, uint64_t *v);
uc_err tm_read_missing(tm *m);
void tm_set_prefetch(tm *m, const int *idx, int n);
void tm_set_clobber(tm *m, const int *idx, const uint64_t *val, int n, int flags, uint64_t flags_xor, uint64_t flags_or);
int tm_set_fast(tm *m, uint64_t addr, int on, int nargs, const int *arg_idx, int require_arg, uint64_t require, int clobber);
tm_fast *tm_fast_of(tm *m, uint64_t addr);
uc_err tm_reg_write(tm *m, int idx, uint64_t v);
uc_err tm_remove_cache(tm *m, uint64_t begin, uint64_t end);
void tm_reset_counts(tm *m);
uint32_t tm_block_count(tm *m);
uint32_t tm_blocks_copy(tm *m, tm_block *out, uint32_t max);
void tm_stop(tm *m);
uc_err tm_set_probes(tm *m, uint64_t lo, uint64_t hi, const tm_probe *probes, uint32_t n);
uc_err tm_stop_probes(tm *m);
uc_err tm_trace(tm *m, uint64_t lo, uint64_t hi);
uc_err tm_x86_paging(tm *m, uint64_t cr3);
uint64_t tm_x86_cr2(tm *m);
unsigned int tm_version(unsigned int *major, unsigned int *minor);
int tm_api_major(void);
int tm_api_minor(void);
int tm_uc_reg_id(int arch, int which);

#endif
