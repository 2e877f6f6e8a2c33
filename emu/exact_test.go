package emu

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
	"trampemu/regs"

	"trampemu/asm"
)

// exactPrograms are hand-counted: instructions, loads and stores (implicit
// stack traffic included; an s390x stmg/lmg and an arm64 stp/ldp is one
// access of all its registers) between exact_start and exact_end.
var exactPrograms = map[string]struct {
	text string
	want ExactCount
}{
	"x86_64": {`
	.text
SYM_FUNC_START(exact_start)
	pushq	%rbx			/* store 8 */
	movq	%rdi, -16(%rsp)		/* store 8 */
	movq	-16(%rsp), %rax		/* load 8 */
	addq	%rax, -16(%rsp)		/* load 8, store 8 */
	leaq	8(%rsp), %rcx		/* no access */
	popq	%rbx			/* load 8 */
	RET				/* load 8 */
exact_end:
	nop
SYM_FUNC_END(exact_start)
SYM_CODE_START(done)
	nop
SYM_CODE_END(done)
`, ExactCount{Instructions: 7, Loads: 4, Stores: 3, LoadBytes: 32, StoreBytes: 24}},
	"s390x": {`
	.text
SYM_FUNC_START(exact_start)
	stmg	%r6,%r15,48(%r15)	/* one store, 80 bytes */
	lg	%r2,48(%r15)		/* load 8 */
	stg	%r2,8(%r15)		/* store 8 */
	la	%r3,8(%r15)		/* no access */
	lmg	%r6,%r15,48(%r15)	/* one load, 80 bytes */
	br	%r14
exact_end:
	nopr
SYM_FUNC_END(exact_start)
SYM_CODE_START(done)
	nopr
SYM_CODE_END(done)
`, ExactCount{Instructions: 6, Loads: 2, Stores: 2, LoadBytes: 88, StoreBytes: 88}},
	"arm64": {`
	.text
SYM_FUNC_START(exact_start)
	stp	x29, x30, [sp, #-16]!	/* one store, 16 bytes */
	str	x0, [sp, #-8]		/* store 8 */
	ldr	x1, [sp, #-8]		/* load 8 */
	add	x2, sp, #8		/* no access */
	ldp	x29, x30, [sp], #16	/* one load, 16 bytes */
	ret
exact_end:
	nop
SYM_FUNC_END(exact_start)
SYM_CODE_START(done)
	nop
SYM_CODE_END(done)
`, ExactCount{Instructions: 6, Loads: 2, Stores: 2, LoadBytes: 24, StoreBytes: 24}},
	"riscv64": {`
	.text
SYM_FUNC_START(exact_start)
	addi	sp, sp, -16		/* no access */
	sd	ra, 8(sp)		/* store 8 */
	sw	a0, 0(sp)		/* store 4 */
	lw	a1, 0(sp)		/* load 4 */
	ld	ra, 8(sp)		/* load 8 */
	addi	sp, sp, 16		/* no access */
	ret
exact_end:
	nop
SYM_FUNC_END(exact_start)
SYM_CODE_START(done)
	nop
SYM_CODE_END(done)
`, ExactCount{Instructions: 7, Loads: 2, Stores: 2, LoadBytes: 12, StoreBytes: 12}},
}

func TestExactCounterCountsByHand(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			p, ok := exactPrograms[a.Name]
			if !ok {
				t.Fatalf("no hand-counted program for %s", a.Name)
			}
			m := loadMachine(t, a, asm.Options{Arch: a}, asm.Source{Name: "exact.S", Text: []byte(p.text)})
			lo, hi := sym(t, m, "exact_start"), sym(t, m, "exact_end")
			// Run once before counting: the hooks must reach code translated
			// without them.
			if err := m.Call(lo, sym(t, m, "done"), stackTop(a), []uint64{7}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			ec, err := m.CountExact(Range{lo, hi})
			if err != nil {
				t.Fatal(err)
			}
			// The PC trace of one call is the straight-line listing from
			// exact_start to exact_end, hashed here independently of the
			// C hook (hash/fnv over the addresses).
			insns, err := asm.Listing(m.Image, asm.ForImage(m.Image), lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			h := fnv.New64a()
			for _, in := range insns {
				h.Write(binary.LittleEndian.AppendUint64(nil, in.Addr))
			}
			wantTrace := PCTrace{Count: uint64(len(insns)), Hash: h.Sum64()}
			const runs = 3
			for i := 0; i < runs; i++ {
				ec.ResetPCTrace()
				if err := m.Call(lo, sym(t, m, "done"), stackTop(a), []uint64{7}, RunOptions{}); err != nil {
					t.Fatal(err)
				}
				if got := ec.PCTrace(); got != wantTrace {
					t.Errorf("call %d: PC trace %+v, want %+v (the %d instructions of the listing)", i, got, wantTrace, len(insns))
				}
			}
			if err := ec.Close(); err != nil {
				t.Fatal(err)
			}
			want := p.want
			want.Instructions *= runs
			want.Loads *= runs
			want.Stores *= runs
			want.LoadBytes *= runs
			want.StoreBytes *= runs
			if got := ec.Counts()[0]; got != want {
				t.Errorf("counted %+v, want %+v", got, want)
			}
			// After Close the hooks are gone: nothing more is counted.
			if err := m.Call(lo, sym(t, m, "done"), stackTop(a), []uint64{7}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := ec.Counts()[0]; got != want {
				t.Errorf("after Close: %+v, want %+v unchanged", got, want)
			}
		})
	}
}

func TestExactCounterRejectsBadRanges(t *testing.T) {
	for _, a := range regs.Arches {
		m := newTestMachine(t, a)
		if _, err := m.CountExact(); err == nil {
			t.Errorf("%s: no range accepted", a.Name)
		}
		if _, err := m.CountExact(Range{0x2000, 0x1000}); err == nil {
			t.Errorf("%s: empty range accepted", a.Name)
		}
		if _, err := m.CountExact(make([]Range, 5)...); err == nil {
			t.Errorf("%s: 5 ranges accepted", a.Name)
		}
	}
}

func TestGoRawRunsWithoutHooks(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			calls := 0
			if err := m.Bind("host_add", func(m *Machine) error {
				calls++
				m.SetReturn(m.Arg(0) + m.Arg(1))
				return nil
			}, true); err != nil {
				t.Fatal(err)
			}
			fn, done := sym(t, m, "guest_add"), sym(t, m, "done")
			if err := m.Call(fn, done, stackTop(a), []uint64{40, 1}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if calls != 1 || m.Executed() == 0 {
				t.Fatalf("hooked run: %d host calls, %d instructions counted; want 1 and > 0", calls, m.Executed())
			}
			if err := m.GoRaw(); err != nil {
				t.Fatal(err)
			}
			if err := m.Call(fn, done, stackTop(a), []uint64{40, 1}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if calls != 1 {
				t.Errorf("raw run called Go: %d host calls", calls)
			}
			if m.Executed() != 0 {
				t.Errorf("raw run counted %d instructions: the block hook is still on", m.Executed())
			}
		})
	}
}

func TestDropHostFunctionsKeepsTheBlockCounter(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			calls := 0
			if err := m.Bind("host_add", func(m *Machine) error { calls++; return nil }, true); err != nil {
				t.Fatal(err)
			}
			if err := m.DropHostFunctions(); err != nil {
				t.Fatal(err)
			}
			if err := m.Call(sym(t, m, "guest_add"), sym(t, m, "done"), stackTop(a), []uint64{40, 1}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if calls != 0 || m.Executed() == 0 {
				t.Errorf("%d host calls, %d instructions counted; want 0 and > 0", calls, m.Executed())
			}
		})
	}
}

func TestGoRawRefusesATracer(t *testing.T) {
	for _, a := range regs.Arches {
		m := newTestMachine(t, a)
		if err := m.Trace(nopTracer{}, sym(t, m, "guest_add"), sym(t, m, "done")); err != nil {
			t.Fatal(err)
		}
		if err := m.GoRaw(); err == nil {
			t.Errorf("%s: GoRaw accepted a machine with a tracer", a.Name)
		}
	}
}

type nopTracer struct{}

func (nopTracer) Step(*Machine, uint64)               {}
func (nopTracer) Host(*Machine, string, uint64, bool) {}
