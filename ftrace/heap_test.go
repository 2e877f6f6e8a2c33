package ftrace

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"trampemu/regs"
)

// TestHeapAlloc: allocations are aligned (at least 8), use the region to
// its last byte and no further: one byte more than is left is ENOMEM
// naming the region, the size asked and the bytes left, and a failed allocation takes nothing. Every arch's
// heap region.
func TestHeapAlloc(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		r := a.Memory.Heap
		h := NewHeap(r)
		p, err := h.Alloc(3, 1)
		if err != nil || p != r.Base || h.Used() != 3 {
			t.Fatalf("Alloc(3, 1) = %#x, %v; used %d", p, err, h.Used())
		}
		q, err := h.Alloc(8, 4) // an alignment below 8 is 8
		if err != nil || q != r.Base+8 || h.Used() != 16 {
			t.Fatalf("Alloc(8, 4) = %#x, %v; used %d", q, err, h.Used())
		}
		w, err := h.Alloc(1, 64)
		if err != nil || w != r.Base+64 || w%64 != 0 {
			t.Fatalf("Alloc(1, 64) = %#x, %v", w, err)
		}
		left := r.End() - (w + 64) // after aligning the next block to 64
		if _, err := h.Alloc(left+1, 64); !errors.Is(err, ENOMEM) {
			t.Fatalf("one byte more than is left: %v, want ENOMEM", err)
		} else if want := fmt.Sprintf("guest heap %s exhausted (%d bytes asked, %d left)", r.Name, left+1, r.End()-(w+1)); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q, want it to start %q (the region, the size asked and what is left)", err, want)
		}
		used := h.Used()
		last, err := h.Alloc(left, 64)
		if err != nil || last != w+64 || last+left != r.End() {
			t.Fatalf("the last %d bytes: %#x, %v (used %d before)", left, last, err, used)
		}
		if _, err := h.Alloc(1, 8); !errors.Is(err, ENOMEM) {
			t.Fatalf("a full heap: %v", err)
		}
		if h.Used() != r.Size {
			t.Errorf("used %d of %d", h.Used(), r.Size)
		}
	})
}
