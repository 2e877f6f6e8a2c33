package asm

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"trampemu/sandbox"
)

// Objtool is the kernel's own objtool this machine has: Debian's
// linux-kbuild-6.1 or linux-kbuild-6.12 package ships it as
// /usr/lib/linux-kbuild-<version>/tools/objtool/objtool (scripts/deps.sh
// installs linux-kbuild-6.1).
type Objtool struct {
	Path string
	// Version is the kernel version of the kbuild package ("6.1",
	// "6.12.117+deb12").
	Version string
	// Format is the annotation format it reads: 61 (include/linux/
	// objtool.h of v6.1: hint types CALL 0 .. RESTORE 6, end byte) or 64
	// (include/linux/objtool_types.h of v6.4+: UNDEFINED 0 .. RESTORE 7,
	// signal byte). The prelude's macros emit this one (x86Annotations).
	Format int
	// Wrapper: the 6.12 package's objtool is a launcher that runs
	// objtool.real-$SRCARCH next to it and wants SRCARCH=x86 in the
	// environment.
	Wrapper bool
}

func (o *Objtool) String() string {
	return fmt.Sprintf("objtool of linux-kbuild-%s (%s, hint format v%d.%d)", o.Version, o.Path, o.Format/10, o.Format%10)
}

// objtoolGlobs are where Debian's kbuild packages put objtool, preferred
// first.
var objtoolGlobs = []string{
	"/usr/lib/linux-kbuild-6.1/tools/objtool/objtool",
	"/usr/lib/linux-kbuild-6.12*/tools/objtool/objtool",
}

var (
	objtoolOnce sync.Once
	objtoolHave *Objtool
	objtoolErr  error
)

// FindObjtool returns the kernel objtool of this machine ($TRAMPEMU_OBJTOOL
// first, then Debian's kbuild packages), or an error naming the package
// to install.
func FindObjtool() (*Objtool, error) {
	objtoolOnce.Do(func() { objtoolHave, objtoolErr = findObjtool() })
	return objtoolHave, objtoolErr
}

var kbuildRE = regexp.MustCompile(`linux-kbuild-([0-9][^/]*)/`)

func findObjtool() (*Objtool, error) {
	var cands []string
	if p := os.Getenv("TRAMPEMU_OBJTOOL"); p != "" {
		cands = append(cands, p)
	}
	for _, g := range objtoolGlobs {
		m, _ := filepath.Glob(g)
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		cands = append(cands, m...)
	}
	for _, p := range cands {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			continue
		}
		o := &Objtool{Path: p, Version: "unknown", Format: 61}
		if m := kbuildRE.FindStringSubmatch(p); m != nil {
			o.Version = m[1]
		}
		if maj, min, ok := kernelVersion(o.Version); ok && (maj > 6 || maj == 6 && min >= 4) {
			o.Format = 64
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "objtool.real-x86")); err == nil {
			o.Wrapper = true // the 6.12 package's launcher of objtool.real-$SRCARCH
		}
		return o, nil
	}
	return nil, fmt.Errorf("the kernel's objtool is not installed: install the Debian package linux-kbuild-6.1 (scripts/deps.sh does it), or set TRAMPEMU_OBJTOOL to an objtool binary")
}

func kernelVersion(v string) (maj, min int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	maj, e1 := strconv.Atoi(parts[0])
	mn := parts[1]
	if i := strings.IndexFunc(mn, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		mn = mn[:i]
	}
	min, e2 := strconv.Atoi(mn)
	return maj, min, e1 == nil && e2 == nil
}

// ObjtoolArgs are the actions the kernel's build runs objtool with on each
// object of an ORC kernel, as far as this tool's expansion of the macros
// matches that kernel (scripts/Makefile.lib objtool-args, v6.1:
// --hacks=jump_label (CONFIG_HAVE_JUMP_LABEL_HACK), --hacks=noinstr,
// --orc (CONFIG_UNWINDER_ORC), --static-call, --uaccess (CONFIG_X86_SMAP);
// --mcount is left out: it rewrites the __fentry__ calls, and the tool
// has its own __mcount_loc). --retpoline, --rethunk and --sls are left out
// because the prelude expands JMP_NOSPEC, RET and friends as a kernel
// without those mitigations does (plain indirect branches, a bare ret);
// with them every such instruction would warn. Under CONFIG_FRAME_POINTER
// (no ORC unwinder) the kernel runs --stackval instead of --orc.
func ObjtoolArgs(defines map[string]string) []string {
	args := []string{"--hacks=jump_label", "--hacks=noinstr"}
	if _, fp := defines["CONFIG_FRAME_POINTER"]; fp {
		args = append(args, "--stackval")
	} else {
		args = append(args, "--orc")
	}
	return append(args, "--static-call", "--uaccess")
}

// ObjtoolWarning is one warning objtool printed for a source's object.
type ObjtoolWarning struct {
	Source string // Source.Name
	Unit   string // the source's unit
	// Func and Off are where objtool points ("func+0x12"), Off from the
	// start of Func; Func is "" when the warning names no place.
	Func string
	Off  uint64
	// File and Line are the source line of that place (from the
	// assembler's line table), 0 when unknown.
	File string
	Line int
	Text string
	// Fatal: objtool stopped (non-zero exit): the object has no ORC
	// table.
	Fatal bool
	// Werror: the source was built with CONFIG_OBJTOOL_WERROR, under
	// which the kernel's build fails on any objtool warning
	// (scripts/Makefile.lib v6.1: --werror; lib/Kconfig.debug
	// OBJTOOL_WERROR).
	Werror bool
}

func (w ObjtoolWarning) String() string {
	where := ""
	if w.File != "" && w.Line > 0 {
		where = fmt.Sprintf("%s:%d: ", w.File, w.Line)
	}
	if w.Func != "" {
		where += fmt.Sprintf("%s+%#x: ", w.Func, w.Off)
	}
	return where + w.Text
}

var objtoolWarnRE = regexp.MustCompile(`^(?:\S+: )?(warning|error): objtool: (?:([A-Za-z_.$][\w.$]*)\+0x([0-9a-f]+): )?(.*)$`)

// runObjtool runs objtool on obj (modifying it: the ORC sections are
// added) and returns its warnings, their places mapped to lines of the
// source by an object assembled again with a line table (debugObj) only
// when there are warnings.
func runObjtool(ot *Objtool, obj string, opt Options, s Source, debugObj func() (string, error)) ([]ObjtoolWarning, error) {
	defines := map[string]string{}
	for k, v := range opt.Defines {
		defines[k] = v
	}
	for k, v := range s.Defines {
		defines[k] = v
	}
	// objtool runs under the sandbox's limits, as the other programs
	// of a build do, in the build's own folder.
	cmd := sandbox.Cmd{Path: ot.Path, Args: append(ObjtoolArgs(defines), obj), Dir: filepath.Dir(obj), Outputs: []string{obj}}
	if ot.Wrapper {
		cmd.Env = []string{"SRCARCH=x86"}
	}
	out, err := sandbox.Run(cmd)
	fatal := false
	if err != nil {
		if le := limitError("objtool "+s.Name, err); le != nil {
			return nil, le
		}
		if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) {
			return nil, fmt.Errorf("asm: running %s: %w", ot.Path, err)
		}
		fatal = true
	}
	unit := s.Unit
	if unit == "" {
		unit = s.Name
	}
	var ws []ObjtoolWarning
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		w := ObjtoolWarning{Source: s.Name, Unit: unit, Text: l, Fatal: fatal, Werror: defined(opt, s, "CONFIG_OBJTOOL_WERROR")}
		if m := objtoolWarnRE.FindStringSubmatch(l); m != nil {
			w.Text = m[4]
			if m[2] != "" {
				w.Func = m[2]
				w.Off, _ = strconv.ParseUint(m[3], 16, 64)
			}
		} else if strings.HasPrefix(l, strings.TrimSuffix(obj, ".o")) || strings.Contains(l, obj) {
			w.Text = strings.ReplaceAll(l, obj, s.Name)
		}
		ws = append(ws, w)
	}
	if fatal && len(ws) == 0 {
		ws = append(ws, ObjtoolWarning{Source: s.Name, Unit: unit, Text: "objtool failed without a message", Fatal: true, Werror: defined(opt, s, "CONFIG_OBJTOOL_WERROR")})
	}
	if len(ws) > 0 && debugObj != nil {
		if dbg, err := debugObj(); err == nil {
			placeWarnings(dbg, ws)
		}
	}
	return ws, nil
}

// placeWarnings fills File and Line of the warnings from the DWARF line
// table of dbg, an object of the same source assembled with --gdwarf-5 (as
// follows the preprocessor's line markers, so the lines are the user's).
func placeWarnings(dbg string, ws []ObjtoolWarning) {
	f, err := elf.Open(dbg)
	if err != nil {
		return
	}
	defer f.Close()
	syms, _ := f.Symbols()
	d, err := f.DWARF()
	if err != nil {
		return
	}
	type row struct {
		addr uint64
		file string
		line int
	}
	var rows []row
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for lr.Next(&le) == nil {
			if le.File != nil && !le.EndSequence {
				rows = append(rows, row{le.Address, le.File.Name, le.Line})
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].addr < rows[j].addr })
	for i, w := range ws {
		if w.Func == "" {
			continue
		}
		var at uint64
		found := false
		for _, s := range syms {
			if s.Name == w.Func && s.Section != elf.SHN_UNDEF {
				at, found = s.Value+w.Off, true
				break
			}
		}
		if !found {
			continue
		}
		// The last row at or before the address (one text section: the
		// trampoline sources put their code in .text-like sections the
		// tool links together; a row of another section at the same
		// offset is possible but rare in these files).
		k := sort.Search(len(rows), func(j int) bool { return rows[j].addr > at }) - 1
		if k >= 0 {
			// DWARF joins the line marker's name (the source's Name)
			// with the compilation folder.
			file := rows[k].file
			if file == w.Source || strings.HasSuffix(file, string(filepath.Separator)+w.Source) {
				file = w.Source
			} else if strings.HasPrefix(file, os.TempDir()) {
				file = filepath.Base(file)
			}
			ws[i].File, ws[i].Line = file, rows[k].line
		}
	}
}
