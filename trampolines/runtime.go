package trampolines

import (
	"fmt"
	"strings"

	"trampemu/regs"
)

// The checked driver of runtime/*.S (trampemu_checked_loop) calls workloads
// from a table of DriverBatch records in guest memory (trampemu_calls), one
// per call, each laid out as below (byte offsets). The harness fills them.
const (
	RecTarget    = 0                         // the workload function
	RecRegs      = 8                         // RecGPRs words: every general register's value, in regs index order (sp ignored)
	RecStack     = RecRegs + RecGPRs*8       // RecStackArgs words: stack arguments
	RecOut       = RecStack + RecStackArgs*8 // 2 words: the return registers after the call (x86-64 rax, rdx; s390x r2)
	RecRetbuf    = RecOut + 2*8              // 16 bytes: the buffer of a result returned through memory
	RecSize      = RecRetbuf + 16            // bytes per record
	RecStackArgs = 2                         // stack arguments a record carries
	// RecGPRs is how many general registers a record holds: arm64 has 31
	// (x0-x30); x86-64 and s390x use the first 16.
	RecGPRs = 31
	// DriverBatch is how many calls one batch makes: the harness sees the
	// results every DriverBatch calls and keeps that many calls alive.
	DriverBatch = 32
)

// RuntimeDefines are the preprocessor names runtime/<arch>.S is built with:
// TREC_TARGET, TREC_STACK, TREC_OUT, TREC_SIZE, TREC_BATCH and one
// TREC_<REG> per general register (TREC_RAX, TREC_R2, TREC_X0, ...): the
// registers before the program counter and the flags in regs order, at
// most RecGPRs of them (arm64's sp, after x30, has none).
func RuntimeDefines(a *regs.Arch) map[string]string {
	d := map[string]string{
		"TREC_TARGET": fmt.Sprint(RecTarget),
		"TREC_STACK":  fmt.Sprint(RecStack),
		"TREC_OUT":    fmt.Sprint(RecOut),
		"TREC_SIZE":   fmt.Sprint(RecSize),
		"TREC_BATCH":  fmt.Sprint(DriverBatch),
	}
	for i := 0; i < RecGPRs && i < len(a.Regs) && i != a.PC && i != a.Flags; i++ {
		d["TREC_"+strings.ToUpper(a.Regs[i].Name)] = fmt.Sprint(RecRegs + 8*i)
	}
	return d
}
