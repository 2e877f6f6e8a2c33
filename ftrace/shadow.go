package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// Shadow stack geometry of the multi-user function-graph tracer, 64-bit
// (kernel/trace/fgraph.c, v6.11+).
const (
	// ShadowStackSize is SHADOW_STACK_SIZE: bytes of one task's shadow stack
	// (kernel/trace/fgraph.c, v6.11+: PAGE_SIZE, 4096).
	ShadowStackSize = 4096
	// ShadowStackWords is SHADOW_STACK_SIZE / sizeof(long) (kernel/trace/fgraph.c, v6.11+).
	ShadowStackWords = ShadowStackSize / 8
	// FrameOffset is FGRAPH_FRAME_OFFSET: words of struct ftrace_ret_stack
	// {ret, func, retp} (kernel/trace/fgraph.c, v6.11+) on x86-64 and s390x,
	// which have no HAVE_FUNCTION_GRAPH_FP_TEST word; FrameOffsetOf gives
	// an arch's (arm64: 4).
	FrameOffset = 3
	// ArraySize is FGRAPH_ARRAY_SIZE: the number of fgraph_ops slots
	// (kernel/trace/fgraph.c, v6.11+).
	ArraySize = 16
	// ShadowStackMaxOffset is SHADOW_STACK_MAX_OFFSET = 512 - (3 + 1 + 16)
	// (kernel/trace/fgraph.c, v6.11+): curr_ret_stack never reaches it
	// (x86-64, s390x; ShadowStackMaxOffsetOf gives an arch's).
	ShadowStackMaxOffset = ShadowStackWords - (FrameOffset + 1 + ArraySize)
	// TaskVarsOffset is the word index of the first per-ops task variable:
	// the top FGRAPH_ARRAY_SIZE words (kernel/trace/fgraph.c, v6.11+:
	// SHADOW_STACK_TASK_VARS).
	TaskVarsOffset = ShadowStackWords - ArraySize
	// MaxDataSize is FGRAPH_MAX_DATA_SIZE in bytes: one fgraph_reserve_data
	// call reserves at most 32 words (kernel/trace/fgraph.c, v6.11+).
	MaxDataSize = 256
	// MaxDataWords is FGRAPH_MAX_DATA_SIZE in words (kernel/trace/fgraph.c, v6.11+).
	MaxDataWords = MaxDataSize / 8
)

// FrameOffsetOf is FGRAPH_FRAME_OFFSET on arch a: sizeof(struct
// ftrace_ret_stack) in words, {ret, func, retp} plus fp between func and
// retp where the arch defines HAVE_FUNCTION_GRAPH_FP_TEST (arm64,
// arch/arm64/include/asm/ftrace.h; include/linux/ftrace.h struct
// ftrace_ret_stack, v6.11+).
func FrameOffsetOf(a *regs.Arch) int {
	if o, err := OpsOf(a); err == nil && o.GraphFPTest {
		return FrameOffset + 1
	}
	return FrameOffset
}

// ShadowStackMaxOffsetOf is SHADOW_STACK_MAX_OFFSET on arch a: 512 -
// (FGRAPH_FRAME_OFFSET + 1 + 16) (kernel/trace/fgraph.c, v6.11+).
func ShadowStackMaxOffsetOf(a *regs.Arch) int {
	return ShadowStackWords - (FrameOffsetOf(a) + 1 + ArraySize)
}

// Meta-word bit layout (kernel/trace/fgraph.c, v6.11+: FGRAPH_FRAME_OFFSET_BITS,
// FGRAPH_TYPE_SHIFT, FGRAPH_INDEX_SHIFT, FGRAPH_DATA_SHIFT, FGRAPH_DATA_INDEX_SHIFT).
const (
	metaOffsetBits   = 10 // bits 0-9: offset to the frame base
	metaOffsetMask   = 1<<metaOffsetBits - 1
	metaTypeShift    = 10 // bits 10-11: type
	metaTypeMask     = 3
	metaBitmapShift  = 12 // BITMAP: bits 12-27
	metaBitmapMask   = 1<<ArraySize - 1
	metaDataShift    = 12 // DATA: bits 12-16 = words-1
	metaDataMask     = 1<<5 - 1
	metaDataIdxShift = 17 // DATA: bits 17-20 = ops index
	metaDataIdxMask  = 1<<4 - 1
)

// MetaType is the type field of a shadow-stack meta word.
type MetaType int

// Meta-word types (kernel/trace/fgraph.c, v6.11+: FGRAPH_TYPE_RESERVED,
// FGRAPH_TYPE_BITMAP, FGRAPH_TYPE_DATA). Type 3 is never written.
const (
	// MetaReserved marks a frame whose entry callbacks are still running.
	MetaReserved MetaType = 0
	// MetaBitmap is a committed frame's meta word, with the users' bitmap.
	MetaBitmap MetaType = 1
	// MetaData is the meta word above one fgraph_reserve_data payload.
	MetaData MetaType = 2
	// MetaInvalid is the unused type value 3 (only found in corrupt stacks).
	MetaInvalid MetaType = 3
)

// String returns the kernel name of the type (RESERVED, BITMAP, DATA).
func (t MetaType) String() string {
	switch t {
	case MetaReserved:
		return "RESERVED"
	case MetaBitmap:
		return "BITMAP"
	case MetaData:
		return "DATA"
	}
	return fmt.Sprintf("type%d", int(t))
}

// Meta is a decoded meta word. Bitmap is meaningful for BITMAP words, Index
// and Words for DATA words.
type Meta struct {
	Type   MetaType
	Offset int    // words from this word down to the frame base
	Bitmap uint16 // BITMAP: fgraph_array indices whose retfunc runs
	Index  int    // DATA: owning ops index
	Words  int    // DATA: payload words (1..32)
}

// DecodeMeta splits a meta word into its fields; every 64-bit value decodes.
func DecodeMeta(w uint64) Meta {
	m := Meta{Type: MetaType(w >> metaTypeShift & metaTypeMask), Offset: int(w & metaOffsetMask)}
	switch m.Type {
	case MetaBitmap:
		m.Bitmap = uint16(w >> metaBitmapShift & metaBitmapMask)
	case MetaData:
		m.Words = int(w>>metaDataShift&metaDataMask) + 1
		m.Index = int(w >> metaDataIdxShift & metaDataIdxMask)
	}
	return m
}

// Encode is the inverse of DecodeMeta for valid fields; out-of-range fields
// are masked to their bit width.
func (m Meta) Encode() uint64 {
	switch m.Type {
	case MetaBitmap:
		return BitmapWord(m.Bitmap)&^metaOffsetMask | uint64(m.Offset)&metaOffsetMask
	case MetaData:
		return DataWord(m.Index, m.Words, m.Offset)
	}
	return uint64(m.Type&metaTypeMask)<<metaTypeShift | uint64(m.Offset)&metaOffsetMask
}

// String renders the fields the type uses.
func (m Meta) String() string {
	switch m.Type {
	case MetaBitmap:
		return fmt.Sprintf("BITMAP off=%d bitmap=%#x", m.Offset, m.Bitmap)
	case MetaData:
		return fmt.Sprintf("DATA off=%d idx=%d words=%d", m.Offset, m.Index, m.Words)
	}
	return fmt.Sprintf("%s off=%d", m.Type, m.Offset)
}

// MetaOffset is __get_offset: bits 0-9 (kernel/trace/fgraph.c, v6.11+).
func MetaOffset(w uint64) int { return int(w & metaOffsetMask) }

// MetaTypeOf is __get_type: bits 10-11 (kernel/trace/fgraph.c, v6.11+).
func MetaTypeOf(w uint64) MetaType { return MetaType(w >> metaTypeShift & metaTypeMask) }

// ReservedWord is the RESERVED meta word ftrace_push_return_trace writes
// above a new frame: type 0, offset FGRAPH_FRAME_OFFSET
// (kernel/trace/fgraph.c, v6.11+).
func ReservedWord() uint64 { return uint64(MetaReserved)<<metaTypeShift | FrameOffset }

// BitmapWord is the BITMAP meta word set_bitmap writes:
// (bitmap << 12) | (1 << 10) | 3 (kernel/trace/fgraph.c, v6.11+).
func BitmapWord(bitmap uint16) uint64 {
	return uint64(bitmap)<<metaBitmapShift | uint64(MetaBitmap)<<metaTypeShift | FrameOffset
}

// reservedWordAt and bitmapWordAt are ReservedWord and BitmapWord for a
// frame of off words (FrameOffsetOf).
func reservedWordAt(off int) uint64 {
	return ReservedWord()&^metaOffsetMask | uint64(off)&metaOffsetMask
}

func bitmapWordAt(bitmap uint16, off int) uint64 {
	return BitmapWord(bitmap)&^metaOffsetMask | uint64(off)&metaOffsetMask
}

// DataWord is make_data_type_val: (idx << 17) | ((words-1) << 12) |
// (2 << 10) | offset (kernel/trace/fgraph.c, v6.11+). words is 1..32, idx
// 0..15, offset 0..1023; other values are masked.
func DataWord(idx, words, offset int) uint64 {
	return uint64(idx&metaDataIdxMask)<<metaDataIdxShift |
		uint64((words-1)&metaDataMask)<<metaDataShift |
		uint64(MetaData)<<metaTypeShift |
		uint64(offset)&metaOffsetMask
}
