/* kernel_tests.h - what the kernel tests built on kernel_harness.h share: options tables
** and one-call tensors. Test code only. */
#ifndef PL_TEST_KERNEL_TESTS_H
#define PL_TEST_KERNEL_TESTS_H

#include <stdint.h>
#include <string.h>

#include "kernel_harness.h"

/* A flatbuffer options table with fields 0..n-1 present, each stored in 4 bytes
** (byte-sized fields read the low byte, little-endian). */
typedef struct kt_opts {
    _Alignas(4) uint8_t buf[128];
    pl_table t;
} kt_opts;

static inline const pl_table *kt_make_opts(kt_opts *o, const int32_t *fields, uint32_t n)
{
    uint32_t vt_bytes = 4u + 2u * n, pos = (vt_bytes + 3u) & ~3u;
    memset(o->buf, 0, sizeof o->buf);
    o->buf[0] = (uint8_t)vt_bytes;
    o->buf[2] = (uint8_t)(4u + 4u * n);
    o->buf[pos] = (uint8_t)pos; /* soffset: the vtable sits pos bytes before the table */
    for (uint32_t i = 0; i < n; i++) {
        o->buf[4 + 2 * i] = (uint8_t)(4u + 4u * i);
        uint32_t v = (uint32_t)fields[i];
        for (uint32_t b = 0; b < 4; b++)
            o->buf[pos + 4 + 4 * i + b] = (uint8_t)(v >> (8 * b));
    }
    o->t.buf = o->buf;
    o->t.size = sizeof o->buf;
    o->t.pos = pos;
    o->t.vtable = 0;
    o->t.vt_bytes = (uint16_t)vt_bytes;
    return &o->t;
}

static inline int32_t kt_tensor_f32(int32_t ndims, const int32_t *dims, float *data, size_t n)
{
    return kh_tensor(PL_FLOAT32, ndims, dims, data, n * sizeof(float), NULL, NULL, 0, 0);
}

/* A per-tensor quantized tensor. */
static inline int32_t kt_tensor_q(pl_type type, int32_t ndims, const int32_t *dims, void *data,
                                  size_t bytes, float scale, int64_t zp)
{
    return kh_tensor(type, ndims, dims, data, bytes, &scale, &zp, 1, 0);
}

#endif
