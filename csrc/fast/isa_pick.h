/* isa_pick.h - a kernel's table for an instruction set, picked from its per-set tables:
** one dispatch written once for every fast kernel (the tables differ, the choice does not). */
#ifndef PL_FAST_ISA_PICK_H
#define PL_FAST_ISA_PICK_H

#include "picolite/pl_fast.h"

/* Returns the argument of isa's set from the enclosing function (x86: avx512, avx2, sse41;
** Arm: neon, neon_dot); another set falls through to the statement after it. */
#if defined(PL_FAST_X86)
#define PL_FAST_PICK(isa, avx512, avx2, sse41, neon, neon_dot)                              \
    if ((isa) == PL_ISA_AVX512 || (isa) == PL_ISA_AVX2 || (isa) == PL_ISA_SSE41)          \
    return (isa) == PL_ISA_AVX512 ? (avx512) : (isa) == PL_ISA_AVX2 ? (avx2) : (sse41)
#elif defined(PL_FAST_ARM64)
#define PL_FAST_PICK(isa, avx512, avx2, sse41, neon, neon_dot)                              \
    if ((isa) == PL_ISA_NEON || (isa) == PL_ISA_NEON_DOT)                                 \
    return (isa) == PL_ISA_NEON_DOT ? (neon_dot) : (neon)
#else
#define PL_FAST_PICK(isa, avx512, avx2, sse41, neon, neon_dot) (void)(isa)
#endif

/* A kernel's per-set tables, one for each set with its own (NEON_DOT takes NEON's). */
#define PL_FAST_TABLES(type, name)                                                         \
    extern const type name##_avx512, name##_avx2, name##_sse41, name##_neon

#endif
