package scenarios

import (
	"fmt"
	"strings"

	"trampemu/ftrace"
	"trampemu/regs"
)

// fprobeBudget: fprobes of 15 data words each on `add`. One fgraph
// reservation holds at most 32 words, so with the one-word header two fit
// (2 x 16 = 32) and a third makes the reservation fail: every enabled
// probe at the address counts nmissed and no handler runs. The sizing pass
// ignores the disabled flag, so disabling the third probe does not help
// (only the enabled ones count the miss); unregistering it does. The
// expectations follow from the constants for the chosen header (with the
// two-word header not even two fit).
func fprobeBudget(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	codec := ftrace.HeaderCodec{Enc: e.hdr, Arch: e.a}
	perProbe := codec.Words() + ftrace.MaxFprobeDataWords
	encodable := codec.Encodable(e.a.Memory.Heap.Base, ftrace.MaxFprobeDataWords)
	r.set("words_per_probe", int64(perProbe))
	r.set("max_reservation_words", ftrace.MaxDataWords)

	entries := map[string]int64{}
	exits := map[string]int64{}
	mk := func(name string) *ftrace.Fprobe {
		return &ftrace.Fprobe{Name: name, EntryDataSize: 8 * ftrace.MaxFprobeDataWords,
			EntryHandler: func(fp *ftrace.Fprobe, _, _ uint64, _ *regs.Frame, data uint64) int {
				entries[fp.Name]++
				if data != 0 {
					// Fill all 15 words: the records must not overlap.
					for i := uint64(0); i < ftrace.MaxFprobeDataWords; i++ {
						e.mem.WriteWord(data+8*i, uint64(len(fp.Name))<<32|i)
					}
				}
				return 0
			},
			ExitHandler: func(fp *ftrace.Fprobe, _, _ uint64, _ *regs.Frame, data uint64) {
				exits[fp.Name]++
				for i := uint64(0); data != 0 && i < ftrace.MaxFprobeDataWords; i++ {
					if e.mem.ReadWord(data+8*i) != uint64(len(fp.Name))<<32|i {
						r.failf("%s: entry data word %d was overwritten", fp.Name, i)
						return
					}
				}
			}}
	}
	// Distinct name lengths give each probe its own data pattern.
	p1, p2, p3 := mk("p1"), mk("p22"), mk("p333")
	all := []*ftrace.Fprobe{p1, p2, p3}
	missed := map[*ftrace.Fprobe]uint64{}

	step := func(name string, active []*ftrace.Fprobe, enabled int) error {
		clear(entries)
		clear(exits)
		for _, fp := range all {
			missed[fp] = fp.NMissed()
		}
		if _, err := e.call("add"); err != nil {
			return err
		}
		fits := len(active)*perProbe <= ftrace.MaxDataWords
		p := name + "_"
		r.set(p+"reserved_words", int64(len(active)*perProbe))
		r.set(p+"fits", b2i(fits))
		var ent, ex, nm int64
		for i, fp := range active {
			ent += entries[fp.Name]
			ex += exits[fp.Name]
			d := int64(fp.NMissed() - missed[fp])
			nm += d
			wantMiss := int64(0)
			if !fits && i < enabled {
				wantMiss = 1
			}
			r.expect(d == wantMiss, "%s: %s nmissed grew by %d, want %d", name, fp.Name, d, wantMiss)
		}
		r.set(p+"entry_handler_calls", ent)
		r.set(p+"exit_handler_calls", ex)
		r.set(p+"nmissed", nm)
		wantEnt, wantEx, wantNm := int64(0), int64(0), int64(enabled)
		if fits {
			wantEnt, wantNm = int64(enabled), 0
			if encodable {
				wantEx = int64(enabled)
			}
		}
		r.expectEq(p+"entry_handler_calls", wantEnt)
		r.expectEq(p+"exit_handler_calls", wantEx)
		r.expectEq(p+"nmissed", wantNm)
		return nil
	}
	reg := func(fp *ftrace.Fprobe) bool {
		err := e.fp.Register(fp, "add")
		return r.expect(err == nil, "register_fprobe(%s): %v", fp.Name, err)
	}
	if !reg(p1) || !reg(p2) {
		return nil
	}
	if err := step("two", []*ftrace.Fprobe{p1, p2}, 2); err != nil {
		return err
	}
	if !reg(p3) {
		return nil
	}
	if err := step("three", []*ftrace.Fprobe{p1, p2, p3}, 3); err != nil {
		return err
	}
	e.fp.Disable(p3)
	if err := step("three_one_disabled", []*ftrace.Fprobe{p1, p2, p3}, 2); err != nil {
		return err
	}
	r.expect(e.fp.Unregister(p3) == nil, "unregister_fprobe(p3) failed")
	if err := step("two_again", []*ftrace.Fprobe{p1, p2}, 2); err != nil {
		return err
	}
	return nil
}

// headerS390x: one fprobe (entry and exit handler) on the target, once with
// the v17 draft's header and once with the merged one. On s390x struct
// fprobe sits at 0x8ff..... (top nibble 0): the v17 header, which assumed
// the top nibble 0xf everywhere, cannot encode it, so write_fprobe_header
// WARNs, the probe is not recorded and its exit handler never runs. The
// merged header's pattern is 0 on s390x and works. On x86-64 both work.
// The --header choice does not apply: both encodings run.
func headerS390x(r *runCtx) error {
	for _, hdr := range []ftrace.HeaderEncoding{ftrace.HeaderV17, ftrace.HeaderMerged} {
		e, err := r.env(hdr)
		if err != nil {
			return err
		}
		e.label = hdr.String()
		rand1 := e.rand1()
		var entries, exits int64
		var retval uint64
		fp := &ftrace.Fprobe{Name: "fp",
			EntryHandler: func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 0 },
			ExitHandler: func(_ *ftrace.Fprobe, _, _ uint64, fregs *regs.Frame, _ uint64) {
				exits++
				retval, _ = fregs.ReturnValue()
			}}
		if err := e.fp.Register(fp, target); !r.expect(err == nil, "%s: register_fprobe: %v", hdr, err) {
			return nil
		}
		if _, err := e.call(target, rand1); err != nil {
			return err
		}
		p := hdr.String() + "_"
		var warned int64
		for _, w := range e.g.Warnings() {
			if w.Text == ftrace.WarnFprobeHeader {
				warned += int64(w.Count)
			}
		}
		// The one-word header keeps bits 0-59 and decodes the top nibble as
		// the pattern: a pointer is encodable iff its top nibble is it.
		r.setU(p+"fprobe_addr_top_nibble", fp.Addr()>>60)
		r.setU(p+"header_pattern_nibble", ftrace.HeaderCodec{Enc: hdr, Arch: e.a}.Pattern()>>60)
		r.set(p+"entry_handler_calls", entries)
		r.set(p+"exit_handler_calls", exits)
		r.set(p+"header_warnings", warned)
		if exits > 0 {
			r.setU(p+"exit_retval", retval)
		}
		r.expectEq(p+"entry_handler_calls", 1)
		if hdr == ftrace.HeaderV17 && !ftrace.MustOps(e.a).FprobeV17Encodable {
			r.expectEq(p+"exit_handler_calls", 0)
			r.expectEq(p+"header_warnings", 1)
			r.expect(strings.HasPrefix(fmt.Sprintf("%x", fp.Addr()), "8ff"), "struct fprobe at %#x, want the s390x heap (0x8ff.....)", fp.Addr())
			continue
		}
		r.expectEq(p+"exit_handler_calls", 1)
		r.expectEq(p+"header_warnings", 0)
		r.expectEq(p+"exit_retval", int64(rand1/divFactor))
	}
	return nil
}
