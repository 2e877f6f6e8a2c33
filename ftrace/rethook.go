package ftrace

import (
	"fmt"
	"math/bits"

	"trampemu/regs"
)

// RethookPool is how a rethook keeps its nodes.
type RethookPool int

// Rethook pools by kernel era.
const (
	// PoolFreelist (v5.18-v6.6): nodes kzalloc'd one by one and kept on a
	// lockless freelist with one global head (include/linux/freelist.h):
	// an uncontended pop is 3 atomic RMWs on shared lines (cmpxchg on the
	// node's refs, cmpxchg on the head, fetch_add -2), a push 2
	// (fetch_add, cmpxchg).
	PoolFreelist RethookPool = iota + 1
	// PoolObjpool (v6.7-v6.13, 4bbd93455659 "kprobes: kretprobe scalability
	// improvement with objpool"): per-CPU rings (lib/objpool.c v6.7+); a pop
	// is one try_cmpxchg_release on this CPU's head, a push one
	// try_cmpxchg_acquire on its tail, both with irqs off.
	PoolObjpool
)

// String returns "freelist" or "objpool".
func (p RethookPool) String() string {
	switch p {
	case PoolFreelist:
		return "freelist"
	case PoolObjpool:
		return "objpool"
	}
	return fmt.Sprintf("pool%d", int(p))
}

// struct rethook_node in guest memory (include/linux/rethook.h v6.7+:
// rcu_head rcu, llist_node llist, struct rethook *rethook, unsigned long
// ret_addr, unsigned long frame; v5.18-v6.6 has a union of the freelist
// node and the rcu_head in the first 16 bytes: the same 48).
const (
	RethookNodeOffLlist   = 16
	RethookNodeOffRethook = 24
	RethookNodeOffRetAddr = 32
	RethookNodeOffFrame   = 40
	// RethookNodeSize is sizeof(struct rethook_node).
	RethookNodeSize = 48
	// objpoolSlotHeader is sizeof(struct objpool_slot) without entries
	// (include/linux/objpool.h v6.7+: head, tail, last, mask: 4 u32).
	objpoolSlotHeader = 16
)

// RethookHandler is rethook_handler_t (include/linux/rethook.h v6.7+:
// node, data, ret_addr, regs).
type RethookHandler func(n *RethookNode, retAddr uint64, regs *regs.Frame)

// RethookNode is one struct rethook_node (plus the user's extension after
// it) in guest memory.
type RethookNode struct {
	Addr uint64 // guest address of the node
	rh   *Rethook
}

// Ext returns the guest address right after struct rethook_node: where
// container_of users (struct fprobe_rethook_node) keep their fields.
func (n *RethookNode) Ext() uint64 { return n.Addr + RethookNodeSize }

// RetAddr and Frame read node->ret_addr and node->frame.
func (n *RethookNode) RetAddr() uint64 { return n.rh.core.mem.ReadWord(n.Addr + RethookNodeOffRetAddr) }

// Frame reads node->frame.
func (n *RethookNode) Frame() uint64 { return n.rh.core.mem.ReadWord(n.Addr + RethookNodeOffFrame) }

// Rethook is one struct rethook: a handler and a pool of nodes.
type Rethook struct {
	Handler RethookHandler // nil after Stop (rethook_stop)
	Pool    RethookPool
	// ObjSize is the node size handed to rethook_alloc, aligned to 8
	// (objpool_init aligns it up to sizeof(long)).
	ObjSize int
	// Nodes is the number of preallocated nodes.
	Nodes int
	// MemoryBytes is what the pool reserved (RethookPoolBytes).
	MemoryBytes int

	core *RethookCore
	free []*RethookNode // freelist: LIFO top at the end; objpool: FIFO head at 0
}

// RethookStats are the rethook core's counters (all rethooks).
type RethookStats struct {
	Gets, GetsEmpty, Puts uint64 // rethook_try_get (empty: NULL), rethook_recycle
	Atomics               uint64 // atomic RMWs of the pool operations and the llist
	Hooks, Returns        uint64 // rethook_hook, rethook_trampoline_handler
	Handlers              uint64 // handler calls made by rethook_trampoline_handler
}

// RethookCore is kernel/trace/rethook.c: the per-task lists of hooked
// returns and the arch's trampoline address.
type RethookCore struct {
	// Trampoline is the guest address of arch_rethook_trampoline.
	Trampoline uint64
	// CPUs is num_possible_cpus() of the model (the pools' default size
	// and objpool's per-CPU rings depend on it).
	CPUs int

	mem   regs.Memory
	arch  *regs.Arch
	heap  *Heap
	g     *Graph
	lists map[*Task][]*RethookNode // current->rethooks: newest last
	stats RethookStats
	warn  func(kind, detail string)
}

// Stats returns the counters.
func (c *RethookCore) Stats() RethookStats { return c.stats }

// Pending returns how many hooked returns the current task has.
func (c *RethookCore) Pending() int { return len(c.lists[c.g.cur]) }

// RethookPoolBytes is the memory rethook_alloc(data, handler, size, num)
// reserves on a machine with cpus possible CPUs: freelist era num kzalloc'd
// nodes (kernel/trace/fprobe.c v5.18-v6.6 fprobe_init_rethook); objpool era
// (lib/objpool.c v6.7+ objpool_init) the per-CPU slot pointer array
// (nr_cpu_ids pointers) and per CPU one slot of capacity =
// roundup_pow_of_two(num) entries plus that CPU's share of the objects,
// each object ALIGN(size, sizeof(long)).
func RethookPoolBytes(pool RethookPool, size, num, cpus int) int {
	obj := (size + 7) &^ 7
	if pool != PoolObjpool {
		return num * obj
	}
	capacity := 1 << bits.Len(uint(num-1))
	return cpus*8 + cpus*(objpoolSlotHeader+capacity*8) + num*obj
}

// Alloc is rethook_alloc(data, handler, size, num) (kernel/trace/rethook.c
// v6.7+; the freelist era's rethook_alloc + rethook_add_node loop of
// fprobe_init_rethook v5.18-v6.6 has the same effect): handler NULL, num
// <= 0 or size < sizeof(struct rethook_node) is -EINVAL. The nodes live in
// guest memory with node->rethook set (rethook_init_node).
func (c *RethookCore) Alloc(pool RethookPool, handler RethookHandler, size, num int) (*Rethook, error) {
	if handler == nil || num <= 0 || size < RethookNodeSize {
		return nil, fmt.Errorf("rethook_alloc(size %d, num %d): %w", size, num, EINVAL)
	}
	obj := (size + 7) &^ 7
	rh := &Rethook{Handler: handler, Pool: pool, ObjSize: obj, Nodes: num, core: c,
		MemoryBytes: RethookPoolBytes(pool, size, num, c.CPUs)}
	base, err := c.heap.Alloc(uint64(obj*num), 8)
	if err != nil {
		return nil, fmt.Errorf("rethook_alloc(size %d, num %d): %w", size, num, err)
	}
	hdr, err := c.heap.Alloc(32, 8) // struct rethook {data, handler, pool...}: its guest address only
	if err != nil {
		return nil, err
	}
	for i := 0; i < num; i++ {
		n := &RethookNode{Addr: base + uint64(i*obj), rh: rh}
		c.mem.WriteWord(n.Addr+RethookNodeOffRethook, hdr)
		rh.free = append(rh.free, n)
	}
	return rh, nil
}

// Stop is rethook_stop: handler = NULL, so try_get fails from now on and
// pending nodes are freed instead of recycled.
func (rh *Rethook) Stop() { rh.Handler = nil }

// Free reports how many nodes are in the pool now.
func (rh *Rethook) Free() int { return len(rh.free) }

// TryGet is rethook_try_get (kernel/trace/rethook.c): NULL when the
// rethook is being freed or the pool is empty; else a pop.
func (c *RethookCore) TryGet(rh *Rethook) *RethookNode {
	c.stats.Gets++
	if rh.Handler == nil {
		c.stats.GetsEmpty++
		return nil
	}
	if len(rh.free) == 0 {
		// freelist: the head is NULL, no RMW; objpool: every CPU's ring
		// is looked at (loads only).
		c.stats.GetsEmpty++
		return nil
	}
	var n *RethookNode
	if rh.Pool == PoolObjpool {
		n, rh.free = rh.free[0], rh.free[1:]
		c.stats.Atomics++ // try_cmpxchg_release(&slot->head)
	} else {
		n, rh.free = rh.free[len(rh.free)-1], rh.free[:len(rh.free)-1]
		c.stats.Atomics += 3 // freelist_try_get: cmpxchg refs, cmpxchg head, fetch_add
	}
	return n
}

// Recycle is rethook_recycle: back to the pool, or (handler NULL: the
// rethook is being freed) dropped.
func (c *RethookCore) Recycle(n *RethookNode) {
	rh := n.rh
	if rh.Handler == nil {
		return // call_rcu(free_rethook_node_rcu): objpool_drop / kfree
	}
	c.stats.Puts++
	if rh.Pool == PoolObjpool {
		rh.free = append(rh.free, n)
		c.stats.Atomics++ // try_cmpxchg_acquire(&slot->tail)
	} else {
		rh.free = append(rh.free, n)
		c.stats.Atomics += 2 // freelist_add: fetch_add refs, cmpxchg head
	}
}

// Hook is rethook_hook(node, regs, mcount = true): arch_rethook_prepare
// saves the real return address and the frame in the node and points the
// return at arch_rethook_trampoline (x86-64 the word at regs->sp, arm64
// regs[30], s390x gprs[14]: the layout's return-address accessor), then the
// node goes on current->rethooks (__llist_add: no atomic).
func (c *RethookCore) Hook(n *RethookNode, f *regs.Frame) error {
	if f == nil {
		return fmt.Errorf("rethook_hook: regs is NULL: %w", EINVAL)
	}
	frame, ok := MustOps(c.arch).RethookFrame(f)
	if !ok {
		return fmt.Errorf("rethook_hook: %s has no frame slot: %w", f.Layout.Name, EINVAL)
	}
	acc := f.Layout.Accessors
	var ret uint64
	if acc.RetAddr != "" {
		ret, _ = f.Raw(acc.RetAddr)
		f.Set(acc.RetAddr, c.Trampoline)
	} else {
		sp, ok := f.StackPointer()
		if !ok {
			return fmt.Errorf("rethook_hook: no stack pointer in %s: %w", f.Layout.Name, EINVAL)
		}
		ret = c.mem.ReadWord(sp)
		c.mem.WriteWord(sp, c.Trampoline)
	}
	c.mem.WriteWord(n.Addr+RethookNodeOffRetAddr, ret)
	c.mem.WriteWord(n.Addr+RethookNodeOffFrame, frame)
	t := c.g.cur
	var next uint64
	if l := c.lists[t]; len(l) > 0 {
		next = l[len(l)-1].Addr + RethookNodeOffLlist
	}
	c.mem.WriteWord(n.Addr+RethookNodeOffLlist, next)
	c.lists[t] = append(c.lists[t], n)
	c.stats.Hooks++
	return nil
}

// TrampolineHandler is rethook_trampoline_handler(regs, frame)
// (kernel/trace/rethook.c v5.18+): the first node from the list head whose
// ret_addr is not the trampoline holds the real return address (earlier
// ones are tail calls); instruction_pointer_set(regs, correct); every node
// from the head to it has its handler called (a node whose frame is not
// frame WARNs and stops the loop); fixup (the arch's
// arch_rethook_fixup_return, done by the caller); the nodes are unlinked
// and recycled. No node at all is the kernel's BUG_ON: an error here.
func (c *RethookCore) TrampolineHandler(f *regs.Frame, frame uint64) (uint64, error) {
	c.stats.Returns++
	t := c.g.cur
	l := c.lists[t]
	idx := -1
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].RetAddr() != c.Trampoline {
			idx = i
			break
		}
	}
	if idx < 0 {
		return 0, fmt.Errorf("rethook: Return address not found! Maybe there is a bug in the kernel (frame %#x, %d nodes)", frame, len(l))
	}
	correct := l[idx].RetAddr()
	f.SetInstructionPointer(correct)
	for i := len(l) - 1; i >= idx; i-- {
		n := l[i]
		if n.Frame() != frame {
			c.warn("rethook frame mismatch", fmt.Sprintf("node frame %#x, trampoline frame %#x", n.Frame(), frame))
			break
		}
		if h := n.rh.Handler; h != nil {
			c.stats.Handlers++
			h(n, correct, f)
		}
	}
	used := l[idx:]
	c.lists[t] = l[:idx]
	for i := len(used) - 1; i >= 0; i-- {
		c.Recycle(used[i])
	}
	return correct, nil
}

// FindRetAddr is rethook_find_ret_addr(current, frame, &cur) as an
// unwinder uses it (kernel/trace/rethook.c v5.18+): the real return
// address of the hooked return filed under frame (the address of the
// return-address slot on x86-64, the frame's sp on s390x, its frame
// pointer on arm64), skipping the nodes of tail calls; 0 when no node is.
func (c *RethookCore) FindRetAddr(frame uint64) uint64 {
	l := c.lists[c.g.cur]
	for i := len(l) - 1; i >= 0; i-- {
		ret := l[i].RetAddr()
		if ret == c.Trampoline {
			continue
		}
		if l[i].Frame() == frame {
			return ret
		}
	}
	return 0
}
