/* inline.h - what the SIMD kernels' per-block helpers need so their sums stay in registers:
** a helper called with a constant row or point count must be inlined (the compilers do not
** always do it unasked) and its loops over those rows unrolled (else the sums live in a stack
** array, loaded and stored around every multiply-add). */
#ifndef PL_FAST_INLINE_H
#define PL_FAST_INLINE_H

#define PL_FAST_INLINE static inline __attribute__((always_inline))

/* Before a loop over a block's rows: unrolled completely where the count is a constant. Each
** compiler has its own spelling (and clang's partial unrolling of the callee would spoil it). */
#if defined(__clang__)
#define PL_FAST_UNROLL _Pragma("clang loop unroll(full)")
#else
#define PL_FAST_UNROLL _Pragma("GCC unroll 16")
#endif

#endif
