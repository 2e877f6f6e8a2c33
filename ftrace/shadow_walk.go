package ftrace

import (
	"errors"
	"fmt"

	"trampemu/regs"
)

// ErrCorruptStack is wrapped by every error about a shadow stack whose meta
// words do not describe a valid frame chain.
var ErrCorruptStack = errors.New("corrupt shadow stack")

// ErrBadFramePointer is wrapped by the error of a return whose frame
// pointer is not the one the graph entry recorded (HAVE_FUNCTION_GRAPH_FP_TEST).
var ErrBadFramePointer = errors.New("frame pointer differs from the graph entry's")

// ShadowFrame is one struct ftrace_ret_stack on a shadow stack with its
// meta word and data records, as found by WalkShadowStack.
type ShadowFrame struct {
	Base            int    // word index of ret (the frame base)
	Ret, Func, Retp uint64 // struct ftrace_ret_stack
	// FP is the fp word of HAVE_FUNCTION_GRAPH_FP_TEST (arm64), 0 without.
	FP   uint64
	Meta Meta     // the word at Base+FrameOffset (BITMAP, or RESERVED while being built)
	Data []Record // DATA records, topmost (last reserved) first
	Top  int      // word index of the frame's topmost word
}

// Words is the number of shadow-stack words the frame occupies.
func (f ShadowFrame) Words() int { return f.Top - f.Base + 1 }

// Record is one fgraph_reserve_data reservation inside a frame.
type Record struct {
	Index int    // owning fgraph_ops index
	Words int    // payload words
	First int    // word index of the first payload word
	Addr  uint64 // guest address of the payload
}

// ShadowStack is a task's shadow stack in guest memory: where it is and how
// many words are in use.
type ShadowStack struct {
	Mem  regs.Memory
	Addr uint64 // guest address of word 0
	Curr int    // curr_ret_stack: first free word
	// FPTest: the frames have the fp word of HAVE_FUNCTION_GRAPH_FP_TEST
	// ({ret, func, fp, retp}: FGRAPH_FRAME_OFFSET 4, arm64).
	FPTest bool
	// Reads, when set, counts the words read (GraphStats.ReadWords).
	Reads *uint64
}

func (s ShadowStack) word(i int) uint64 {
	if s.Reads != nil {
		*s.Reads++
	}
	return s.Mem.ReadWord(s.Addr + 8*uint64(i))
}

// off is FGRAPH_FRAME_OFFSET for the stack's frames.
func (s ShadowStack) off() int {
	if s.FPTest {
		return FrameOffset + 1
	}
	return FrameOffset
}

// max is SHADOW_STACK_MAX_OFFSET for the stack's frames.
func (s ShadowStack) max() int { return ShadowStackWords - (s.off() + 1 + ArraySize) }

// topFrame finds the frame whose top word is pos-1 the way get_ret_stack
// does (kernel/trace/fgraph.c, v6.11+): offset = bits 0-9 of word[pos-1],
// corrupt when offset <= 0 or offset > pos-1. It also requires room for the
// frame's meta word below the top (offset >= FGRAPH_FRAME_OFFSET), so the
// caller may read words Base..Base+3 without leaving [0, pos).
func (s ShadowStack) topFrame(pos int) (base int, err error) {
	if pos <= 0 || pos > s.max() {
		return 0, fmt.Errorf("%w: curr_ret_stack %d outside 1..%d", ErrCorruptStack, pos, s.max())
	}
	top := pos - 1
	off := MetaOffset(s.word(top))
	if off <= 0 || off > top {
		return 0, fmt.Errorf("%w: word %d has offset %d (must be 1..%d)", ErrCorruptStack, top, off, top)
	}
	if off < s.off() {
		return 0, fmt.Errorf("%w: word %d has offset %d, below a frame's %d words", ErrCorruptStack, top, off, s.off())
	}
	return top - off, nil
}

// Frame decodes the frame whose top word is pos-1, checking everything: the
// word at Base+3 is a frame meta word (BITMAP, or RESERVED when building is
// true) with offset 3, and the words above it are a chain of DATA records
// whose offsets all lead to Base.
func (s ShadowStack) Frame(pos int, building bool) (ShadowFrame, error) {
	base, err := s.topFrame(pos)
	if err != nil {
		return ShadowFrame{}, err
	}
	fo := s.off()
	f := ShadowFrame{Base: base, Top: pos - 1}
	f.Ret, f.Func, f.Retp = s.word(base), s.word(base+1), s.word(base+fo-1)
	if s.FPTest {
		f.FP = s.word(base + 2)
	}
	f.Meta = DecodeMeta(s.word(base + fo))
	switch {
	case f.Meta.Offset != fo:
		return f, fmt.Errorf("%w: frame at %d: meta word has offset %d, want %d", ErrCorruptStack, base, f.Meta.Offset, fo)
	case f.Meta.Type == MetaBitmap, f.Meta.Type == MetaReserved && building:
	default:
		return f, fmt.Errorf("%w: frame at %d: meta word is %s, want BITMAP", ErrCorruptStack, base, f.Meta.Type)
	}
	for j := pos - 1; j > base+fo; {
		m := DecodeMeta(s.word(j))
		if m.Type != MetaData {
			return f, fmt.Errorf("%w: frame at %d: word %d is %s inside the frame, want DATA", ErrCorruptStack, base, j, m.Type)
		}
		if m.Offset != j-base {
			return f, fmt.Errorf("%w: frame at %d: DATA word %d has offset %d, want %d", ErrCorruptStack, base, j, m.Offset, j-base)
		}
		first := j - m.Words
		if first <= base+fo {
			return f, fmt.Errorf("%w: frame at %d: DATA word %d: %d words reach below the frame's meta word", ErrCorruptStack, base, j, m.Words)
		}
		f.Data = append(f.Data, Record{Index: m.Index, Words: m.Words, First: first, Addr: s.Addr + 8*uint64(first)})
		j = first - 1
	}
	return f, nil
}

// Walk lists the frames from the top (newest) down. It never reads outside
// words [0, Curr) and never panics; a stack that is not a valid frame chain
// returns the frames decoded so far and an error wrapping ErrCorruptStack.
// building allows a RESERVED top frame (a frame whose entry callbacks are
// still running).
func (s ShadowStack) Walk(building bool) ([]ShadowFrame, error) {
	if s.Curr < 0 || s.Curr > s.max() {
		return nil, fmt.Errorf("%w: curr_ret_stack %d outside 0..%d", ErrCorruptStack, s.Curr, s.max())
	}
	var out []ShadowFrame
	for pos := s.Curr; pos > 0; {
		f, err := s.Frame(pos, building && len(out) == 0)
		if err != nil {
			return out, err
		}
		out = append(out, f)
		pos = f.Base
	}
	return out, nil
}

// WalkShadowStack walks the shadow stack at addr with curr_ret_stack curr
// (see ShadowStack.Walk), frames without the fp word (x86-64, s390x).
func WalkShadowStack(mem regs.Memory, addr uint64, curr int, building bool) ([]ShadowFrame, error) {
	return ShadowStack{Mem: mem, Addr: addr, Curr: curr}.Walk(building)
}
