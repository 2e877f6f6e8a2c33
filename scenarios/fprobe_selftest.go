package scenarios

import (
	"errors"

	"trampemu/ftrace"
	"trampemu/regs"
)

// Target names of lib/test_fprobe.c.
const (
	target  = "fprobe_selftest_target"
	target2 = "fprobe_selftest_target2"
)

// selftest holds lib/test_fprobe.c's globals and its handlers
// (fp_entry_handler, fp_exit_handler and the multi handlers, v6.14+). The
// handlers' KUNIT_EXPECTs become findings.
type selftest struct {
	r *runCtx
	e *env

	rand1               uint64
	targetIP, target2IP uint64
	entryVal, exitVal   uint64
	entryReturn         int

	entryCalls, exitCalls int64
	arg0Bad               int64 // entry handler calls whose ftrace_regs_get_argument(0) != rand1
	retIPBad              int64 // handler calls whose ret_ip was not the caller's return address

	// test_fprobe_multi
	entryOnlyVal, entryOnlyCount uint64
	entryCount, exitCount        uint64
	multiExitVal                 uint64
}

func newSelftest(r *runCtx, e *env) *selftest {
	return &selftest{r: r, e: e, rand1: e.rand1(), targetIP: e.site(target), target2IP: e.site(target2)}
}

// checkCommon is what every handler checks besides the kernel's asserts: the
// argument the trampoline saved and the return address it reports.
func (t *selftest) checkCommon(retIP uint64, fregs *regs.Frame, entry bool) {
	if retIP != t.e.ret {
		t.retIPBad++
	}
	if entry {
		if v, ok := fregs.Argument(0); !ok || v != t.rand1 {
			t.arg0Bad++
		}
	}
}

// entry is fp_entry_handler.
func (t *selftest) entry(fp *ftrace.Fprobe, ip, retIP uint64, fregs *regs.Frame, data uint64) int {
	t.entryCalls++
	t.checkCommon(retIP, fregs, true)
	// This can be called on the fprobe_selftest_target and the fprobe_selftest_target2.
	if ip != t.targetIP {
		t.r.expect(ip == t.target2IP, "fp_entry_handler: ip %#x is neither target (%#x) nor target2 (%#x)", ip, t.targetIP, t.target2IP)
	}
	t.entryVal = t.rand1 / divFactor
	if fp.EntryDataSize != 0 {
		if t.r.expect(data != 0, "fp_entry_handler: entry_data_size %d but data is NULL", fp.EntryDataSize) {
			t.e.putU32(data, uint32(t.entryVal)) // *(u32 *)data = entry_val
		}
	} else {
		t.r.expect(data == 0, "fp_entry_handler: entry_data_size 0 but data is %#x, want NULL", data)
	}
	return t.entryReturn
}

// exit is fp_exit_handler: it reads the return value through
// ftrace_regs_get_return_value.
func (t *selftest) exit(fp *ftrace.Fprobe, ip, retIP uint64, fregs *regs.Frame, data uint64) {
	t.exitCalls++
	t.checkCommon(retIP, fregs, false)
	ret, ok := fregs.ReturnValue()
	t.r.expect(ok, "fp_exit_handler: ftrace_regs_get_return_value found no return value")
	if ip != t.targetIP {
		t.r.expect(ip == t.target2IP, "fp_exit_handler: ip %#x is neither target nor target2", ip)
		t.r.expect(ret == t.rand1/divFactor+1, "fp_exit_handler: target2 returned %d (via ftrace_regs), want %d", ret, t.rand1/divFactor+1)
		t.r.setU("target2_retval", ret)
	} else {
		t.r.expect(ret == t.rand1/divFactor, "fp_exit_handler: target returned %d (via ftrace_regs), want %d", ret, t.rand1/divFactor)
		t.r.setU("target_retval", ret)
	}
	t.r.expect(t.entryVal == t.rand1/divFactor, "fp_exit_handler: entry_val %d, want %d", t.entryVal, t.rand1/divFactor)
	t.exitVal = t.entryVal + divFactor
	if fp.EntryDataSize != 0 {
		if t.r.expect(data != 0, "fp_exit_handler: entry_data_size %d but data is NULL", fp.EntryDataSize) {
			got := t.e.getU32(data)
			t.r.setU("data_read_by_exit", uint64(got))
			t.r.expect(uint64(got) == t.entryVal, "fp_exit_handler: *(u32 *)data = %d, want entry_val %d", got, t.entryVal)
		}
	} else {
		t.r.expect(data == 0, "fp_exit_handler: entry_data_size 0 but data is %#x, want NULL", data)
	}
}

// callTarget does entry_val = 0; exit_val = 0; target(rand1) and records
// the values under prefix.
func (t *selftest) callTarget(fn, prefix string) error {
	t.entryVal, t.exitVal = 0, 0
	if _, err := t.e.call(fn, t.rand1); err != nil {
		return err
	}
	t.r.setU(prefix+"_entry_val", t.entryVal)
	t.r.setU(prefix+"_exit_val", t.exitVal)
	return nil
}

// counters stores the handler counters.
func (t *selftest) counters() {
	t.r.setU("rand1", t.rand1)
	t.r.set("entry_handler_calls", t.entryCalls)
	t.r.set("exit_handler_calls", t.exitCalls)
	t.r.set("entry_arg0_mismatches", t.arg0Bad)
	t.r.set("ret_ip_mismatches", t.retIPBad)
	t.r.expectEq("entry_arg0_mismatches", 0)
	t.r.expectEq("ret_ip_mismatches", 0)
}

func (t *selftest) probe(withExit bool, dataSize int) *ftrace.Fprobe {
	fp := &ftrace.Fprobe{Name: "fp", EntryHandler: t.entry, EntryDataSize: dataSize}
	if withExit {
		fp.ExitHandler = t.exit
	}
	return fp
}

// fprobeEntry is test_fprobe_entry: entry handler only.
func fprobeEntry(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	t := newSelftest(r, e)
	fp := t.probe(false, 0)
	// Before register, unregister should be failed.
	err = e.api.Unregister(fp)
	r.expect(errors.Is(err, ftrace.EINVAL), "unregister_fprobe before register_fprobe returned %v, want -EINVAL", err)
	if !r.expect(e.api.Register(fp, "fprobe_selftest_target*") == nil, "register_fprobe(\"fprobe_selftest_target*\") failed") {
		return nil
	}
	r.set("probed_functions", int64(len(fp.IPs())))
	r.expectEq("probed_functions", 2)
	r.set("entry_fast_path", b2i(fp.ViaFtrace()))
	for _, c := range []struct{ fn, prefix string }{{target, "target"}, {target2, "target2"}} {
		if err := t.callTarget(c.fn, c.prefix); err != nil {
			return err
		}
		r.expect(r.get(c.prefix+"_entry_val") != 0, "%s: entry_val is 0, want != 0 (entry handler did not run)", c.fn)
		r.expectEq(c.prefix+"_exit_val", 0)
	}
	r.expect(e.api.Unregister(fp) == nil, "unregister_fprobe failed")
	t.counters()
	r.expectEq("entry_handler_calls", 2)
	r.expectEq("exit_handler_calls", 0)
	return nil
}

// fprobeEntryExit is test_fprobe and test_fprobe_syms: entry and exit
// handlers on both targets, by glob or by symbol list.
func fprobeEntryExit(bySyms bool) func(r *runCtx) error {
	return func(r *runCtx) error {
		e, err := r.env(r.hdr)
		if err != nil {
			return err
		}
		t := newSelftest(r, e)
		fp := t.probe(true, 0)
		if bySyms {
			err = e.api.RegisterSyms(fp, []string{target, target2})
		} else {
			err = e.api.Register(fp, "fprobe_selftest_target*")
		}
		if !r.expect(err == nil, "register: %v", err) {
			return nil
		}
		for _, c := range []struct{ fn, prefix string }{{target, "target"}, {target2, "target2"}} {
			if err := t.callTarget(c.fn, c.prefix); err != nil {
				return err
			}
			ev, xv := r.get(c.prefix+"_entry_val"), r.get(c.prefix+"_exit_val")
			r.expect(ev != 0, "%s: entry_val is 0, want != 0", c.fn)
			r.expect(xv == ev+divFactor, "%s: exit_val = %d, want entry_val + %d = %d (exit handler did not run?)", c.fn, xv, divFactor, ev+divFactor)
		}
		r.setU("nmissed", fp.NMissed())
		r.expect(e.api.Unregister(fp) == nil, "unregister_fprobe failed")
		t.counters()
		r.expectEq("entry_handler_calls", 2)
		r.expectEq("exit_handler_calls", 2)
		if t.exitCalls > 0 {
			r.expectEq("target_retval", int64(t.rand1/divFactor))
			r.expectEq("target2_retval", int64(t.rand1/divFactor+1))
		}
		r.expectEq("nmissed", 0)
		return nil
	}
}

// fprobeData is test_fprobe_data: entry_data_size = sizeof(u32); the entry
// handler writes entry_val into the data, the exit handler reads it back.
func fprobeData(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	t := newSelftest(r, e)
	fp := t.probe(true, 4)
	if err := e.api.Register(fp, target); !r.expect(err == nil, "register_fprobe: %v", err) {
		return nil
	}
	r.set("entry_data_size", int64(fp.GuestDataSize()))
	if err := t.callTarget(target, "target"); err != nil {
		return err
	}
	r.expect(e.api.Unregister(fp) == nil, "unregister_fprobe failed")
	t.counters()
	if r.design == ftrace.DesignRethook {
		// v5.18-v6.13 keep entry_data_size as given: the node's data[]
		// is that many bytes (kernel/trace/fprobe.c fprobe_init_rethook).
		r.expectEq("entry_data_size", 4)
	} else {
		r.expectEq("entry_data_size", 8) // ALIGN(4, sizeof(long)), v6.14+
	}
	r.expectEq("entry_handler_calls", 1)
	r.expectEq("exit_handler_calls", 1)
	r.expectEq("data_read_by_exit", int64(t.rand1/divFactor))
	r.expectEq("target_exit_val", int64(t.rand1/divFactor+divFactor))
	return nil
}

// fprobeSkip is test_fprobe_skip: the entry handler returns 1, so the exit
// handler is skipped and nmissed stays 0.
func fprobeSkip(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	t := newSelftest(r, e)
	fp := t.probe(true, 0)
	if err := e.api.Register(fp, target); !r.expect(err == nil, "register_fprobe: %v", err) {
		return nil
	}
	t.entryReturn = 1
	if err := t.callTarget(target, "target"); err != nil {
		return err
	}
	t.entryReturn = 0
	r.setU("nmissed", fp.NMissed())
	r.expect(e.api.Unregister(fp) == nil, "unregister_fprobe failed")
	t.counters()
	r.expect(r.get("target_entry_val") != 0, "entry_val is 0, want != 0")
	r.expectEq("target_exit_val", 0)
	r.expectEq("nmissed", 0)
	r.expectEq("exit_handler_calls", 0)
	return nil
}

// fprobeMulti is test_fprobe_multi: fp1 (entry and exit) and fp2 (entry
// only) on one target, registered in both orders; one call each.
func fprobeMulti(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	t := newSelftest(r, e)
	entryOnly := func(fp *ftrace.Fprobe, ip, retIP uint64, fregs *regs.Frame, data uint64) int {
		t.entryOnlyCount++
		t.entryOnlyVal = t.rand1 / divFactor
		return 0
	}
	entryMulti := func(fp *ftrace.Fprobe, ip, retIP uint64, fregs *regs.Frame, data uint64) int {
		t.entryCount++
		t.entryVal = t.rand1 / divFactor
		return 0
	}
	exitMulti := func(fp *ftrace.Fprobe, ip, retIP uint64, fregs *regs.Frame, data uint64) {
		ret, _ := fregs.ReturnValue()
		t.exitCount++
		t.multiExitVal = ret
	}
	for _, order := range []struct {
		prefix   string
		fp1First bool
	}{{"fp1_first", true}, {"fp2_first", false}} {
		fp1 := &ftrace.Fprobe{Name: "fp1", EntryHandler: entryMulti, ExitHandler: exitMulti}
		fp2 := &ftrace.Fprobe{Name: "fp2", EntryHandler: entryOnly}
		list := []*ftrace.Fprobe{fp1, fp2}
		if !order.fp1First {
			list = []*ftrace.Fprobe{fp2, fp1}
		}
		for _, fp := range list {
			if err := e.api.Register(fp, target); !r.expect(err == nil, "%s: register_fprobe(%s): %v", order.prefix, fp.Name, err) {
				return nil
			}
		}
		t.entryOnlyCount, t.entryCount, t.exitCount = 0, 0, 0
		t.entryOnlyVal, t.entryVal, t.multiExitVal = 0, 0, 0
		if _, err := e.call(target, t.rand1); err != nil {
			return err
		}
		p := order.prefix + "_"
		r.setU(p+"entry_only_count", t.entryOnlyCount)
		r.setU(p+"entry_count", t.entryCount)
		r.setU(p+"exit_count", t.exitCount)
		r.setU(p+"entry_only_val", t.entryOnlyVal)
		r.setU(p+"entry_val", t.entryVal)
		r.setU(p+"exit_val", t.multiExitVal)
		r.setU(p+"nmissed", sumMissed(fp1, fp2))
		want := int64(t.rand1 / divFactor)
		for _, c := range []string{"entry_only_count", "entry_count", "exit_count"} {
			r.expectEq(p+c, 1)
		}
		for _, c := range []string{"entry_only_val", "entry_val", "exit_val"} {
			r.expectEq(p+c, want)
		}
		r.expectEq(p+"nmissed", 0)
		for _, fp := range list {
			r.expect(e.api.Unregister(fp) == nil, "%s: unregister_fprobe(%s) failed", order.prefix, fp.Name)
		}
	}
	r.setU("rand1", t.rand1)
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
