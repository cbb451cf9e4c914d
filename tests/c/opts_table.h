/* opts_table.h - hand-built flatbuffer options tables for kernel tests. Test code only. */
#ifndef PL_TEST_OPTS_TABLE_H
#define PL_TEST_OPTS_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "picolite/pl_view.h"

/* A hand-built flatbuffer options table: int32 slots (OPT_ABSENT = field not present) and
** optionally one [int] vector field. Small values read back through i8/bool readers too. */
#define OPT_ABSENT INT32_MIN

typedef struct opt_buf {
    _Alignas(8) uint8_t b[512];
} opt_buf;

static inline void put_le(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline pl_table make_opts_vec(opt_buf *o, int n, const int32_t *vals, int vec_field,
                              const int32_t *vec, uint32_t vec_n)
{
    memset(o, 0, sizeof *o);
    uint32_t vt_bytes = 4u + 2u * (uint32_t)n, pos = (vt_bytes + 3u) & ~3u;
    uint32_t table_bytes = 4u + 4u * (uint32_t)n, vec_at = pos + table_bytes;
    put_le(o->b, vt_bytes, 2);
    put_le(o->b + 2, table_bytes, 2);
    put_le(o->b + pos, pos, 4); /* soffset: the vtable is at pos - pos = 0 */
    for (int k = 0; k < n; k++) {
        uint32_t at = pos + 4u + 4u * (uint32_t)k;
        bool present = k == vec_field || vals[k] != OPT_ABSENT;
        put_le(o->b + 4 + 2 * k, present ? 4u + 4u * (uint32_t)k : 0u, 2);
        if (k == vec_field) {
            put_le(o->b + at, vec_at - at, 4);
            put_le(o->b + vec_at, vec_n, 4);
            for (uint32_t i = 0; i < vec_n; i++)
                put_le(o->b + vec_at + 4 + 4 * i, (uint32_t)vec[i], 4);
        } else if (present) {
            put_le(o->b + at, (uint32_t)vals[k], 4);
        }
    }
    pl_table t = {o->b, vec_at + 4u + 4u * vec_n, pos, 0, (uint16_t)vt_bytes};
    return t;
}

static inline pl_table make_opts(opt_buf *o, int n, const int32_t *vals)
{
    return make_opts_vec(o, n, vals, -1, NULL, 0);
}

#endif
