/* pl_view.h - zero-copy, read-only views of verified model bytes.
**
** A view is created by the model reader (csrc/model) only after the verifier has checked
** that its bytes lie inside the model, so reading element i < n is always in bounds.
** Elements are little-endian in the file; the readers assemble them byte by byte, so
** views need no alignment and never cast file bytes to C types. */
#ifndef PL_VIEW_H
#define PL_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n little-endian elements starting at p (p may be NULL when n is 0). */
typedef struct pl_vec {
    const uint8_t *p;
    uint32_t n;
} pl_vec;

/* A byte string (flatbuffer [ubyte] or string; strings are not NUL-terminated here). */
typedef struct pl_bytes {
    const uint8_t *p;
    uint32_t n;
} pl_bytes;

/* A flatbuffer table: the whole buffer, the table's position and its vtable.
** An absent table has buf == NULL; every field of it reads as its default. */
typedef struct pl_table {
    const uint8_t *buf;
    uint32_t size;     /* bytes in buf */
    uint32_t pos;      /* offset of the table in buf */
    uint32_t vtable;   /* offset of the vtable in buf */
    uint16_t vt_bytes; /* size of the vtable in bytes */
} pl_table;

static inline uint16_t pl_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t pl_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t pl_le64(const uint8_t *p)
{
    return (uint64_t)pl_le32(p) | ((uint64_t)pl_le32(p + 4) << 32);
}

static inline float pl_lef32(const uint8_t *p)
{
    uint32_t u = pl_le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Element readers: i must be < v.n (views come from the verifier, so callers only check i). */
static inline int32_t pl_vec_i32(pl_vec v, uint32_t i)
{
    return (int32_t)pl_le32(v.p + 4u * i);
}

static inline int64_t pl_vec_i64(pl_vec v, uint32_t i)
{
    return (int64_t)pl_le64(v.p + 8u * i);
}

static inline float pl_vec_f32(pl_vec v, uint32_t i)
{
    return pl_lef32(v.p + 4u * i);
}

static inline uint8_t pl_vec_u8(pl_vec v, uint32_t i)
{
    return v.p[i];
}

/* Offset of field `field` (0-based schema field id) inside the table, or 0 when absent. */
static inline uint32_t pl_table_field(const pl_table *t, uint32_t field)
{
    uint32_t at = 4u + 2u * field;
    if (t->buf == NULL || at + 2u > t->vt_bytes)
        return 0;
    return pl_le16(t->buf + t->vtable + at);
}

/* Scalar field readers. The verifier checked every present field of every table it visits
** lies inside the table's bytes, so these read in bounds or return the default. */
static inline int32_t pl_table_i32(const pl_table *t, uint32_t field, int32_t dflt)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0 || (uint64_t)t->pos + off + 4u > t->size)
        return dflt;
    return (int32_t)pl_le32(t->buf + t->pos + off);
}

static inline int32_t pl_table_i16(const pl_table *t, uint32_t field, int32_t dflt)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0 || (uint64_t)t->pos + off + 2u > t->size)
        return dflt;
    return (int16_t)pl_le16(t->buf + t->pos + off);
}

/* int8/uint8/bool/enum(byte) fields. */
static inline int32_t pl_table_i8(const pl_table *t, uint32_t field, int32_t dflt)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0 || (uint64_t)t->pos + off + 1u > t->size)
        return dflt;
    return (int8_t)t->buf[t->pos + off];
}

static inline int32_t pl_table_u8(const pl_table *t, uint32_t field, int32_t dflt)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0 || (uint64_t)t->pos + off + 1u > t->size)
        return dflt;
    return t->buf[t->pos + off];
}

static inline bool pl_table_bool(const pl_table *t, uint32_t field, bool dflt)
{
    return pl_table_u8(t, field, dflt ? 1 : 0) != 0;
}

static inline float pl_table_f32(const pl_table *t, uint32_t field, float dflt)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0 || (uint64_t)t->pos + off + 4u > t->size)
        return dflt;
    return pl_lef32(t->buf + t->pos + off);
}

/* A vector-of-scalars field ([int] etc.) of element size elem; empty when absent or when it
** does not fit the buffer (the verifier rejects the latter for known option fields). */
pl_vec pl_table_vec(const pl_table *t, uint32_t field, uint32_t elem);

#ifdef __cplusplus
}
#endif

#endif
