#include "textflag.h"

// func foldPairAVX2(b []byte, a, c byte) int
//
// The first i with b[i]|0x20 == a and b[i+1]|0x20 == c among the i whose
// 32-byte block [i, i+33) lies within b, 32 places a step; -1 when none.
TEXT ·foldPairAVX2(SB), NOSPLIT, $0-40
	MOVQ         b_base+0(FP), SI
	MOVQ         b_len+8(FP), BX
	MOVBLZX      a+24(FP), AX
	MOVBLZX      c+25(FP), CX
	MOVQ         AX, X1
	VPBROADCASTB X1, Y1
	MOVQ         CX, X2
	VPBROADCASTB X2, Y2
	MOVQ         $0x20, DX
	MOVQ         DX, X3
	VPBROADCASTB X3, Y3
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
