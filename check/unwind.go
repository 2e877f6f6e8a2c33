package check

import (
	"fmt"
	"slices"
	"strings"

	"trampemu/harness"
)

// stackWalks checks the stack walks modelled users made in a run of the
// trampoline under test (harness.Invocation.StackWalks: the bpf-ret
// user's bpf_get_stackid at a return): the chain must be the true one,
// the traced function's caller and its callers up to the driver, in
// order. Anything else is an unwind error printing both chains. A walk
// the user did not make (StackWalk.Skipped) is an unwind info with the
// reason.
func (z *analyzer) stackWalks(inv *harness.Invocation) {
	for _, w := range inv.StackWalks {
		if w.Skipped != "" {
			z.col.addSev(Unwind, Info, "", "", fmt.Sprintf("%s made no stack walk at the return of %s", w.User, z.where(w.Func)), w.Skipped)
			continue
		}
		if len(w.Want) == 0 || slices.Equal(w.Got, w.Want) {
			continue
		}
		why := ""
		if w.Err != "" {
			why = "; the unwinder: " + w.Err
		}
		z.col.add(Unwind, "", "", fmt.Sprintf("%s's stack walk at the return of %s is not the true chain", w.User, z.where(w.Func)),
			fmt.Sprintf("got [%s], want [%s]%s", z.chain(w.Got), z.chain(w.Want), why))
	}
}

func (z *analyzer) chain(ips []uint64) string {
	parts := make([]string, len(ips))
	for i, ip := range ips {
		parts[i] = z.where(ip)
	}
	return strings.Join(parts, " ")
}
