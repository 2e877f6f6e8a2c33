package kernel

import "trampemu/trampolines"

// The riscv64 kernel bugs the checks find in real files (Debian's
// linux-source-6.1 and 6.12, make verify-trees); each attached to the
// models whose code has it (attach, by era).
var (
	// ftrace_regs_caller's SAVE_ALL (arch/riscv/kernel/mcount-dyn.S)
	// lowers sp before it stores x2: "addi sp, sp, -PT_SIZE_ON_STACK"
	// (v5.11-v6.2: after "addi sp, sp, -SZREG" too), then
	// "REG_S x2, PT_SP(sp)"; v6.8-v6.10's SAVE_ABI_REGS 1 the same. So
	// regs->sp, what kernel_stack_pointer() and regs_get_kernel_stack_nth()
	// of a kprobe on ftrace read ($stackN of a kprobe event), is the
	// trampoline's own frame. Read: potatogeek/kernel-a34x-permissiver@
	// 080ecb64293f (v5.15), Debian linux-source-6.1 6.1.192-3 mcount-dyn.S
	// lines 60-65 (the v6.3 t0 entry, backported), torvalds/linux@
	// 00c1d298d486 and deepin-community/kernel@ba438ab304b1 (v6.8-v6.10,
	// SAVE_ABI_REGS 1: "REG_S x2, PT_SP(sp)"). Gone with ftrace_regs_caller in
	// 7caa9765465f (v6.11, "ftrace: riscv: move from REGS to ARGS"),
	// whose WITH_ARGS entry stores the entry sp; 6.1.y and 6.6.y keep it.
	riscvRegsLoweredSP = KnownBug{Role: trampolines.Entry, Symbol: "ftrace_regs_caller", Kind: "wrong-value", Slot: "sp",
		Cause:     "arch/riscv/kernel/mcount-dyn.S SAVE_ALL stores x2 into PT_SP after \"addi sp, sp, -PT_SIZE_ON_STACK\": regs->sp is the trampoline's lowered sp (entry sp - 288)",
		Construct: `(REG_S|sd)\s+(x2|sp)\s*,\s*PT_SP\(sp\)`,
		Fix:       "7caa9765465f", FixedIn: "v6.11"}
	// return_to_handler's SAVE_RET_ABI_STATE (arch/riscv/kernel/mcount.S)
	// saves a0, s0, ra but not a1, and the original return address comes
	// back through a1 ("mv a1, a0; jalr a1"): the upper half of a
	// 2*XLEN result (a0-a1 return values, psABI riscv-cc.adoc) is lost.
	// Read: Debian linux-source-6.1 6.1.192-3 mcount.S lines 27-33, 74-76.
	// By v6.3 return_to_handler saves a1 at 0*SZREG and jumps through a2:
	// so the context lines of "riscv: ftrace: Enable
	// HAVE_FUNCTION_GRAPH_RETVAL" (b97aec082b51, v6.5; its mail of April
	// 2023 is against v6.3-rc), and delta-one/linux@ffe1311c638b's merge
	// conflict shows both sides; the commit between v6.1 and that was not
	// found in the mail archives read (it went to no 6.1.y).
	riscvRthA1Lost = KnownBug{Role: trampolines.Exit, Symbol: "return_to_handler", Kind: "clobber", Register: "a1",
		Cause:     "arch/riscv/kernel/mcount.S SAVE_RET_ABI_STATE saves a0 but not a1, and return_to_handler returns through a1 (\"mv a1, a0; jalr a1\")",
		Construct: `jalr\s+a1\b`,
		FixedIn:   "v6.3 at the latest"}
	// The return_to_handler of 67a5ba8f742f (v6.15, 6.14.y, 6.12.117):
	// SAVE_RET_ABI_STATE sets "addi s0, sp, FREGS_SIZE_ON_STACK", and the
	// frame record the unwinder reads at s0 - 16 / s0 - 8 (walk_stackframe,
	// "(struct stackframe *)fp - 1", arch/riscv/kernel/stacktrace.c,
	// torvalds/linux@0604aa87b098; the same record_base = fp - 16 in
	// linux-riscv/linux@0e9895cf6693's kunwind) is the a7 slot and the
	// padding of struct __arch_ftrace_regs, which it never writes: a stack
	// trace taken inside ftrace_return_to_handler's callbacks (an fprobe
	// exit handler's stacktrace trigger, a WARN or dump_stack in an fgraph
	// retfunc) reads stale words there and loses the traced function's
	// caller. The v6.5-v6.13 block (a1, a0, s0, ra) was a record. Still so
	// in linux-riscv/linux@826da2eea23b and @0481092a5bec.
	riscvRthNoRecord = KnownBug{Role: trampolines.Exit, Symbol: "return_to_handler", Kind: "backchain",
		Summary:   "the frame-record chain from s0 at the call to ftrace_return_to_handler",
		Cause:     "arch/riscv/kernel/mcount.S SAVE_RET_ABI_STATE sets s0 = sp + FREGS_SIZE_ON_STACK, but s0-16/s0-8 (the record walk_stackframe reads) are the unwritten a7 slot and padding",
		Construct: `addi\s+s0\s*,\s*sp\s*,\s*FREGS_SIZE_ON_STACK`,
		Unfixed:   "linux-riscv/linux@826da2eea23b"}
)

func init() {
	attach(riscvModels, Version{5, 11}, Version{6, 10}, riscvRegsLoweredSP)
	// the a1 fix's release is not known: every era before
	// fgraph_ret_regs, for a file that still returns through a1
	attach(riscvModels, Version{5, 11}, Version{6, 4}, riscvRthA1Lost)
	attach(riscvModels, Version{6, 14}, Version{}, riscvRthNoRecord)
}
