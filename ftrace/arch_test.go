package ftrace

import (
	"bytes"
	"testing"

	"trampemu/regs"
)

func TestArchOpsCallSites(t *testing.T) {
	for _, c := range []struct {
		arch                 *regs.Arch
		site, target         uint64
		call, nop            []byte
		modifyOld, modified  []byte
		graphOld, graphPatch []byte
		graphTarget          uint64
		provided             int
	}{
		{
			arch: regs.X86_64, site: 0xffffffff81001000, target: 0xffffffff81002000,
			call: []byte{0xe8, 0xfb, 0x0f, 0, 0}, nop: []byte{0x0f, 0x1f, 0x44, 0x00, 0x00},
			modifyOld: []byte{0xe8, 0, 0, 0, 0, 0x90}, modified: []byte{0xe8, 0xfb, 0x0f, 0, 0},
			graphOld: []byte{0xe9, 0, 0, 0, 0}, graphTarget: 0xffffffff81001105, graphPatch: []byte{0xe9, 0x00, 0x01, 0, 0},
			provided: 6,
		},
		{
			arch: regs.S390X, site: 0x101000, target: 0x102000,
			call: []byte{0xc0, 0x05, 0, 0, 0x08, 0}, nop: []byte{0xc0, 0x04, 0, 0, 0, 0},
			modifyOld: []byte{0xc0, 0xe5, 0, 0, 0, 0}, modified: []byte{0xc0, 0xe5, 0, 0, 0x08, 0},
			graphOld: []byte{0xa7, 0xf4, 0x12, 0x34}, graphPatch: []byte{0xa7, 0x04, 0x12, 0x34},
			provided: 8,
		},
		{
			// arch/arm64/kernel/ftrace.c: "bl" over the NOP at the record,
			// "b ftrace_graph_caller" over the NOP at ftrace_graph_call.
			arch: regs.ARM64, site: 0xffff800080001004, target: 0xffff800080002000,
			call: []byte{0xff, 0x03, 0x00, 0x94}, nop: []byte{0x1f, 0x20, 0x03, 0xd5},
			modifyOld: []byte{0x00, 0x00, 0x00, 0x94, 0x1f}, modified: []byte{0xff, 0x03, 0x00, 0x94},
			graphOld: []byte{0x1f, 0x20, 0x03, 0xd5}, graphTarget: 0xffff800080001104, graphPatch: []byte{0x40, 0x00, 0x00, 0x14},
			provided: 6,
		},
	} {
		t.Run(c.arch.Name, func(t *testing.T) {
			o, err := OpsOf(c.arch)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.NopSite) != c.arch.McountInsnSize || !bytes.Equal(o.NopSite, c.nop) {
				t.Errorf("NopSite % x, want % x (MCOUNT_INSN_SIZE %d)", o.NopSite, c.nop, c.arch.McountInsnSize)
			}
			got, err := o.MakeCall(c.arch, c.site, c.target)
			if err != nil || !bytes.Equal(got, c.call) || len(got) != c.arch.McountInsnSize {
				t.Errorf("MakeCall = % x, %v; want % x", got, err, c.call)
			}
			got, err = o.ModifyCall(c.arch, c.site, c.target, c.modifyOld)
			if err != nil || !bytes.Equal(got, c.modified) {
				t.Errorf("ModifyCall = % x, %v; want % x", got, err, c.modified)
			}
			// the kernel hands exactly the call's bytes (OldLen)
			if len(c.modifyOld) < o.OldLen {
				t.Fatalf("modifyOld % x is shorter than OldLen %d", c.modifyOld, o.OldLen)
			}
			got, err = o.ModifyCall(c.arch, c.site, c.target, c.modifyOld[:o.OldLen])
			if err != nil || !bytes.Equal(got, c.modified) {
				t.Errorf("ModifyCall over exactly %d bytes = % x, %v; want % x", o.OldLen, got, err, c.modified)
			}
			// a call re-encoded over the call it made, MCOUNT_INSN_SIZE bytes
			if again, err := o.ModifyCall(c.arch, c.site, c.target, c.modified[:c.arch.McountInsnSize]); err != nil || !bytes.Equal(again, c.modified) {
				t.Errorf("ModifyCall over its own %d-byte call = % x, %v; want % x", c.arch.McountInsnSize, again, err, c.modified)
			}
			if _, err := o.ModifyCall(c.arch, c.site, c.target, c.nop); err == nil {
				t.Errorf("ModifyCall over the nop site % x: no error", c.nop)
			}
			if _, err := o.MakeCall(c.arch, 0, 1<<40); err == nil {
				t.Errorf("MakeCall to a target out of range: no error")
			}
			got, err = o.EnableGraph(c.arch, c.site, c.graphTarget, c.graphOld)
			if err != nil || !bytes.Equal(got, c.graphPatch) {
				t.Errorf("EnableGraph = % x, %v; want % x", got, err, c.graphPatch)
			}
			if _, err := o.EnableGraph(c.arch, c.site, c.graphTarget, c.nop[:2]); err == nil {
				t.Errorf("EnableGraph over % x: no error", c.nop[:2])
			}
			if n := len(o.Provided()); n != c.provided {
				t.Errorf("Provided() = %v, want %d symbols", o.Provided(), c.provided)
			}
		})
	}
	if _, err := OpsOf(&regs.Arch{Name: "vax"}); err == nil {
		t.Error("OpsOf(vax): no error")
	}
}

// FuzzArchOpsCallSites: the call-site encoders never panic, and an encoded
// call has the length of the call site (MCOUNT_INSN_SIZE).
func FuzzArchOpsCallSites(f *testing.F) {
	f.Add(uint64(0xffffffff81001000), uint64(0xffffffff81002000), []byte{0xe8, 0, 0, 0, 0, 0})
	f.Add(uint64(0x101000), uint64(0x102000), []byte{0xc0, 0xe5, 0, 0, 0, 0})
	f.Add(uint64(0), uint64(0), []byte{})
	f.Add(uint64(0xffff800080001004), uint64(0xffff800080002000), []byte{0x00, 0x00, 0x00, 0x94})
	f.Fuzz(func(t *testing.T, site, target uint64, old []byte) {
		for _, a := range regs.Arches {
			o := MustOps(a)
			for _, enc := range []func() ([]byte, error){
				func() ([]byte, error) { return o.MakeCall(a, site, target) },
				func() ([]byte, error) { return o.ModifyCall(a, site, target, old) },
			} {
				b, err := enc()
				if err != nil {
					continue
				}
				if len(b) != a.McountInsnSize {
					t.Fatalf("%s: % x is not %d bytes", a.Name, b, a.McountInsnSize)
				}
			}
			_, _ = o.EnableGraph(a, site, target, old)
		}
	})
}

// TestSiteAt: where a call site may sit in its function, per arch: x86-64
// at 0 or after endbr64 (+4, CONFIG_X86_KERNEL_IBT, arch/x86/include/asm/ibt.h);
// s390x only at 0 (brasl/brcl at the entry, arch/s390/kernel/ftrace.c);
// arm64 after "mov x9, x30" (+4) or after "bti c; mov x9, x30" (+8,
// arch/arm64/kernel/ftrace.c ftrace_call_adjust, v6.3+). The -pg call
// site (pg) of arm64 v4.19-v5.4 is the "bl _mcount" after the workloads'
// 8-instruction prologue (+32, +36 after "bti c"); the other arches have
// no -pg era modelled (only 0).
func TestSiteAt(t *testing.T) {
	for _, c := range []struct {
		arch     *regs.Arch
		pg       bool
		ok, nope []uint64
	}{
		{regs.X86_64, false, []uint64{0, 4}, []uint64{1, 5, 8}},
		{regs.S390X, false, []uint64{0}, []uint64{2, 4, 6}},
		{regs.ARM64, false, []uint64{4, 8}, []uint64{0, 12, 16}},
		{regs.X86_64, true, []uint64{0}, []uint64{4, 32}},
		{regs.S390X, true, []uint64{0}, []uint64{4, 32}},
		{regs.ARM64, true, []uint64{32, 36}, []uint64{0, 4, 8, 28, 40}},
	} {
		o := MustOps(c.arch)
		for _, off := range c.ok {
			if !o.SiteAt(c.pg, off) {
				t.Errorf("%s pg=%v: SiteAt(%d) false, want true", c.arch.Name, c.pg, off)
			}
		}
		for _, off := range c.nope {
			if o.SiteAt(c.pg, off) {
				t.Errorf("%s pg=%v: SiteAt(%d) true, want false", c.arch.Name, c.pg, off)
			}
		}
	}
}
