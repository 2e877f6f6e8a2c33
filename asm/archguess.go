package asm

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"trampemu/regs"
)

// An archSignature is what makes an architecture's assembly text
// recognisable: mnemonics (lower case) that the others do not have, or not
// all of them, and a pattern of its register names as they appear in
// operands. A modelled arch's signature is in its per-arch file
// (asmArch.signature); the arches trampemu does not model are in
// unmodelledArches.
type archSignature struct {
	// name is the architecture's name as the kernel and Debian spell it.
	name      string
	mnemonics []string
	// mnemonicRE, when set, also marks a mnemonic as the arch's
	// (loongarch64's "st.d", "addi.d").
	mnemonicRE *regexp.Regexp
	regs       *regexp.Regexp
	// set is mnemonics as a set, built once: the signatures are shared
	// by every concurrent load (a lazy fill without the Once was a data
	// race, found by go test -race in TestBrokenFiles).
	once sync.Once
	set  map[string]bool
}

func (s *archSignature) hasMnemonic(m string) bool {
	s.once.Do(func() {
		s.set = map[string]bool{}
		for _, n := range s.mnemonics {
			s.set[n] = true
		}
	})
	return s.set[m] || s.mnemonicRE != nil && s.mnemonicRE.MatchString(m)
}

// unmodelledArches are the arches with kernel ftrace trampolines that
// trampemu has no model of. Each row's mnemonics and registers come from the
// arch's own ftrace file (cited); a file of one is answered in one line.
var unmodelledArches = []*archSignature{
	// arch/loongarch/kernel/mcount_dyn.S (v6.x): PTR_ADDI/PTR_S/PTR_L
	// (asm/asm.h), st.d, addi.d, jirl, $a0-$a7, $t0-$t8, $sp, $ra.
	{name: "loongarch64",
		mnemonics:  []string{"jirl", "pcaddi", "pcalau12i", "pcaddu12i", "ptr_addi", "ptr_li", "ptr_la", "ptr_s", "ptr_l", "long_s", "long_l", "bl", "move", "bnez", "beqz", "csrrd", "csrwr"},
		mnemonicRE: regexp.MustCompile(`^[a-z]+\.(d|w|du|wu|b|h)$`),
		regs:       regexp.MustCompile(`\$(a[0-7]|t[0-8]|s[0-8]|ra|sp|fp|zero|tp|r([0-9]|[12][0-9]|3[01]))\b`)},
	// arch/powerpc/kernel/trace/ftrace_64_mprofile.S, ftrace_entry.S
	// (v6.x): mflr/mtlr, std/stdu, bctrl, SAVE_GPRS, r0-r31 bare.
	{name: "powerpc64",
		mnemonics: []string{"mflr", "mtlr", "mtctr", "mfctr", "bctr", "bctrl", "blr", "std", "stdu", "stw", "stwu", "lwz", "lis", "ori", "oris", "mr", "cmpdi", "cmpd", "cmpldi", "addis", "addi", "ld", "li", "beq", "bne", "save_gprs", "rest_gprs", "ppc_stl", "ppc_ll", "ppc_stlu", "mfmsr", "mtmsrd", "isync"},
		regs:      regexp.MustCompile(`(^|[\s,(])r([0-9]|[12][0-9]|3[01])\b`)},
	// arch/mips/kernel/mcount.S (v6.x): PTR_ADDIU, PTR_LA, move, jal,
	// jr, daddiu, $sp/$ra/$a0 (and .set noreorder).
	{name: "mips",
		mnemonics: []string{"daddiu", "daddu", "dsubu", "addiu", "move", "jal", "jalr", "jr", "sd", "ld", "sw", "lw", "lui", "ptr_addiu", "ptr_la", "ptr_s", "ptr_l", "ptr_subu", "long_s", "long_l", "beqz", "bnez", "b", "nop", "mfc0", "mtc0"},
		regs:      regexp.MustCompile(`\$(a[0-7]|t[0-9]|s[0-8]|v[01]|ra|sp|fp|gp|zero|k[01]|at|[0-9]|[12][0-9]|3[01])\b`)},
	// arch/arm/kernel/entry-ftrace.S (v6.x): push/pop of register lists,
	// stmdb/ldmia, bx/blx, r0-r12, ip, lr, pc.
	{name: "arm32",
		mnemonics: []string{"push", "pop", "stmdb", "stmfd", "ldmia", "ldmfd", "stmia", "bx", "blx", "mov", "ldr", "str", "sub", "add", "bl", "b", "movne", "moveq", "ldreq", "ldrne", "cmp", "teq", "badr", "reta"},
		regs:      regexp.MustCompile(`\b(r([0-9]|1[0-2])|ip|lr|pc)\b`)},
}

// wrongArchShare: the text is another arch's when that arch's score is
// at least this many times the named arch's and at least wrongArchMin
// statements say so.
const (
	wrongArchShare = 3
	wrongArchMin   = 4
)

// signatures lists every signature once (a row of unmodelledArches may
// also be a modelled arch's signature) with whether trampemu models its
// arch (regs.ArchByName knows it).
func signatures() (out []*archSignature, modelled []bool) {
	seen := map[*archSignature]bool{}
	add := func(s *archSignature) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		_, err := regs.ArchByName(s.name)
		out, modelled = append(out, s), append(modelled, err == nil)
	}
	for _, h := range asmArches {
		add(h.signature)
	}
	for _, s := range unmodelledArches {
		add(s)
	}
	return out, modelled
}

// GuessArch returns the architecture whose instructions text holds, and
// whether trampemu models it, when that is clearly another than a; "" when
// text reads as a's or as nobody's in particular. text is assembly with
// or without cpp's work done (comments and directives are skipped).
func GuessArch(a *regs.Arch, text []byte) (name string, modelled bool) {
	sigs, mod := signatures()
	scores := make([]int, len(sigs))
	for _, st := range asmStatements(string(text)) {
		for i, s := range sigs {
			if s.hasMnemonic(st.mnemonic) {
				scores[i]++
			}
			if s.regs.MatchString(st.operands) {
				scores[i]++
			}
		}
	}
	own := 0
	best := -1
	for i, s := range sigs {
		if s.name == a.Name {
			own = scores[i]
			continue
		}
		if best < 0 || scores[i] > scores[best] {
			best = i
		}
	}
	if best < 0 || scores[best] < wrongArchMin || scores[best] < wrongArchShare*own {
		return "", false
	}
	// A second arch as strong as the best one: no clear answer.
	for i, s := range sigs {
		if i != best && s.name != a.Name && scores[i]*10 > scores[best]*9 {
			return "", false
		}
	}
	return sigs[best].name, mod[best]
}

// WrongArch returns the one-line error for a file named name whose text
// holds another arch's instructions than a's, or nil.
func WrongArch(a *regs.Arch, name string, text []byte) error {
	other, modelled := GuessArch(a, text)
	if other == "" {
		return nil
	}
	return &Error{Stage: "arch", WrongArch: other, Modelled: modelled, File: name, Arch: a.Name}
}

// wrongArchLine is the message of an Error with WrongArch set.
func (e *Error) wrongArchLine() string {
	if e.Modelled {
		return fmt.Sprintf("%s holds %s instructions, not %s: use --arch %s", e.File, e.WrongArch, e.Arch, e.WrongArch)
	}
	return fmt.Sprintf("%s holds %s instructions, an architecture trampemu does not model", e.File, e.WrongArch)
}

// statement is one assembler statement: its mnemonic (lower case) and the
// rest of it.
type statement struct{ mnemonic, operands string }

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	labelsRE     = regexp.MustCompile(`^\s*(?:(?:[A-Za-z_.$][\w.$]*|\d+)\s*:\s*)*`)
)

// asmStatements splits assembly text into its statements: comments (C
// comments, "//" and "@" to the end of the line), preprocessor lines,
// directives, labels and macro calls in capitals with parentheses
// (SYM_FUNC_START(x)) are left out.
func asmStatements(text string) []statement {
	text = blockComment.ReplaceAllStringFunc(text, func(c string) string { return strings.Repeat("\n", strings.Count(c, "\n")) })
	var out []statement
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
			continue
		}
		for _, part := range strings.Split(line, ";") {
			part = labelsRE.ReplaceAllString(part, "")
			part = strings.TrimSpace(part)
			if part == "" || part[0] == '.' || part[0] == '#' || part[0] == '@' {
				continue
			}
			m, rest, _ := strings.Cut(part, " ")
			if i := strings.IndexByte(m, '\t'); i >= 0 {
				m, rest = m[:i], m[i+1:]+" "+rest
			}
			if strings.ContainsAny(m, "()") {
				continue // SYM_FUNC_START(x), ENTRY(x)
			}
			out = append(out, statement{mnemonic: strings.ToLower(m), operands: strings.TrimSpace(rest)})
		}
	}
	return out
}
