package emu

import "encoding/binary"

// The clobber routine: compiled C may leave anything in the volatile
// registers, so a clobbering host function's stub (BindAddr) branches to a
// few guest instructions that load ClobberValue(i) into every volatile
// register but the link register, the flags and the return registers, and
// then return as the plain stub would. The engine would need one register
// write per register (Unicorn's uc_reg_write_batch costs 5-30 ns each, the
// arm64 ones the most); the translated loads cost about a nanosecond. It
// sits at the top of the stub region, outside the host-function hook and
// still inside the region the watch treats as host code (not a leave).
// Like Go's work, its instructions are the host function's, not the
// guest's: the block counters and the instruction limit skip them
// (tm_block_hook), and CountExact counts none of them and files their
// accesses (x86-64: the ret's pop of the return address) under the stub's
// branch, so every count is what it was with a plain return stub. Raw
// Unicorn (GoRaw) gets the plain return stubs back.

// routineSize is the top of the stub region the routine owns.
const routineSize = 4096

// routineAddr is where the clobber routine starts.
func (m *Machine) routineAddr() uint64 { return m.Arch.Memory.Stubs.End() - routineSize }

// x86HW is the hardware number of each x86-64 register in regs order (rax
// rbx rcx rdx rsi rdi rbp rsp r8-r15).
var x86HW = [16]byte{0, 3, 1, 2, 6, 7, 5, 4, 8, 9, 10, 11, 12, 13, 14, 15}

// x86ClobberCode: movabs $v, %reg for each, then ret.
func x86ClobberCode(rs []int, vals []uint64) []byte {
	var out []byte
	for k, i := range rs {
		hw := x86HW[i]
		rex := byte(0x48)
		if hw >= 8 {
			rex |= 1 // REX.B
		}
		out = append(out, rex, 0xb8+hw&7)
		out = binary.LittleEndian.AppendUint64(out, vals[k])
	}
	return append(out, 0xc3)
}

// x86Jump: jmp rel32.
func x86Jump(from, to uint64) []byte {
	return binary.LittleEndian.AppendUint32([]byte{0xe9}, uint32(int32(int64(to)-int64(from+5))))
}

// s390ClobberCode: llihf %rN,hi; iilf %rN,lo (when lo is not 0) for each,
// then br %r14.
func s390ClobberCode(rs []int, vals []uint64) []byte {
	var out []byte
	for k, i := range rs {
		r := byte(i) << 4
		out = binary.BigEndian.AppendUint32(append(out, 0xc0, r|0xe), uint32(vals[k]>>32))
		if lo := uint32(vals[k]); lo != 0 {
			out = binary.BigEndian.AppendUint32(append(out, 0xc0, r|0x9), lo)
		}
	}
	return append(out, 0x07, 0xfe)
}

// s390Jump: jg (brcl 15), a halfword offset.
func s390Jump(from, to uint64) []byte {
	return binary.BigEndian.AppendUint32([]byte{0xc0, 0xf4}, uint32(int32((int64(to)-int64(from))/2)))
}

// arm64ClobberCode: movz xN,#v[15:0]; movk for each other nonzero
// halfword, then ret.
func arm64ClobberCode(rs []int, vals []uint64) []byte {
	var out []byte
	for k, i := range rs {
		v := vals[k]
		out = binary.LittleEndian.AppendUint32(out, 0xd2800000|uint32(v&0xffff)<<5|uint32(i))
		for hw := uint32(1); hw < 4; hw++ {
			if h := uint32(v>>(16*hw)) & 0xffff; h != 0 {
				out = binary.LittleEndian.AppendUint32(out, 0xf2800000|hw<<21|h<<5|uint32(i))
			}
		}
	}
	return binary.LittleEndian.AppendUint32(out, 0xd65f03c0)
}

// arm64Jump: b, a word offset.
func arm64Jump(from, to uint64) []byte {
	return binary.LittleEndian.AppendUint32(nil, 0x14000000|uint32((int64(to)-int64(from))/4)&0x3ffffff)
}
