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
		Cause:     "arch/riscv/kernel/mcount-dyn.S SAVE_ALL stores x2 into PT_SP after \"addi sp, sp, -PT_SIZE_ON_STACK\": regs->sp is the trampoline's lowered sp (entry sp - 288; - 296 in v5.11-v6.2)",
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
	// Also in potatogeek/kernel-a34x-permissiver@a1cd818d9681 (v5.15.41)
	// mcount.S, blob 6d462681c9c0, lines 27-33, 74-76; the registry's
	// rth-legacy-no-a1 is written with it (the v5.11-v6.2 model's exit
	// partner).
	riscvRthA1Lost = KnownBug{Role: trampolines.Exit, Symbol: "return_to_handler", Kind: "clobber", Register: "a1",
		Cause:     "arch/riscv/kernel/mcount.S SAVE_RET_ABI_STATE saves a0 but not a1, and return_to_handler returns through a1 (\"mv a1, a0; jalr a1\")",
		Construct: `jalr\s+a1\b`,
		FixedIn:   "v6.3 at the latest", Variant: "rth-legacy-no-a1"}
	// The v5.11-v6.2 mcount-dyn.S of the ra-based call site, read in
	// potatogeek/kernel-a34x-permissiver@a1cd818d9681 (v5.15.41), blob
	// d171eca623b6: SAVE_ABI (lines 28-30) and SAVE_ALL (lines 59-61)
	// lower sp by SZREG onto the parent word the site stored at sp - 8,
	// then by ABI_SIZE_ON_STACK (72) or PT_SIZE_ON_STACK (288). Between
	// the two, sp is 8 bytes off the 16 the psABI keeps it aligned to
	// (riscv-elf-psabi-doc riscv-cc.adoc), and in ftrace_regs_caller it
	// stays so: 296 bytes, at ftrace_regs_call and ftrace_graph_regs_call
	// too (ftrace_caller's 80 are aligned again). An interrupt there runs
	// handle_exception and its C handler on the misaligned stack
	// (arch/riscv/kernel/entry.S v5.15, blob 7e52ad5d61ad, lowers sp by
	// PT_SIZE_ON_STACK without aligning it). The t0-based site of
	// 6724a76cff85 (v6.3) needs no parent word: SAVE_ABI lowers sp by 80,
	// ftrace_regs_caller by PT_SIZE_ON_STACK.
	riscvE1CallerMisaligned = KnownBug{Role: trampolines.Entry, Symbol: "ftrace_caller", Kind: "stack", Register: "sp",
		Summary:   "sp not 16-byte aligned",
		Cause:     "arch/riscv/kernel/mcount-dyn.S SAVE_ABI lowers sp by SZREG (onto the parent word), then by ABI_SIZE_ON_STACK (72): in between sp is 8 bytes off 16-byte alignment",
		Construct: `addi\s+sp\s*,\s*sp\s*,\s*-SZREG\s+addi\s+sp\s*,\s*sp\s*,\s*-\w+`,
		Fix:       "6724a76cff85", FixedIn: "v6.3"}
	riscvE1RegsMisaligned = KnownBug{Role: trampolines.Entry, Symbol: "ftrace_regs_caller", Kind: "stack", Register: "sp",
		Summary:   "sp not 16-byte aligned",
		Cause:     "arch/riscv/kernel/mcount-dyn.S SAVE_ALL lowers sp by SZREG + PT_SIZE_ON_STACK (296): sp is 8 bytes off 16-byte alignment inside ftrace_regs_caller and at its calls into C",
		Construct: `addi\s+sp\s*,\s*sp\s*,\s*-SZREG\s+addi\s+sp\s*,\s*sp\s*,\s*-PT_SIZE_ON_STACK\b`,
		Fix:       "6724a76cff85", FixedIn: "v6.3"}
	// Same file, SAVE_ALL lines 63-68 and RESTORE_ALL lines 103-107: to
	// reach the parent word SAVE_ALL stores x1 (func + 12) into PT_EPC,
	// raises sp by PT_SIZE_ON_STACK, loads the word at sp, lowers sp and
	// loads x1 back from PT_EPC; RESTORE_ALL raises sp the same way to
	// store PT_RA into the word, then reloads every register from the
	// pt_regs. In between, PT_EPC (and in RESTORE_ALL the whole pt_regs)
	// lies below sp, exactly where an interrupt's pt_regs lands
	// (handle_exception: sp - PT_SIZE_ON_STACK, entry.S v5.15), whose epc
	// is the interrupted pc: the trampoline then returns into itself.
	// Gone with the parent word in 6724a76cff85 (v6.3).
	riscvE1RegsBelowSP = KnownBug{Role: trampolines.Entry, Symbol: "ftrace_regs_caller", Kind: "stack",
		Summary:   "the entry trampoline depends on memory below sp",
		Cause:     "arch/riscv/kernel/mcount-dyn.S SAVE_ALL raises sp by PT_SIZE_ON_STACK to load the parent word after storing PT_EPC (RESTORE_ALL likewise to store it): PT_EPC, or the whole pt_regs, lies below sp, where an interrupt's pt_regs lands",
		Construct: `addi\s+sp\s*,\s*sp\s*,\s*PT_SIZE_ON_STACK\s+REG_L\s+(x1|ra)\s*,\s*0?\(sp\)`,
		Fix:       "6724a76cff85", FixedIn: "v6.3"}
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
	// the ra-based call site's parent word
	attach(riscvModels, Version{5, 11}, Version{6, 2}, riscvE1CallerMisaligned, riscvE1RegsMisaligned, riscvE1RegsBelowSP)
	attach(riscvModels, Version{6, 14}, Version{}, riscvRthNoRecord)
}
