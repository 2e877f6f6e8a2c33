package emu

import (
	"sync"
	"sync/atomic"
)

// The C hooks name their machine by a small integer id. machineTable maps
// ids to machines: a copy-on-write slice, so the lookup on every host call
// is one atomic load and an index (runtime/cgo.Handle's sync.Map lookup
// cost about 25 ns per call), and machines on other goroutines never
// contend.
var machineTable struct {
	sync.Mutex
	list atomic.Pointer[[]*Machine]
	free []uintptr
}

// registerMachine gives m an id (never 0) for the C side.
func registerMachine(m *Machine) uintptr {
	t := &machineTable
	t.Lock()
	defer t.Unlock()
	var old []*Machine
	if p := t.list.Load(); p != nil {
		old = *p
	}
	next := append([]*Machine(nil), old...)
	var id uintptr
	if n := len(t.free); n > 0 {
		id, t.free = t.free[n-1], t.free[:n-1]
		next[id] = m
	} else {
		if len(next) == 0 {
			next = append(next, nil) // id 0 is never used
		}
		id = uintptr(len(next))
		next = append(next, m)
	}
	t.list.Store(&next)
	return id
}

// unregisterMachine releases id; the C side must not use it afterwards.
func unregisterMachine(id uintptr) {
	t := &machineTable
	t.Lock()
	defer t.Unlock()
	p := t.list.Load()
	if p == nil || id == 0 || id >= uintptr(len(*p)) || (*p)[id] == nil {
		return
	}
	next := append([]*Machine(nil), *p...)
	next[id] = nil
	t.list.Store(&next)
	t.free = append(t.free, id)
}

// machineByID returns the machine the C side named.
func machineByID(id uintptr) *Machine { return (*machineTable.list.Load())[id] }
