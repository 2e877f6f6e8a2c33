package check

import (
	"trampemu/asm"
	"trampemu/trampolines"
)

// ObjtoolWarningsOf returns the objtool warnings about the image's
// trampoline of role r (its unit, asm.Source.Unit).
func ObjtoolWarningsOf(im *asm.Image, r trampolines.Role) []asm.ObjtoolWarning {
	var out []asm.ObjtoolWarning
	for _, w := range im.ObjtoolWarnings {
		if w.Unit == string(r) {
			out = append(out, w)
		}
	}
	return out
}

// objtool turns the kernel objtool's warnings about the trampoline into
// findings: info, error where the source was built with
// CONFIG_OBJTOOL_WERROR (the kernel's build would stop).
func (z *analyzer) objtool() {
	for _, w := range z.s.Objtool {
		sev := Info
		if w.Werror {
			sev = Error
		}
		text := w.String()
		if w.Fatal {
			text += " (objtool stopped: no ORC table for this object)"
		}
		z.col.addSev(Objtool, sev, "", "", text, "")
	}
}
