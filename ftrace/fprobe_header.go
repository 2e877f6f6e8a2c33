package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// HeaderEncoding selects how fprobe records which struct fprobe owns the
// data words that follow a header on the shadow stack.
type HeaderEncoding int

// The fprobe header encodings (kernel/trace/fprobe.c, v6.14+, and the
// drafts before it).
const (
	// HeaderMerged is the merged v6.14 one-word header: size_words in bits
	// 60-63, pointer bits 0-59, decoded as (val & GENMASK(59, 0)) | PATTERN
	// with PATTERN = 0xf << 60 on x86-64 and 0 on s390x
	// (kernel/trace/fprobe.c, v6.14+; arch/*/include/asm/fprobe.h).
	HeaderMerged HeaderEncoding = iota
	// HeaderV17 is the v17 draft: the one-word header with PATTERN = 0xf << 60
	// on every architecture, which cannot encode s390x heap pointers (the
	// WARN reported on s390 in October 2024).
	HeaderV17
	// HeaderTwoWord is the fallback of 32-bit and loongarch: {fp, size_words}
	// (kernel/trace/fprobe.c, v6.14+).
	HeaderTwoWord
)

// String returns "merged", "v17" or "two-word" (ParseHeaderEncoding's input).
func (e HeaderEncoding) String() string {
	switch e {
	case HeaderMerged:
		return "merged"
	case HeaderV17:
		return "v17"
	case HeaderTwoWord:
		return "two-word"
	}
	return fmt.Sprintf("header%d", int(e))
}

// HeaderEncodings lists every encoding.
var HeaderEncodings = []HeaderEncoding{HeaderMerged, HeaderV17, HeaderTwoWord}

// ParseHeaderEncoding accepts the names String returns.
func ParseHeaderEncoding(s string) (HeaderEncoding, error) {
	for _, e := range HeaderEncodings {
		if e.String() == s {
			return e, nil
		}
	}
	return 0, fmt.Errorf("unknown fprobe header encoding %q: valid are merged, v17, two-word", s)
}

// One-word header fields (kernel/trace/fprobe.c, v6.14+:
// FPROBE_HEADER_MSB_SIZE_SHIFT = BITS_PER_LONG - FPROBE_DATA_SIZE_BITS,
// FPROBE_HEADER_MSB_MASK = GENMASK(59, 0), MAX_FPROBE_DATA_SIZE_WORD = 15).
const (
	headerSizeShift = 60
	headerPtrMask   = 1<<headerSizeShift - 1
	// MaxFprobeDataWords is MAX_FPROBE_DATA_SIZE_WORD: entry data of one
	// fprobe is at most 15 words (kernel/trace/fprobe.c, v6.14+).
	MaxFprobeDataWords = 15
)

// HeaderCodec writes and reads fprobe headers for one encoding on one
// architecture.
type HeaderCodec struct {
	Enc  HeaderEncoding
	Arch *regs.Arch
}

// Words is FPROBE_HEADER_SIZE_IN_LONG: 1, or 2 for HeaderTwoWord.
func (c HeaderCodec) Words() int {
	if c.Enc == HeaderTwoWord {
		return 2
	}
	return 1
}

// Pattern is FPROBE_HEADER_MSB_PATTERN, the top nibble every encodable
// pointer has: 0xf << 60 on x86-64 (kernel addresses are in the top half)
// and 0 on s390x (arch/s390: kernel addresses have zero top bits), 0xf << 60
// everywhere in the v17 draft. The two-word header has no pattern.
func (c HeaderCodec) Pattern() uint64 {
	switch {
	case c.Enc == HeaderTwoWord:
		return 0
	case c.Enc == HeaderMerged && c.Arch != nil:
		if o, err := OpsOf(c.Arch); err == nil {
			return o.FprobeMergedPattern
		}
	}
	return 0xf << headerSizeShift
}

// Encodable is arch_fprobe_header_encodable plus the size test of
// write_fprobe_header (kernel/trace/fprobe.c, v6.14+): size_words <= 15 and,
// for one-word headers, the pointer's top nibble equals the pattern.
func (c HeaderCodec) Encodable(fp uint64, sizeWords int) bool {
	if sizeWords < 0 || sizeWords > MaxFprobeDataWords {
		return false
	}
	return c.Enc == HeaderTwoWord || fp&^headerPtrMask == c.Pattern()
}

// Encode returns the header words for struct fprobe at guest address fp with
// sizeWords words of entry data, or false when not encodable (the kernel
// WARNs once and does not record the probe).
func (c HeaderCodec) Encode(fp uint64, sizeWords int) ([]uint64, bool) {
	if !c.Encodable(fp, sizeWords) {
		return nil, false
	}
	if c.Enc == HeaderTwoWord {
		return []uint64{fp, uint64(sizeWords)}, true
	}
	return []uint64{fp&headerPtrMask | uint64(sizeWords)<<headerSizeShift}, true
}

// Decode is read_fprobe_header: w holds at least Words() words. A one-word
// header decodes fp = (val & GENMASK(59, 0)) | PATTERN, size = val >> 60;
// the two-word header is {fp, size_words}.
func (c HeaderCodec) Decode(w []uint64) (fp uint64, sizeWords int) {
	if c.Enc == HeaderTwoWord {
		return w[0], int(w[1])
	}
	return w[0]&headerPtrMask | c.Pattern(), int(w[0] >> headerSizeShift)
}
