/* lut8_avx512.c - the 256-byte table lookup with AVX-512 VBMI: VPERMI2B picks from 128
** bytes by the index's low 7 bits, so two of them cover the table's halves and the index's
** top bit chooses between them; 64 bytes per step, the last ones masked. Built with the
** avx512 set's flags; VBMI is enabled here alone and run only when the CPU has it. */
#include <immintrin.h>

#include "fast/lut8.h"

__attribute__((target("avx512vbmi"))) void pl_lut8_avx512vbmi(const uint8_t table[256],
                                                               const uint8_t *in,
                                                               uint8_t *out, size_t n)
{
    const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
    const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
    for (size_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
        __m512i x = _mm512_maskz_loadu_epi8(m, in + i);
        __m512i low = _mm512_permutex2var_epi8(t0, x, t1);
        __m512i high = _mm512_permutex2var_epi8(t2, x, t3);
        __m512i y = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
        _mm512_mask_storeu_epi8(out + i, m, y);
    }
}
