package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// Heap hands out guest memory from the arch's heap region (kmalloc for the
// stand-ins): shadow stacks, struct fprobe, struct ftrace_ops. Addresses are
// real guest addresses, which matters: fprobe packs bits into the top of
// these pointers. Memory is never freed (a run is short).
type Heap struct {
	Region regs.Region
	next   uint64
}

// NewHeap returns an allocator over region r.
func NewHeap(r regs.Region) *Heap { return &Heap{Region: r, next: r.Base} }

// Alloc returns size bytes aligned to align (a power of two, >= 8).
func (h *Heap) Alloc(size, align uint64) (uint64, error) {
	if align < 8 {
		align = 8
	}
	a := (h.next + align - 1) &^ (align - 1)
	if size > h.Region.End()-a || a < h.next {
		return 0, fmt.Errorf("guest heap %s exhausted (%d bytes asked, %d left): %w", h.Region.Name, size, h.Region.End()-h.next, ENOMEM)
	}
	h.next = a + size
	return a, nil
}

// Used returns the bytes handed out so far.
func (h *Heap) Used() uint64 { return h.next - h.Region.Base }
