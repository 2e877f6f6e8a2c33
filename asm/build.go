package asm

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"trampemu/regs"
	"trampemu/sandbox"
)

// Source is one .S text to assemble.
type Source struct {
	// Name is how errors refer to the text: the user's path, or the
	// embedded file's name.
	Name string
	Text []byte
	// Unit groups sources for Image.Units (the code range each unit's text
	// occupies): "entry", "exit", "workloads", ... Empty: the Name.
	Unit string
	// Defines are added to Options.Defines for this source only.
	Defines map[string]string
	// Globals, when not nil, are the only symbols the source's object
	// keeps global (every other symbol it defines becomes local, objcopy
	// --keep-global-symbol); Locals become local (--localize-symbol). A
	// kernel file that defines both roles is linked once per role this way.
	Globals, Locals []string
	// Dir is the folder the text was read from (a user's file): cpp
	// searches it first for the text's own #include "name", as it searches
	// the including file's folder, so a header next to the file wins over
	// a partner's header of the same name in Options.Headers. Empty for
	// embedded files.
	Dir string
	// Headers are include files by name that only this source sees (a
	// registry variant's headers of its folder): they win over
	// Options.Headers of the same name, and no other source of the build
	// sees them, so two sources may each have their own header of one
	// name.
	Headers map[string][]byte
	// IncludeDirs are searched for this source only, after its Headers
	// and before Options.IncludeDirs (a user file's folders).
	IncludeDirs []string
	// ObjtoolNonStandardFP: with CONFIG_FRAME_POINTER defined, objtool is
	// not run on this source (its kernel Makefile marked the object
	// OBJECT_FILES_NON_STANDARD in frame-pointer builds).
	ObjtoolNonStandardFP bool
}

// Options choose the target and the environment the sources see.
type Options struct {
	Arch *regs.Arch
	// Defines are passed to the preprocessor as -DNAME=VALUE ("" = 1):
	// CONFIG_FRAME_POINTER, MARCH_HAS_Z196_FEATURES, ...
	Defines map[string]string
	// HostFuncs are symbols that resolve to host-function stub addresses
	// (consecutive 16-byte slots in the arch's stub region) unless a source
	// defines them itself.
	HostFuncs []string
	// Headers are extra include files by name (#include "name").
	Headers map[string][]byte
	// IncludeDirs are searched too (a user file's own directory).
	IncludeDirs []string
	// UnitLine, when not 0, starts every unit UnitOffset[unit] bytes (0
	// when absent) past a multiple of UnitLine bytes (a cache line),
	// instead of at the next 16-byte boundary: the native runner shifts a
	// trampoline within its line this way and keeps the others' offsets
	// fixed.
	UnitLine   int
	UnitOffset map[string]int
}

// Error is an assembler or linker failure with the messages that name the
// user's file and line.
type Error struct {
	Stage     string   // "preprocess", "assemble", "link"
	Messages  []string // "file.S:12: Error: ..." lines
	Undefined []string // link: symbols nobody defined
	// Refused: the input was refused as unsafe (a file it may not read,
	// a size it may not have) or a program ran into a limit; not a
	// mistake another arch or role would explain.
	Refused bool
	// WrongArch, when set, is the architecture whose instructions File
	// holds instead of Arch's (GuessArch), and Modelled whether trampemu
	// models it: the error is then that one line.
	WrongArch  string
	Modelled   bool
	File, Arch string
}

func (e *Error) Error() string {
	if e.WrongArch != "" {
		return e.wrongArchLine()
	}
	var b strings.Builder
	if len(e.Undefined) > 0 {
		fmt.Fprintf(&b, "link: undefined symbols: %s (define them in the .S file or use a symbol the tool provides)",
			strings.Join(e.Undefined, ", "))
		return b.String()
	}
	// The first message on the first line: one line says what is wrong.
	fmt.Fprintf(&b, "%s failed", e.Stage)
	if len(e.Messages) > 0 {
		fmt.Fprintf(&b, ": %s", e.Messages[0])
	}
	for _, m := range e.Messages[min(1, len(e.Messages)):] {
		b.WriteString("\n  ")
		b.WriteString(m)
	}
	return b.String()
}

// ToolError says which toolchain program is missing and how to install it.
type ToolError struct {
	Program string
	Package string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("%s not found in PATH: install the Debian package %s (make deps does it)", e.Program, e.Package)
}

// HostStubStride is the distance between host-function stubs.
const HostStubStride = 16

// HostAddr returns the stub address of the i-th host function.
func HostAddr(a *regs.Arch, i int) uint64 { return a.Memory.Stubs.Base + uint64(i)*HostStubStride }

// cache holds the images built in this process by content hash, the
// newest maxCached of them: a run of trampemu mutate builds thousands of
// pairings, each needed only while its checks run.
var cache = imageCache{m: map[string]*Image{}}

const maxCached = 256

type imageCache struct {
	mu    sync.Mutex
	m     map[string]*Image
	order []string // insertion order, oldest first
}

func (c *imageCache) Load(key string) (*Image, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	im, ok := c.m[key]
	return im, ok
}

func (c *imageCache) Store(key string, im *Image) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return
	}
	c.m[key] = im
	c.order = append(c.order, key)
	for len(c.order) > maxCached {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}

// Build preprocesses, assembles and links the sources into one Image.
// Identical inputs are built once per process.
func Build(opt Options, srcs ...Source) (*Image, error) {
	if opt.Arch == nil {
		return nil, errors.New("asm: no architecture given")
	}
	if len(srcs) == 0 {
		return nil, errors.New("asm: no sources")
	}
	key := buildKey(opt, srcs)
	if im, ok := cache.Load(key); ok {
		return im, nil
	}
	im, err := build(opt, srcs)
	if err != nil {
		return nil, err
	}
	cache.Store(key, im)
	return im, nil
}

func buildKey(opt Options, srcs []Source) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%+v\x00", opt.Arch.Name, opt.Arch.Memory) // the native runner links x86-64 elsewhere
	for _, k := range sortedKeys(opt.Defines) {
		fmt.Fprintf(h, "D%s=%s\x00", k, opt.Defines[k])
	}
	for _, f := range opt.HostFuncs {
		fmt.Fprintf(h, "H%s\x00", f)
	}
	hashHeaders(h, opt.Headers)
	for _, d := range opt.IncludeDirs {
		fmt.Fprintf(h, "P%s\x00", d)
	}
	fmt.Fprintf(h, "L%d\x00", opt.UnitLine)
	for _, k := range sortedKeys(opt.UnitOffset) {
		fmt.Fprintf(h, "O%s=%d\x00", k, opt.UnitOffset[k])
	}
	for _, s := range srcs {
		fmt.Fprintf(h, "S%s\x00%s\x00%d\x00", s.Name, s.Unit, len(s.Text))
		h.Write(s.Text)
		for _, k := range sortedKeys(s.Defines) {
			fmt.Fprintf(h, "d%s=%s\x00", k, s.Defines[k])
		}
		fmt.Fprintf(h, "g%v\x00l%v\x00F%s\x00N%v\x00", s.Globals, s.Locals, s.Dir, s.ObjtoolNonStandardFP)
		hashHeaders(h, s.Headers)
		for _, d := range s.IncludeDirs {
			fmt.Fprintf(h, "p%s\x00", d)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func tool(a *regs.Arch, name string) (string, error) {
	prog := a.Triple + "-" + name
	p, err := exec.LookPath(prog)
	if err != nil {
		return "", &ToolError{Program: prog, Package: a.BinutilsPkg}
	}
	return p, nil
}

var includeRE = regexp.MustCompile(`(?m)^\s*#\s*include\s*[<"]([^>"]+)[>"]`)

func build(opt Options, srcs []Source) (*Image, error) {
	opt, srcs = absolute(opt, srcs)
	a := opt.Arch
	asPath, err := tool(a, "as")
	if err != nil {
		return nil, err
	}
	ldPath, err := tool(a, "ld")
	if err != nil {
		return nil, err
	}
	cppPath, err := exec.LookPath("cpp")
	if err != nil {
		return nil, &ToolError{Program: "cpp", Package: "cpp"}
	}
	dir, done, err := sandbox.TempDir("trampemu-asm-")
	if err != nil {
		return nil, fmt.Errorf("asm: %w", err)
	}
	defer done()

	var ot *Objtool
	if mustAsmArch(a).objtool {
		if ot, err = FindObjtool(); err != nil {
			return nil, err
		}
	}
	var objs []string
	var warns []ObjtoolWarning
	units := []string{}
	unitObjs := map[string][]string{}
	for i, s := range srcs {
		base := fmt.Sprintf("src%d", i)
		obj := filepath.Join(dir, base+".o")
		ws, err := assemble(asPath, cppPath, dir, a, opt, s, base, obj, ot)
		if err != nil {
			return nil, err
		}
		warns = append(warns, ws...)
		if err := localize(a, obj, s); err != nil {
			return nil, err
		}
		objs = append(objs, filepath.Base(obj))
		u := s.Unit
		if u == "" {
			u = s.Name
		}
		if _, ok := unitObjs[u]; !ok {
			units = append(units, u)
		}
		unitObjs[u] = append(unitObjs[u], filepath.Base(obj))
	}

	script := linkerScript(a, units, unitObjs, opt)
	scriptPath := filepath.Join(dir, "link.ld")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		return nil, fmt.Errorf("asm: %w", err)
	}
	out := filepath.Join(dir, "image.elf")
	args := []string{"-m", mustAsmArch(a).ldEmulation, "-T", scriptPath, "-o", out, "--orphan-handling=error",
		"-z", "noexecstack", "--no-warn-rwx-segments", "-static", "-nostdlib"}
	if msg, err := sandbox.Run(sandbox.Cmd{Path: ldPath, Args: append(args, objs...), Dir: dir, Outputs: []string{out}}); err != nil {
		if le := limitError("link", err); le != nil {
			return nil, le
		}
		return nil, linkError(msg, srcs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("asm: %w", err)
	}
	im, err := LoadELF(a, data)
	if err != nil {
		return nil, fmt.Errorf("asm: reading the linked image: %w", err)
	}
	im.finishUnits(units)
	for _, u := range im.Units {
		if n := u.End - u.Start; n > MaxUnitText {
			return nil, &Error{Stage: "link", Refused: true, Messages: []string{fmt.Sprintf(
				"%s: its code is %d bytes, more than the %d a kernel trampoline file's text has: refused", u.Name, n, MaxUnitText)}}
		}
	}
	im.Objtool, im.ObjtoolWarnings = ot, warns
	im.HostFuncs = map[string]uint64{}
	for i, h := range opt.HostFuncs {
		// A source that defines the symbol itself overrides the stub (PROVIDE).
		if addr, ok := im.Symbol(h); ok && addr != HostAddr(a, i) {
			continue
		}
		im.HostFuncs[h] = HostAddr(a, i)
	}
	return im, nil
}

// absolute returns opt and srcs with every folder absolute: the programs
// run in folders of the tool's own, not in the caller's working directory.
func absolute(opt Options, srcs []Source) (Options, []Source) {
	abs := func(ds []string) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			if a, err := filepath.Abs(d); err == nil {
				d = a
			}
			out[i] = d
		}
		return out
	}
	opt.IncludeDirs = abs(opt.IncludeDirs)
	srcs = append([]Source{}, srcs...)
	for i := range srcs {
		srcs[i].IncludeDirs = abs(srcs[i].IncludeDirs)
		if srcs[i].Dir != "" {
			srcs[i].Dir = abs([]string{srcs[i].Dir})[0]
		}
	}
	return opt, srcs
}

// localize applies the source's Globals and Locals to its object.
func localize(a *regs.Arch, obj string, s Source) error {
	if s.Globals == nil && len(s.Locals) == 0 {
		return nil
	}
	objcopy, err := tool(a, "objcopy")
	if err != nil {
		return err
	}
	var args []string
	if s.Globals != nil {
		args = append(args, "--keep-global-symbol=__trampemu_none")
		for _, g := range s.Globals {
			args = append(args, "--keep-global-symbol="+g)
		}
	}
	for _, l := range s.Locals {
		args = append(args, "--localize-symbol="+l)
	}
	if out, err := sandbox.Run(sandbox.Cmd{Path: objcopy, Args: append(args, obj), Dir: filepath.Dir(obj), Outputs: []string{obj}}); err != nil {
		if le := limitError("objcopy "+s.Name, err); le != nil {
			return le
		}
		return &Error{Stage: "objcopy " + s.Name, Messages: toolMessages(out, obj, s.Name)}
	}
	return nil
}

// objCache holds the object file of each source assembled in this
// process, by objKey: a pairing's runtime and workloads (and, when
// trampemu mutate builds thousands of mutants of one trampoline, its
// partner) are assembled once.
var objCache sync.Map

// objKey names everything an object depends on, the content of every
// header the source sees (Options.Headers and its own Headers) included;
// "" (no caching) when the source may include files from the user's
// folders, which can change.
func objKey(a *regs.Arch, opt Options, s Source) string {
	if len(opt.IncludeDirs) > 0 || len(s.IncludeDirs) > 0 || s.Dir != "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%q\x00%s\x00%v\x00", a.Name, a.AsFlags, s.Name, s.ObjtoolNonStandardFP)
	h.Write(s.Text)
	for _, m := range []map[string]string{opt.Defines, s.Defines} {
		for _, k := range sortedKeys(m) {
			fmt.Fprintf(h, "\x00D%s=%s", k, m[k])
		}
	}
	hashHeaders(h, opt.Headers)
	h.Write([]byte("\x00own"))
	hashHeaders(h, s.Headers)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// hashHeaders adds the headers a source may include, by name, to a cache
// key.
func hashHeaders(h io.Writer, headers map[string][]byte) {
	for _, k := range sortedHeaderNames(headers) {
		fmt.Fprintf(h, "\x00H%s\x00%d\x00", k, len(headers[k]))
		h.Write(headers[k])
	}
}

// assemble preprocesses and assembles one source into obj, or copies the
// object from objCache. Each source preprocessed gets an include folder
// of its own (base-include in dir, see writeIncludes).
//
// With ot (x86-64) the object then goes through the kernel's objtool,
// which adds the ORC sections; its warnings are returned (and cached with
// the object).
func assemble(asPath, cppPath, dir string, a *regs.Arch, opt Options, s Source, base, obj string, ot *Objtool) ([]ObjtoolWarning, error) {
	key := objKey(a, opt, s)
	if key != "" {
		if b, ok := objCache.Load(key); ok {
			c := b.(cachedObj)
			if err := os.WriteFile(obj, c.obj, 0o644); err != nil {
				return nil, fmt.Errorf("asm: %w", err)
			}
			return c.warns, nil
		}
	}
	inc := filepath.Join(dir, base+"-include")
	if ot != nil {
		opt.Defines = withDefine(opt.Defines, "TRAMPEMU_OBJTOOL_FORMAT", strconv.Itoa(ot.Format))
	}
	if err := writeIncludes(inc, a, s, opt); err != nil {
		return nil, err
	}
	pre, err := preprocess(cppPath, dir, inc, a, opt, s, base)
	if err != nil {
		return nil, err
	}
	stage := "assemble " + s.Name
	text, err := os.ReadFile(pre)
	if err != nil {
		return nil, fmt.Errorf("asm: %w", err)
	}
	if err := checkDirectives(stage, s.Name, s.Dir, text, 0); err != nil {
		return nil, err
	}
	cwd := filepath.Join(dir, base+"-cwd")
	if err := os.Mkdir(cwd, 0o700); err != nil {
		return nil, fmt.Errorf("asm: %w", err)
	}
	// runAs assembles pre into out; as runs in an empty folder of its
	// own and finds .include and .incbin in the source's folder only,
	// and what it read (--MD) is checked against that folder.
	runAs := func(out string, extra ...string) ([]byte, error) {
		args := append(append(append([]string{}, mustAsmArch(a).asFlags...), extra...), "-o", out)
		args = append(args, a.AsFlags...)
		if s.Dir != "" {
			args = append(args, "-I", s.Dir)
		}
		deps := strings.TrimSuffix(out, ".o") + ".d"
		args = append(args, "--MD", deps, pre)
		if out, err := sandbox.Run(sandbox.Cmd{Path: asPath, Args: args, Dir: cwd, Outputs: []string{out}}); err != nil {
			return out, err
		}
		return nil, checkDeps(stage, s.Name, s.Dir, pre, deps)
	}
	if out, err := runAs(obj); err != nil {
		os.Remove(obj)
		if le := limitError(stage, err); le != nil {
			return nil, le
		}
		var ae *Error
		if errors.As(err, &ae) {
			return nil, err
		}
		// Another arch's file: one line that names it, not a page of
		// the assembler's errors.
		if we := WrongArch(a, s.Name, text); we != nil {
			return nil, we
		}
		return nil, &Error{Stage: stage, Messages: toolMessages(out, pre, s.Name)}
	}
	var warns []ObjtoolWarning
	if ot != nil && !(s.ObjtoolNonStandardFP && defined(opt, s, "CONFIG_FRAME_POINTER")) {
		dbg := func() (string, error) {
			p := filepath.Join(dir, base+".dbg.o")
			if out, err := runAs(p, "--gdwarf-5"); err != nil {
				return "", fmt.Errorf("%s%v", out, err)
			}
			return p, nil
		}
		if warns, err = runObjtool(ot, obj, opt, s, dbg); err != nil {
			return nil, err
		}
	}
	if key != "" {
		b, err := os.ReadFile(obj)
		if err != nil {
			return nil, fmt.Errorf("asm: %w", err)
		}
		objCache.Store(key, cachedObj{b, warns})
	}
	return warns, nil
}

// defined reports whether name is defined for the source.
func defined(opt Options, s Source, name string) bool {
	_, a := opt.Defines[name]
	_, b := s.Defines[name]
	return a || b
}

// cachedObj is an objCache entry: the object (after objtool) and
// objtool's warnings.
type cachedObj struct {
	obj   []byte
	warns []ObjtoolWarning
}

// withDefine returns a copy of m with name=value added.
func withDefine(m map[string]string, name, value string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[name] = value
	return out
}

// writeIncludes creates the include directory of one source: asm/asm-offsets.h
// from regs, the prelude, the headers it sees (Options.Headers, then its
// own Headers, which win), and an empty file for every other header it or
// those headers include (kernel headers whose macros the prelude already
// provides).
func writeIncludes(inc string, a *regs.Arch, s Source, opt Options) error {
	files := map[string]string{
		"asm/asm-offsets.h":  regs.AsmOffsetsHeader(a),
		"trampemu-prelude.h": Prelude(a),
	}
	texts := [][]byte{s.Text}
	for _, hdrs := range []map[string][]byte{opt.Headers, s.Headers} {
		for _, name := range sortedHeaderNames(hdrs) {
			files[filepath.Clean(name)] = string(hdrs[name])
			texts = append(texts, hdrs[name])
		}
	}
	dirs := append(append([]string{}, s.IncludeDirs...), opt.IncludeDirs...)
	for _, t := range texts {
		for _, m := range includeRE.FindAllSubmatch(t, -1) {
			name := filepath.Clean(string(m[1]))
			// A NUL cannot be in a file name (open gives EINVAL): cpp
			// reports the include as missing (found by FuzzPreprocess).
			if filepath.IsAbs(name) || strings.HasPrefix(name, "..") || strings.ContainsRune(name, 0) || inDirs(dirs, name) {
				continue // left for cpp to find or report
			}
			if _, ok := files[name]; !ok {
				files[name] = "/* provided by trampemu's prelude */\n"
			}
		}
	}
	for name, text := range files {
		p := filepath.Join(inc, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("asm: %w", err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("asm: %w", err)
		}
	}
	return nil
}

func sortedHeaderNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func inDirs(dirs []string, name string) bool {
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			return true
		}
	}
	return false
}

func preprocess(cpp, dir, inc string, a *regs.Arch, opt Options, s Source, base string) (string, error) {
	in := filepath.Join(dir, base+".S")
	// A linemarker first, so cpp and as name the user's file in messages.
	text := append([]byte(fmt.Sprintf("#line 1 %q\n", s.Name)), s.Text...)
	if err := os.WriteFile(in, text, 0o644); err != nil {
		return "", fmt.Errorf("asm: %w", err)
	}
	out := filepath.Join(dir, base+".s")
	args := []string{"-x", "assembler-with-cpp", "-undef", "-nostdinc"}
	if s.Dir != "" {
		// cpp reads a copy in dir: the original's folder comes first for
		// its quoted includes (-iquote is searched before every -I).
		args = append(args, "-iquote", s.Dir)
	}
	args = append(args, "-I", inc)
	for _, d := range append(append([]string{}, s.IncludeDirs...), opt.IncludeDirs...) {
		args = append(args, "-I", d)
	}
	args = append(args, "-include", filepath.Join(inc, "trampemu-prelude.h"))
	defines := map[string]string{}
	for k, v := range opt.Defines {
		defines[k] = v
	}
	for k, v := range s.Defines {
		defines[k] = v
	}
	for _, k := range sortedKeys(defines) {
		if v := defines[k]; v != "" {
			args = append(args, "-D"+k+"="+v)
		} else {
			args = append(args, "-D"+k)
		}
	}
	args = append(args, in, "-o", out)
	stage := "preprocess " + s.Name
	// Every #include is resolved and checked before cpp reads anything.
	g := newIncludeGuard(stage, inc, s, opt)
	var chain []string
	if s.Dir != "" {
		if real, err := filepath.EvalSymlinks(s.Name); err == nil {
			if real, err = filepath.Abs(real); err == nil {
				chain = []string{real}
			}
		}
	}
	if err := g.check(s.Name, "", s.Text, chain); err != nil {
		return "", err
	}
	for _, hdrs := range []map[string][]byte{opt.Headers, s.Headers} {
		for _, name := range sortedHeaderNames(hdrs) {
			if err := g.check(name, "", hdrs[name], nil); err != nil {
				return "", err
			}
		}
	}
	if msg, err := sandbox.Run(sandbox.Cmd{Path: cpp, Args: args, Dir: dir, Outputs: []string{out}}); err != nil {
		if le := limitError(stage, err); le != nil {
			return "", le
		}
		// cpp's notes name the generated headers by their temporary path:
		// keep only the header's own name (trampemu-prelude.h:37).
		msg = bytes.ReplaceAll(msg, []byte(inc+string(filepath.Separator)), nil)
		return "", &Error{Stage: stage, Messages: errorFirst(toolMessages(msg, in, s.Name))}
	}
	text, err := os.ReadFile(out)
	if err != nil {
		return "", fmt.Errorf("asm: %w", err)
	}
	if err := g.checkEntered(text, dir, s.Name); err != nil {
		return "", err
	}
	return out, nil
}

// limitError is a program's failure as an *Error when a limit stopped it
// or it is missing, else nil.
func limitError(stage string, err error) error {
	var le *sandbox.LimitError
	var te *sandbox.ToolError
	switch {
	case errors.As(err, &le):
		return &Error{Stage: stage, Messages: []string{le.Error()}, Refused: true}
	case errors.As(err, &te):
		return err
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	return fmt.Errorf("asm: %s: %w", stage, err)
}

// errorFirst moves cpp's first error to the front, so that the one line
// of Error says it ("In file included from" notes follow it).
func errorFirst(msgs []string) []string {
	for i, m := range msgs {
		if strings.Contains(m, "error:") {
			return append(append([]string{m}, msgs[:i]...), msgs[i+1:]...)
		}
	}
	return msgs
}

// toolMessages keeps the lines of a tool's output that say something, with
// temporary file names replaced by the source's name.
func toolMessages(out []byte, tmp, name string) []string {
	var msgs []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasSuffix(l, "Assembler messages:") {
			continue
		}
		l = strings.ReplaceAll(l, tmp, name)
		msgs = append(msgs, l)
	}
	if len(msgs) == 0 {
		msgs = []string{"(no message)"}
	}
	return msgs
}

var undefRE = regexp.MustCompile("undefined reference to [`']([^'`]+)'")

func linkError(out []byte, srcs []Source) error {
	seen := map[string]bool{}
	var undef []string
	for _, m := range undefRE.FindAllSubmatch(out, -1) {
		n := string(m[1])
		if !seen[n] {
			seen[n] = true
			undef = append(undef, n)
		}
	}
	sort.Strings(undef)
	msgs := toolMessages(out, "", "")
	for i, m := range msgs {
		for j, s := range srcs {
			m = strings.ReplaceAll(m, fmt.Sprintf("src%d.o", j), s.Name)
		}
		msgs[i] = m
	}
	return &Error{Stage: "link", Messages: msgs, Undefined: undef}
}

// linkerScript places each unit's code consecutively at the text base
// (each at the next 16-byte boundary, or as opt.UnitLine and UnitOffset
// say), with __trampemu_unit<N>_start/_end around it, data at the data
// base, and host functions PROVIDEd at their stub addresses.
func linkerScript(a *regs.Arch, units []string, unitObjs map[string][]string, opt Options) string {
	hosts := opt.HostFuncs
	var b bytes.Buffer
	m := a.Memory
	fmt.Fprintf(&b, "SECTIONS\n{\n  . = %#x;\n  .text : {\n", m.Text.Base)
	const text = "(.text .text.* .entry.text .noinstr.text .kprobes.text .init.text .ref.text .sched.text .cpuidle.text)"
	for i, u := range units {
		if opt.UnitLine > 0 {
			fmt.Fprintf(&b, "    . = ALIGN(%d) + %d;\n", opt.UnitLine, opt.UnitOffset[u])
		} else {
			b.WriteString("    . = ALIGN(16);\n")
		}
		fmt.Fprintf(&b, "    __trampemu_unit%d_start = .;\n", i)
		for _, o := range unitObjs[u] {
			fmt.Fprintf(&b, "    %s%s\n", o, text)
		}
		fmt.Fprintf(&b, "    __trampemu_unit%d_end = .;\n", i)
	}
	fmt.Fprintf(&b, "  }\n  . = %#x;\n", m.Data.Base)
	b.WriteString("  .data : {\n    *(.data .data.* .rodata .rodata.* .got .got.plt .igot.plt)\n")
	// The call sites of traced functions, as the kernel collects them.
	b.WriteString("    . = ALIGN(8);\n    __start_mcount_loc = .;\n    KEEP(*(__mcount_loc))\n    __stop_mcount_loc = .;\n")
	b.WriteString("    *(.bss .bss.* COMMON)\n  }\n")
	// The ORC table objtool wrote for each object (x86-64), in link order
	// so .orc_unwind_ip[i] describes .orc_unwind[i]
	// (arch/x86/kernel/vmlinux.lds.S ORC_UNWIND_TABLE: both KEEP, sorted at
	// boot; the unwinder here sorts them itself).
	b.WriteString("  . = ALIGN(8);\n  .orc_unwind_ip : { __start_orc_unwind_ip = .; KEEP(*(.orc_unwind_ip)) __stop_orc_unwind_ip = .; }\n")
	b.WriteString("  . = ALIGN(8);\n  .orc_unwind : { __start_orc_unwind = .; KEEP(*(.orc_unwind)) __stop_orc_unwind = .; }\n")
	b.WriteString("  /DISCARD/ : { *(.note.* .comment .eh_frame .discard* .orc_header .altinstr* .static_call_sites .return_sites .call_sites .retpoline_sites .ibt_endbr_seal __ex_table .gnu.attributes .riscv.attributes .rela.* .iplt) }\n")
	b.WriteString("}\n")
	for i, h := range hosts {
		fmt.Fprintf(&b, "PROVIDE(%s = %#x);\n", h, HostAddr(a, i))
	}
	return b.String()
}
