package scenarios

import (
	"fmt"
	"io"
	"strings"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
)

// ChainLevels is the number of nested traced calls one call of the chain
// workload makes: chain(130) down to chain(0).
const ChainLevels = harness.ChainDepth + 1

// Prediction is what the shadow-stack constants (kernel/trace/fgraph.c,
// kernel/trace/fprobe.c, v6.14+) say about one configuration of fprobes on
// a function, each with an entry and an exit handler.
type Prediction struct {
	// WordsPerCall is the shadow-stack words of one traced call: the frame
	// {ret, func, retp} and its meta word (4), plus, when fprobe reserves,
	// the DATA meta word and per probe its header and entry data. 0 when
	// the call is not traced through fgraph.
	WordsPerCall int `json:"words_per_call"`
	// MaxDepth is how many nested levels of the chain workload are traced:
	// frame k (from 0) fits while (k+1) * WordsPerCall < 492
	// (SHADOW_STACK_MAX_OFFSET), capped at ChainLevels.
	MaxDepth int `json:"max_depth"`
	// FirstOverrun is the nesting level (from 1) whose push is refused with
	// trace_overrun++ (curr + 3 + 1 >= 492), 0 when none is.
	FirstOverrun int `json:"first_overrun_level"`
	// FirstNmissed is the level whose push fits but whose fgraph_reserve_data
	// fails (every enabled probe counts nmissed, trace_overrun does not
	// move), 0 when none is.
	FirstNmissed int `json:"first_nmissed_level"`
	// Why says how the numbers follow from the constants.
	Why string `json:"why"`
}

// Predict computes the Prediction for probes fprobes (0: one plain fgraph
// user that reserves nothing) with dataBytes of entry data each, with
// header encoding hdr on arch a. struct fprobe lives in a's heap region,
// whose top bits decide whether a one-word header can encode it.
func Predict(a *regs.Arch, hdr ftrace.HeaderEncoding, probes, dataBytes int) Prediction {
	frame := ftrace.FrameOffsetOf(a) + 1 // {ret, func, [fp,] retp} + meta word
	limit := ftrace.ShadowStackMaxOffsetOf(a)
	p := Prediction{}
	w := frame
	if probes > 0 {
		codec := ftrace.HeaderCodec{Enc: hdr, Arch: a}
		hw := codec.Words()
		dw := (dataBytes + 7) / 8
		reserved := probes * (hw + dw)
		switch {
		case dw > ftrace.MaxFprobeDataWords:
			p.Why = fmt.Sprintf("entry data %d words > %d: register_fprobe is -E2BIG", dw, ftrace.MaxFprobeDataWords)
			return p
		case reserved > ftrace.MaxDataWords:
			p.Why = fmt.Sprintf("%d probes x (%d header + %d data) = %d words > %d (FGRAPH_MAX_DATA_SIZE): every reservation fails, nmissed at every call",
				probes, hw, dw, reserved, ftrace.MaxDataWords)
			p.FirstNmissed = 1
			return p
		case !codec.Encodable(a.Memory.Heap.Base, dw):
			p.Why = fmt.Sprintf("struct fprobe at %#x is not encodable in the %s header on %s: WARN, no record, not traced", a.Memory.Heap.Base, hdr, a.Name)
			return p
		}
		w += 1 + reserved
		p.Why = fmt.Sprintf("%d frame words + 1 DATA word + %d x (%d header + %d data) = %d", frame, probes, hw, dw, w)
	} else {
		p.Why = fmt.Sprintf("%d frame words (a plain fgraph user reserves nothing)", frame)
	}
	p.WordsPerCall = w
	d := (limit - 1) / w
	if d >= ChainLevels {
		p.MaxDepth = ChainLevels
		return p
	}
	p.MaxDepth = d
	// Level d+1 starts at curr = d*w: the push needs curr + 4 < 492; the
	// reservation needs (d+1)*w < 492, which failed.
	if d*w+frame >= limit {
		p.FirstOverrun = d + 1
	} else {
		p.FirstNmissed = d + 1
	}
	p.Why += fmt.Sprintf("; %d frames fit below %d words", d, limit)
	return p
}

// MeasureConfig selects the configurations Measure runs.
type MeasureConfig struct {
	Arches  []*regs.Arch
	Headers []ftrace.HeaderEncoding
	// Probes are the numbers of fprobes (entry and exit handler each) on
	// the function; 0 adds one baseline row per arch with a plain fgraph
	// user instead.
	Probes []int
	// DataBytes are the entry_data_size values per probe.
	DataBytes []int
}

// DefaultMeasureConfig is both arches, every header encoding, 0..3
// probes and 0, 8, 16, 64 and 120 bytes of entry data.
func DefaultMeasureConfig() MeasureConfig {
	return MeasureConfig{Arches: regs.Arches, Headers: ftrace.HeaderEncodings,
		Probes: []int{0, 1, 2, 3}, DataBytes: []int{0, 8, 16, 64, 120}}
}

// MeasureRow is one measured configuration next to its prediction.
type MeasureRow struct {
	Arch      string `json:"arch"`
	Header    string `json:"header"` // "-" for the plain fgraph baseline
	Probes    int    `json:"probes"`
	DataBytes int    `json:"data_bytes"`
	// WordsPerCall: shadow-stack words of one traced call of `add` (0: not
	// traced through fgraph).
	WordsPerCall int `json:"words_per_call"`
	// MaxDepth: traced levels of one call of chain (131 levels).
	MaxDepth     int        `json:"max_depth"`
	FirstOverrun int        `json:"first_overrun_level"`
	FirstNmissed int        `json:"first_nmissed_level"`
	Want         Prediction `json:"want"`
	// OK: the measurement equals the prediction.
	OK bool `json:"ok"`
}

// Measure runs every configuration through the real trampolines (the
// arch's current pairing): one call of `add` for the words per traced call
// and one call of `chain` for the traced depth, the level of the first
// trace_overrun and of the first nmissed. A call that returns a wrong
// result is an error.
func Measure(cfg MeasureConfig) ([]MeasureRow, error) {
	var rows []MeasureRow
	for _, a := range cfg.Arches {
		rs, err := measureArch(a, cfg)
		rows = append(rows, rs...)
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

func measureArch(a *regs.Arch, cfg MeasureConfig) ([]MeasureRow, error) {
	out := &Outcome{Counters: map[string]int64{}}
	r := &runCtx{name: "measure", out: out, a: a}
	defer r.close()
	e, err := r.env(ftrace.HeaderMerged)
	if err != nil {
		return nil, err
	}
	var rows []MeasureRow
	one := func(hdr ftrace.HeaderEncoding, probes, data int) error {
		row := MeasureRow{Arch: a.Name, Header: hdr.String(), Probes: probes, DataBytes: data}
		var fps []*ftrace.Fprobe
		var u *ftrace.GraphOps
		if probes == 0 {
			row.Header = "-"
			u = &ftrace.GraphOps{Name: "graph", EntryFunc: func(*ftrace.Graph, *ftrace.GraphEnt, *ftrace.GraphOps, *regs.Frame) bool { return true }}
			if err := e.g.Register(u); err != nil {
				return err
			}
		} else {
			if err := e.useHeader(hdr); err != nil {
				return err
			}
			if fps, err = e.addProbes(probes, data, "add", "chain"); err != nil {
				return err
			}
		}
		before := e.g.Stats()
		if _, err := e.call("add"); err != nil {
			return err
		}
		if st := e.g.Stats(); st.Traced > before.Traced {
			row.WordsPerCall = st.LastFrameWords
		}
		m, err := e.measureChain(fps)
		if err != nil {
			return err
		}
		row.MaxDepth, row.FirstOverrun, row.FirstNmissed = m.traced, m.firstOverrun, m.firstNmissed
		row.Want = Predict(a, hdr, probes, data)
		row.OK = row.WordsPerCall == row.Want.WordsPerCall && row.MaxDepth == row.Want.MaxDepth &&
			row.FirstOverrun == row.Want.FirstOverrun && row.FirstNmissed == row.Want.FirstNmissed
		rows = append(rows, row)
		if u != nil {
			return e.g.Unregister(u)
		}
		for _, fp := range fps {
			if err := e.fp.Unregister(fp); err != nil {
				return err
			}
		}
		return nil
	}
	for _, probes := range cfg.Probes {
		if probes == 0 {
			if err := one(ftrace.HeaderMerged, 0, 0); err != nil {
				return rows, fmt.Errorf("measure %s baseline: %w", a.Name, err)
			}
			continue
		}
		for _, hdr := range cfg.Headers {
			for _, data := range cfg.DataBytes {
				if err := one(hdr, probes, data); err != nil {
					return rows, fmt.Errorf("measure %s %s header, %d probes, %d bytes: %w", a.Name, hdr, probes, data, err)
				}
			}
		}
	}
	if len(out.Findings) > 0 {
		return rows, fmt.Errorf("measure %s: %s", a.Name, strings.Join(out.Findings, "; "))
	}
	return rows, nil
}

// WriteMeasureTable writes rows as a Markdown table; a measurement that
// differs from the prediction shows both.
func WriteMeasureTable(w io.Writer, rows []MeasureRow) error {
	var b strings.Builder
	b.WriteString("| arch | header | probes | data B | words/call | max depth | first overrun | first nmissed | ok |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	cell := func(got, want int) string {
		s := "-"
		if got != 0 {
			s = fmt.Sprint(got)
		}
		if got != want {
			s += fmt.Sprintf(" (want %d)", want)
		}
		return s
	}
	for _, r := range rows {
		ok := "yes"
		if !r.OK {
			ok = "NO"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", r.Arch, r.Header, r.Probes, r.DataBytes,
			cell(r.WordsPerCall, r.Want.WordsPerCall), cell(r.MaxDepth, r.Want.MaxDepth),
			cell(r.FirstOverrun, r.Want.FirstOverrun), cell(r.FirstNmissed, r.Want.FirstNmissed), ok)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// useHeader gives the machine a new fprobe manager with header hdr (no
// probe may be registered on the old one).
func (e *env) useHeader(hdr ftrace.HeaderEncoding) error {
	if e.hdr == hdr && e.fp != nil {
		return nil
	}
	fp, err := ftrace.NewFprobes(ftrace.FprobesConfig{Graph: e.g, Symbols: e.syms, Header: hdr, Ftrace: e.k.Ftrace})
	if err != nil {
		return setupError{err}
	}
	e.fp, e.api, e.hdr = fp, fp, hdr
	return nil
}

// addProbes registers n fprobes with do-nothing entry and exit handlers
// and dataBytes of entry data on the named functions.
func (e *env) addProbes(n, dataBytes int, funcs ...string) ([]*ftrace.Fprobe, error) {
	var fps []*ftrace.Fprobe
	for i := 0; i < n; i++ {
		fp := &ftrace.Fprobe{Name: fmt.Sprintf("p%d", i+1), EntryDataSize: dataBytes,
			EntryHandler: func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) int { return 0 },
			ExitHandler:  func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) {}}
		if err := e.api.RegisterSyms(fp, funcs); err != nil {
			return fps, err
		}
		fps = append(fps, fp)
	}
	return fps, nil
}

// chainResult is what one call of chain showed.
type chainResult struct {
	traced       int // levels traced (they are the outermost ones)
	firstOverrun int // level (from 1) where trace_overrun first grew, 0 = never
	firstNmissed int // level where the probes' nmissed first grew, 0 = never
	overrun      int // trace_overrun increments during the call
}

// chainObserver is a plain ftrace_ops on chain registered after
// ftrace_graph_func, so at each level it runs after the graph entry of
// that level and sees whether it grew trace_overrun or nmissed.
type chainObserver struct {
	level           int
	overrun, missed uint64
	res             chainResult
	fps             []*ftrace.Fprobe
}

// measureChain calls chain once and reports the levels at which tracing
// stopped. fps are the probes whose nmissed counts.
func (e *env) measureChain(fps []*ftrace.Fprobe) (chainResult, error) {
	t := e.g.Current()
	obs := &chainObserver{overrun: t.Overrun, missed: sumMissed(fps...), fps: fps}
	chainIP := e.site("chain")
	ops := &ftrace.Ops{Name: "chain-observer", Filter: func(ip uint64) bool { return ip == chainIP },
		Func: func(uint64, uint64, *ftrace.Ops, *regs.Frame) {
			obs.level++
			if o := e.g.Current().Overrun; o > obs.overrun {
				if obs.res.firstOverrun == 0 {
					obs.res.firstOverrun = obs.level
				}
				obs.res.overrun += int(o - obs.overrun)
				obs.overrun = o
			}
			if m := sumMissed(obs.fps...); m > obs.missed {
				if obs.res.firstNmissed == 0 {
					obs.res.firstNmissed = obs.level
				}
				obs.missed = m
			}
		}}
	if err := e.k.Ftrace.Register(ops); err != nil {
		return chainResult{}, setupError{err}
	}
	defer e.k.Ftrace.Unregister(ops)
	before, hooks := e.g.Stats(), e.k.Rethook.Stats().Hooks
	if _, err := e.call("chain", harness.ChainDepth); err != nil {
		return obs.res, err
	}
	obs.res.traced = int(e.g.Stats().Traced - before.Traced)
	if e.rfp != nil {
		obs.res.traced = int(e.k.Rethook.Stats().Hooks - hooks) // returns hooked by rethook
	}
	if obs.level != ChainLevels {
		return obs.res, fmt.Errorf("chain made %d traced calls, want %d", obs.level, ChainLevels)
	}
	return obs.res, nil
}
