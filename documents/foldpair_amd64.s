#include "textflag.h"

DATA lower<>+0(SB)/1, $0x20
GLOBL lower<>(SB), RODATA|NOPTR, $1

// func foldPairAVX2(b []byte, a, c byte) int
//
// The first i with b[i]|0x20 == a and b[i+1]|0x20 == c among the i whose
// 32-byte block [i, i+33) lies within b, 32 places a step; -1 when none.
// Every vector instruction is VEX-encoded, the broadcasts from memory: a
// legacy SSE MOVQ into an X register, between the VZEROUPPER of one call
// and the AVX of the next, cost some 350 ns a call on a virtual Xeon,
// and a case-folded search calls once per false candidate.
TEXT ·foldPairAVX2(SB), NOSPLIT, $0-40
	MOVQ         b_base+0(FP), SI
	MOVQ         b_len+8(FP), BX
	VPBROADCASTB a+24(FP), Y1
	VPBROADCASTB c+25(FP), Y2
	VPBROADCASTB lower<>(SB), Y3
	XORQ         DI, DI
	SUBQ         $33, BX // the last block starts at len(b)-33
	JL           none

loop:
	CMPQ      DI, BX
	JGT       none
	VMOVDQU   (SI)(DI*1), Y4
	VMOVDQU   1(SI)(DI*1), Y5
	VPOR      Y3, Y4, Y4
	VPOR      Y3, Y5, Y5
	VPCMPEQB  Y1, Y4, Y4
	VPCMPEQB  Y2, Y5, Y5
	VPAND     Y4, Y5, Y4
	VPMOVMSKB Y4, DX
	TESTL     DX, DX
	JNZ       found
	ADDQ      $32, DI
	JMP       loop

found:
	BSFL       DX, DX
	ADDQ       DX, DI
	MOVQ       DI, ret+32(FP)
	VZEROUPPER
	RET

none:
	MOVQ       $-1, ret+32(FP)
	VZEROUPPER
	RET
