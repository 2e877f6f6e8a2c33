#include "textflag.h"

// func callNative(fn, stack, a0, a1 uintptr)
//
// Calls fn(a0, a1) with the System V calling convention on the stack
// whose top is stack (16-byte aligned, mapped by the caller), and returns
// to Go on the goroutine's stack. Every register Go may rely on is saved
// on the native stack around the call.
TEXT ·callNative(SB), NOSPLIT, $0-32
	MOVQ	fn+0(FP), AX
	MOVQ	stack+8(FP), CX
	MOVQ	a0+16(FP), DI
	MOVQ	a1+24(FP), SI
	MOVQ	SP, DX
	MOVQ	CX, SP
	PUSHQ	DX
	PUSHQ	BP
	PUSHQ	BX
	PUSHQ	R12
	PUSHQ	R13
	PUSHQ	R14
	PUSHQ	R15
	SUBQ	$8, SP // 8 words pushed: sp stays 16-byte aligned at the call
	CALL	AX
	ADDQ	$8, SP
	POPQ	R15
	POPQ	R14
	POPQ	R13
	POPQ	R12
	POPQ	BX
	POPQ	BP
	POPQ	DX
	MOVQ	DX, SP
	RET
