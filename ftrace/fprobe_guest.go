package ftrace

import "trampemu/regs"

// struct fprobe in guest memory. The fields are the kernel's
// (include/linux/fprobe.h, v6.14+: nmissed, flags, entry_data_size,
// entry_handler, exit_handler, hlist_array); the layout is this tool's
// LP64 rendering of it:
//
//	+0  unsigned long nmissed
//	+8  unsigned int  flags (4 bytes, then 4 bytes padding)
//	+16 size_t        entry_data_size (rounded up to 8 at registration)
//	+24 entry_handler (1 when set: Go handlers have no guest address)
//	+32 exit_handler  (1 when set)
//	+40 hlist_array   (0: the address table lives in Go)
const (
	// FprobeOffNmissed is the byte offset of nmissed.
	FprobeOffNmissed = 0
	// FprobeOffFlags is the byte offset of flags (4 bytes).
	FprobeOffFlags = 8
	// FprobeOffDataSize is the byte offset of entry_data_size.
	FprobeOffDataSize = 16
	// FprobeOffEntry is the byte offset of entry_handler.
	FprobeOffEntry = 24
	// FprobeOffExit is the byte offset of exit_handler.
	FprobeOffExit = 32
	// FprobeOffHlist is the byte offset of hlist_array.
	FprobeOffHlist = 40
	// FprobeStructSize is sizeof(struct fprobe) in this layout.
	FprobeStructSize = 48
)

// fprobe flags (include/linux/fprobe.h, v5.18+).
const (
	// FprobeFlDisabled is FPROBE_FL_DISABLED: handlers are not called.
	FprobeFlDisabled = 1
	// FprobeFlKprobeShared is FPROBE_FL_KPROBE_SHARED (kprobes are not
	// modelled, so it changes nothing here).
	FprobeFlKprobeShared = 2
)

func (m *Fprobes) readFlags(fp *Fprobe) uint32 { return guestFlags(m.mem, m.arch, fp) }

func (m *Fprobes) writeFlags(fp *Fprobe, v uint32) { putGuestFlags(m.mem, m.arch, fp, v) }

func guestFlags(mem regs.Memory, a *regs.Arch, fp *Fprobe) uint32 {
	var b [4]byte
	mem.Read(fp.addr+FprobeOffFlags, b[:])
	return a.ByteOrder.Uint32(b[:])
}

func putGuestFlags(mem regs.Memory, a *regs.Arch, fp *Fprobe, v uint32) {
	var b [4]byte
	a.ByteOrder.PutUint32(b[:], v)
	mem.Write(fp.addr+FprobeOffFlags, b[:])
}

// fprobeDisabled is fprobe_disabled(fp): fp->flags & FPROBE_FL_DISABLED
// (include/linux/fprobe.h).
func (m *Fprobes) fprobeDisabled(fp *Fprobe) bool { return m.readFlags(fp)&FprobeFlDisabled != 0 }

func (m *Fprobes) dataSize(fp *Fprobe) int {
	return int(m.mem.ReadWord(fp.addr + FprobeOffDataSize))
}

func (m *Fprobes) incMissed(fp *Fprobe) { incGuestMissed(m.mem, fp) }

func incGuestMissed(mem regs.Memory, fp *Fprobe) {
	mem.WriteWord(fp.addr+FprobeOffNmissed, mem.ReadWord(fp.addr+FprobeOffNmissed)+1)
}

// writeStruct fills struct fprobe at registration (fprobe_init,
// kernel/trace/fprobe.c, v6.14+): nmissed = 0, entry_data_size rounded up;
// the flags are written only the first time (the kernel never resets them).
func (m *Fprobes) writeStruct(fp *Fprobe, size int, first bool) {
	writeGuestStruct(m.mem, m.arch, fp, size, first)
}

func writeGuestStruct(mem regs.Memory, a *regs.Arch, fp *Fprobe, size int, first bool) {
	mark := func(set bool) uint64 {
		if set {
			return 1
		}
		return 0
	}
	mem.WriteWord(fp.addr+FprobeOffNmissed, 0)
	if first {
		var fl uint32
		if fp.StartDisabled {
			fl |= FprobeFlDisabled
		}
		if fp.KprobeShared {
			fl |= FprobeFlKprobeShared
		}
		putGuestFlags(mem, a, fp, fl)
		mem.Write(fp.addr+FprobeOffFlags+4, make([]byte, 4))
	}
	mem.WriteWord(fp.addr+FprobeOffDataSize, uint64(size))
	mem.WriteWord(fp.addr+FprobeOffEntry, mark(fp.EntryHandler != nil))
	mem.WriteWord(fp.addr+FprobeOffExit, mark(fp.ExitHandler != nil))
	mem.WriteWord(fp.addr+FprobeOffHlist, 0)
}

// guest returns the memory and arch of the manager fp is registered with
// (nil before the first registration).
func (fp *Fprobe) guest() (regs.Memory, *regs.Arch) {
	switch {
	case fp.mgr != nil:
		return fp.mgr.mem, fp.mgr.arch
	case fp.rmgr != nil:
		return fp.rmgr.mem, fp.rmgr.arch
	}
	return nil, nil
}

// NMissed reads fp->nmissed from guest memory (0 before registration).
func (fp *Fprobe) NMissed() uint64 {
	mem, _ := fp.guest()
	if mem == nil {
		return 0
	}
	return mem.ReadWord(fp.addr + FprobeOffNmissed)
}

// GuestFlags reads fp->flags from guest memory (0 before registration).
func (fp *Fprobe) GuestFlags() uint32 {
	mem, a := fp.guest()
	if mem == nil {
		return 0
	}
	return guestFlags(mem, a, fp)
}

// Disabled reports fprobe_disabled(fp).
func (fp *Fprobe) Disabled() bool {
	mem, _ := fp.guest()
	if mem == nil {
		return fp.StartDisabled
	}
	return fp.GuestFlags()&FprobeFlDisabled != 0
}

// GuestDataSize reads fp->entry_data_size (rounded at registration).
func (fp *Fprobe) GuestDataSize() int {
	mem, _ := fp.guest()
	if mem == nil {
		return 0
	}
	return int(mem.ReadWord(fp.addr + FprobeOffDataSize))
}
