/* padding.h - output size and padding of windowed ops, as TFLite's padding.h defines them. */
#ifndef PL_KERNELS_PADDING_H
#define PL_KERNELS_PADDING_H

#include <stdint.h>

/* The schema's Padding enum. */
enum { PL_PADDING_SAME = 0, PL_PADDING_VALID = 1 };

/* TFLite ComputeOutSize: 0 for stride 0 or an unknown padding. */
static inline int32_t pl_pad_out_size(int32_t padding, int32_t in, int32_t filter,
                                      int32_t stride, int32_t dilation)
{
    /* in 64 bits: hostile filters and dilations must not overflow (kernels then refuse the
    ** model's output shape, which cannot match) */
    int64_t effective = ((int64_t)filter - 1) * dilation + 1;
    int64_t out = 0;
    if (stride <= 0)
        return 0;
    if (padding == PL_PADDING_SAME)
        out = ((int64_t)in + stride - 1) / stride;
    else if (padding == PL_PADDING_VALID)
        out = ((int64_t)in + stride - effective) / stride;
    return out < 0 ? -1 : out > INT32_MAX ? INT32_MAX : (int32_t)out;
}

/* TFLite ComputePaddingWithOffset: the leading padding; *offset gets the odd remainder. */
static inline int32_t pl_pad_before(int32_t stride, int32_t dilation, int32_t in,
                                    int32_t filter, int32_t out, int32_t *offset)
{
    int64_t effective = ((int64_t)filter - 1) * dilation + 1;
    int64_t total = ((int64_t)out - 1) * stride + effective - in;
    total = total < 0 ? 0 : total > INT32_MAX ? INT32_MAX : total;
    if (offset != 0)
        *offset = (int32_t)(total % 2);
    return (int32_t)(total / 2);
}

/* The in-bounds taps of one window axis: [*lo, *hi) for a window starting at origin over an
** input of `size`. TFLite skips out-of-input taps, so clipping a loop's bounds this way
** keeps its tap order and its results. */
static inline void pl_pad_clip_taps(int32_t origin, int32_t dilation, int32_t size,
                                    int32_t taps, int32_t *lo, int32_t *hi)
{
    int32_t room = size - origin;
    int32_t end = room <= 0 ? 0 : (room - 1) / dilation + 1;
    *lo = origin < 0 ? (-origin + dilation - 1) / dilation : 0;
    *hi = end < taps ? end : taps;
}

#endif
