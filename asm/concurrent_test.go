package asm_test

import (
	"sync"
	"testing"

	"trampemu/asm"
	"trampemu/regs"
)

// TestDecodeConcurrently: machines of every arch disassemble at once
// (parallel tests, check's workers); under -race this proves the decoders
// share no unguarded state (arm64asm keeps a package-level coverage table).
func TestDecodeConcurrently(t *testing.T) {
	code := map[string][]byte{
		"x86_64":  {0x48, 0x89, 0x44, 0x24, 0x08},       // mov %rax,0x8(%rsp)
		"s390x":   {0xeb, 0x6f, 0xf0, 0x30, 0x00, 0x24}, // stmg %r6,%r15,48(%r15)
		"arm64":   {0xfd, 0x7b, 0xbf, 0xa9},             // stp x29, x30, [sp, #-16]!
		"riscv64": {0x23, 0x34, 0x11, 0x00},             // sd ra,8(sp)
	}
	for _, a := range regs.Arches {
		b, ok := code[a.Name]
		if !ok {
			t.Fatalf("no sample instruction for %s", a.Name)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := asm.NewDisassembler(a, nil)
				for i := 0; i < 200; i++ {
					in, err := d.Decode(b, 0x1000)
					if err != nil || in.Stores == 0 {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("%s: decode failed or lost its store: %v", a.Name, err)
		}
	}
}
