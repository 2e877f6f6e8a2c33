package asm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"trampemu/sandbox"
)

// Preprocess runs the C preprocessor on one source exactly as Build does
// (the prelude, asm/asm-offsets.h, opt.Headers, s.Headers, opt.Defines and
// s.Defines) and returns its output, linemarkers included. Headers from
// opt.Headers and s.Headers are named by their own name in the linemarkers ("#
// 12 \"mcount_regs.h\""), not by the temporary folder Build puts them in,
// so a caller can map every output line back to the file and line it came
// from. Errors are *Error (stage "preprocess NAME") or *ToolError.
func Preprocess(opt Options, s Source) ([]byte, error) {
	if opt.Arch == nil {
		return nil, errors.New("asm: no architecture given")
	}
	opt, srcs := absolute(opt, []Source{s})
	s = srcs[0]
	cppPath, err := exec.LookPath("cpp")
	if err != nil {
		return nil, &ToolError{Program: "cpp", Package: "cpp"}
	}
	dir, done, err := sandbox.TempDir("trampemu-cpp-")
	if err != nil {
		return nil, fmt.Errorf("asm: %w", err)
	}
	defer done()
	inc := filepath.Join(dir, "include")
	if err := writeIncludes(inc, opt.Arch, s, opt); err != nil {
		return nil, err
	}
	out, err := preprocess(cppPath, dir, inc, opt.Arch, opt, s, "src0")
	if err != nil {
		return nil, err
	}
	text, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("asm: %w", err)
	}
	// The temporary names: the copy of the source cpp read, the include
	// folder.
	t := strings.ReplaceAll(string(text), filepath.Join(dir, "src0.S"), s.Name)
	return []byte(strings.ReplaceAll(t, inc+string(filepath.Separator), "")), nil
}
