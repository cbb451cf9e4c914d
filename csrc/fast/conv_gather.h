/* conv_gather.h - CONV_2D's int8 windows gathered as rows (im2col) for the int8 matrix
** product (gemm.h), shared by the int8 and hybrid convolutions. */
#ifndef PL_FAST_CONV_GATHER_H
#define PL_FAST_CONV_GATHER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/conv/conv_fast.h"

/* Bytes past the gathered rows that a short run's whole copy (int8: 16 bytes, float: quads)
** or a short row's padding (16 bytes) may write into. */
#define PL_FAST_GATHER_SPILL 16

/* dst[i] = src[i] + 128 as unsigned bytes, eight at a time. */
static inline void pl_fast_copy_flipped(uint8_t *dst, const int8_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, src + i, 8);
        v ^= 0x8080808080808080ull;
        memcpy(dst + i, &v, 8);
    }
    for (; i < n; i++)
        dst[i] = (uint8_t)((uint8_t)src[i] ^ 0x80u);
}

/* The rows (*hp) and columns (*wp) every window together spans, from the padded top-left
** corner. */
void pl_fast_conv_window_extent(const pl_conv_params *p, const int32_t *f_dims,
                                const int32_t *out_dims, int64_t *hp, int64_t *wp);

/* Each window tap's offset from its window's origin, in (fy, fx, channel) order, in an
** image src_w pixels of c values wide (run_taps' win->tap). */
void pl_fast_conv_fill_taps(const pl_conv_params *p, const int32_t *f_dims, int32_t c,
                            int32_t src_w, int32_t *tap_at);

/* The window origins of rows output points (out_dims' order) from first on in a padded
** image at base: images plane bytes apart, rows line bytes, neighbouring windows step bytes
** and stride_h rows apart (run_taps' win->origin). The first is computed, the others
** stepped to: multiplies per point had been 6% of a 3x3 layer's time. */
void pl_fast_conv_origins(const uint8_t *base, size_t plane, size_t line, size_t step,
                          int32_t stride_h, const int32_t *out_dims, size_t first, int32_t rows,
                          const uint8_t **origin);

/* Where the rows go: rows of kp bytes (k taps x channels, then zeros), a padded tap holding
** pad (the input's zero point + 128). a has PL_FAST_GATHER_SPILL bytes of room past them. */
typedef struct pl_gather_s8 {
    uint8_t *a;
    int32_t k, kp;
    uint8_t pad;
} pl_gather_s8;

/* The windows of output points first.. first + rows - 1 (NHWC order) of in (in_bytes
** bytes), each tap as its value + 128 (an unsigned byte). */
void pl_fast_conv_gather_s8(const pl_conv_params *p, const pl_gather_s8 *g,
                            const int32_t *in_dims, const int8_t *in, size_t in_bytes,
                            const int32_t *f_dims, const int32_t *out_dims, size_t first,
                            int32_t rows);

#endif
