package trace

import (
	"fmt"
	"io"
	"strings"

	"trampemu/ftrace"
)

// GraphLog collects what the function-graph users saw (ftrace.Graph.Watch)
// with a timestamp per event, and prints it in the format of the kernel's
// function_graph tracer (kernel/trace/trace_functions_graph.c, v6.5+ with
// funcgraph-retval: print_graph_headers, print_graph_cpu,
// print_graph_duration, print_graph_entry_leaf/nested, print_graph_return,
// print_graph_retval), one trace per graph user.
type GraphLog struct {
	// Clock returns the timestamp of an event (e.g. emulated instructions
	// executed so far); Unit names it for the header ("emulated
	// instructions").
	Clock func() uint64
	Unit  string
	// Name gives a function's symbol ("%ps").
	Name   func(addr uint64) string
	Events []GraphRecord
}

// GraphRecord is one event with its timestamp.
type GraphRecord struct {
	ftrace.GraphEvent
	Time uint64
}

// Add records ev with l.Clock's time; pass it to ftrace.Graph.Watch.
func (l *GraphLog) Add(ev ftrace.GraphEvent) {
	var t uint64
	if l.Clock != nil {
		t = l.Clock()
	}
	l.AddAt(ev, t)
}

// AddAt records ev at time t (several machines, each with its clock).
func (l *GraphLog) AddAt(ev ftrace.GraphEvent, t uint64) {
	l.Events = append(l.Events, GraphRecord{GraphEvent: ev, Time: t})
}

// GraphIndentCap is the deepest level indented further (TRACE_GRAPH_INDENT,
// 2 spaces, per level, as the kernel does); deeper lines keep that indent
// and name their depth in a comment, so a 130-deep chain stays within a
// screen's width.
const GraphIndentCap = 24

const graphIndent = 2 // TRACE_GRAPH_INDENT

// Render prints the log: per user (in order of first appearance) the
// kernel's two header lines after a note saying what the duration column
// counts, then one line per event: CPU column (always CPU 0), the duration
// column (on a leaf and a closing brace), and the call, `func() {`, `}`, or
// `func();` for a leaf (an entry whose next event of the user is its own
// return); with the return value as funcgraph-retval shows it when the
// return callbacks had one.
func (l *GraphLog) Render(w io.Writer) error {
	var users []string
	byUser := map[string][]GraphRecord{}
	for _, e := range l.Events {
		if _, ok := byUser[e.User]; !ok {
			users = append(users, e.User)
		}
		byUser[e.User] = append(byUser[e.User], e)
	}
	unit := l.Unit
	if unit == "" {
		unit = "timestamp units"
	}
	var b strings.Builder
	b.WriteString("# tracer: function_graph\n#\n")
	fmt.Fprintf(&b, "# DURATION: %s\n# (trampemu; the kernel prints microseconds); CPU 0 is the one emulated CPU\n", unit)
	if len(users) == 0 {
		b.WriteString("#\n# (no graph user saw a traced call)\n")
	}
	for _, u := range users {
		fmt.Fprintf(&b, "#\n# graph user: %s\n#\n", u)
		// print_graph_headers with the CPU and DURATION columns.
		b.WriteString("# CPU  DURATION                  FUNCTION CALLS\n")
		b.WriteString("# |     |   |                     |   |   |   |\n")
		evs := byUser[u]
		var open []GraphRecord // entries waiting for their return
		for i := 0; i < len(evs); i++ {
			e := evs[i]
			if !e.Return {
				if i+1 < len(evs) && evs[i+1].Return && evs[i+1].Func == e.Func && evs[i+1].Depth == e.Depth {
					r := evs[i+1]
					l.line(&b, e.Depth, l.duration(r.Time-e.Time), l.name(e.Func)+"();"+leafRetval(r))
					i++
					continue
				}
				l.line(&b, e.Depth, fillDuration, l.name(e.Func)+"() {")
				open = append(open, e)
				continue
			}
			matched := len(open) > 0 && open[len(open)-1].Func == e.Func
			dur := fillDuration
			text := "}"
			if matched {
				dur = l.duration(e.Time - open[len(open)-1].Time)
				open = open[:len(open)-1]
				if e.HasRetval {
					text += fmt.Sprintf(" /* %s = %s */", l.name(e.Func), retvalText(e.Retval))
				}
			} else {
				// The entry was not seen: name the function, as the kernel
				// does for a return without its entry.
				text += " /* " + l.name(e.Func)
				if e.HasRetval {
					text += " = " + retvalText(e.Retval)
				}
				text += " */"
			}
			l.line(&b, e.Depth, dur, text)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fillDuration is print_graph_duration's FLAGS_FILL_FULL: no duration.
const fillDuration = "              |  "

// duration is the duration column: the overhead mark (none: the kernel's
// marks are thresholds in nanoseconds), a space, the value padded like
// trace_print_graph_duration pads "N.NNN us " to 12, and "|  ".
func (l *GraphLog) duration(d uint64) string {
	v := fmt.Sprintf("%d", d)
	if strings.Contains(l.Unit, "instruction") {
		v += " insns"
	}
	return fmt.Sprintf("  %-12s|  ", v)
}

func (l *GraphLog) line(b *strings.Builder, depth int, dur, text string) {
	b.WriteString(" 0) ") // print_graph_cpu: " %*d) " with one digit
	b.WriteString(dur)
	d := max(depth, 0)
	b.WriteString(strings.Repeat(" ", min(d, GraphIndentCap)*graphIndent))
	b.WriteString(text)
	if d > GraphIndentCap {
		fmt.Fprintf(b, " /* depth %d */", d)
	}
	b.WriteString("\n")
}

func (l *GraphLog) name(addr uint64) string {
	if l.Name != nil {
		if s := l.Name(addr); s != "" {
			return s
		}
	}
	return fmt.Sprintf("0x%x", addr)
}

func leafRetval(r GraphRecord) string {
	if !r.HasRetval {
		return ""
	}
	return " /* = " + retvalText(r.Retval) + " */"
}

// retvalText is print_graph_retval's value (v6.5): an error code (a 32-bit
// negative value sign-extended, then IS_ERR_VALUE: -4095..-1) in decimal,
// anything else in hex.
func retvalText(v uint64) string {
	code := v
	if v&(1<<31) != 0 && v>>32 == 0 {
		code = uint64(int64(int32(uint32(v))))
	}
	if v != 0 && code >= ^uint64(4095-1) {
		return fmt.Sprintf("%d", int64(code))
	}
	return fmt.Sprintf("0x%x", v)
}
