package asm

import (
	"fmt"
	"strings"
)

// FormatListing renders the code of every unit (and the host stubs) as a
// linked listing: address, symbol+offset, bytes, instruction, with a label
// line where a symbol starts. Undecodable bytes are shown as .byte and
// skipped one at a time.
func FormatListing(im *Image) string {
	var b strings.Builder
	d := ForImage(im)
	starts := map[uint64][]string{}
	for _, s := range im.Symbols {
		starts[s.Addr] = append(starts[s.Addr], s.Name)
	}
	for _, u := range im.Units {
		fmt.Fprintf(&b, "# unit %s: %#x-%#x (%d bytes)\n", u.Name, u.Start, u.End, u.End-u.Start)
		for pc := u.Start; pc < u.End; {
			for _, n := range starts[pc] {
				fmt.Fprintf(&b, "\n%016x <%s>:\n", pc, n)
			}
			code := im.Bytes(pc, int(min(u.End-pc, 16)))
			in, err := d.Decode(code, pc)
			if err != nil || len(code) == 0 {
				if len(code) == 0 {
					break
				}
				fmt.Fprintf(&b, "%16x  %-28s %-24s .byte %#02x\n", pc, im.Describe(pc), fmt.Sprintf("%02x", code[0]), code[0])
				pc++
				continue
			}
			fmt.Fprintf(&b, "%16x  %-28s %-24s %s\n", pc, im.Describe(pc), hexBytes(in.Bytes), in.Text)
			pc += uint64(in.Len)
		}
		b.WriteString("\n")
	}
	if len(im.HostFuncs) > 0 {
		b.WriteString("# host functions (Go, reached through a return stub)\n")
		for _, s := range im.sortedHosts() {
			fmt.Fprintf(&b, "%16x  %s\n", s.Addr, s.Name)
		}
	}
	return b.String()
}

func hexBytes(p []byte) string {
	parts := make([]string, len(p))
	for i, c := range p {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	return strings.Join(parts, " ")
}

func (im *Image) sortedHosts() []Symbol {
	var out []Symbol
	for n, a := range im.HostFuncs {
		out = append(out, Symbol{Name: n, Addr: a})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Addr < out[j-1].Addr; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
