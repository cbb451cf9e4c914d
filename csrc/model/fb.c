/* fb.c - flatbuffer primitives: checked openers for the verifier, plain readers after it.
**
** Positions are byte offsets from the start of the buffer, kept as integers and compared
** in 64 bits against the size, so no pointer is formed before its bytes are proven inside. */
#include "model/fb.h"

#include <stddef.h>

/* uoffsets above this could wrap when added to a position (the flatbuffers rule). */
#define MAX_UOFFSET 0x7fffffffu

/* The vtable at vt: inside the buffer, 2-aligned, an even size >= 4. */
static pl_status check_vtable(pl_fb fb, int64_t vt, pl_error *err)
{
    if (vt < 0 || vt + 4 > (int64_t)fb.size)
        return pl_error_set(err, PL_ERR_MODEL, "vtable at byte %lld is outside the %u-byte buffer",
                            (long long)vt, fb.size);
    if (vt % 2 != 0)
        return pl_error_set(err, PL_ERR_MODEL, "vtable at byte %lld is not 2-byte aligned",
                            (long long)vt);
    uint32_t vt_bytes = pl_le16(fb.buf + vt);
    if (vt_bytes < 4u || vt_bytes % 2u != 0)
        return pl_error_set(err, PL_ERR_MODEL, "vtable size %u is invalid (even and >= 4)",
                            vt_bytes);
    if (vt + vt_bytes > (int64_t)fb.size)
        return pl_error_set(err, PL_ERR_MODEL,
                            "vtable of %u bytes at byte %lld runs past the buffer end (%u)",
                            vt_bytes, (long long)vt, fb.size);
    return PL_OK;
}

/* Every present field starts inside the table's inline bytes (widths are checked per field
** by pl_fb_check_field; this covers fields of option tables the verifier does not know). */
static pl_status check_entries(const pl_table *t, uint32_t tbl_bytes, pl_error *err)
{
    for (uint32_t at = 4; at < t->vt_bytes; at += 2) {
        uint32_t off = pl_le16(t->buf + t->vtable + at);
        if (off != 0 && (off < 4u || off >= tbl_bytes))
            return pl_error_set(err, PL_ERR_MODEL,
                                "field %u at table byte %u is outside the table's %u bytes",
                                (at - 4u) / 2u, off, tbl_bytes);
    }
    return PL_OK;
}

pl_status pl_fb_check_table(pl_fb fb, uint32_t pos, pl_table *out, pl_error *err)
{
    if (pos % 4u != 0)
        return pl_error_set(err, PL_ERR_MODEL, "table at byte %u is not 4-byte aligned", pos);
    if ((uint64_t)pos + 4u > fb.size)
        return pl_error_set(err, PL_ERR_MODEL, "table at byte %u is outside the %u-byte buffer",
                            pos, fb.size);
    /* soffset: the vtable may sit before or after the table */
    int64_t vt = (int64_t)pos - (int32_t)pl_le32(fb.buf + pos);
    PL_TRY(check_vtable(fb, vt, err));
    uint32_t tbl_bytes = pl_le16(fb.buf + vt + 2);
    if (tbl_bytes < 4u || (uint64_t)pos + tbl_bytes > fb.size)
        return pl_error_set(err, PL_ERR_MODEL,
                            "table size %u at byte %u is invalid (>= 4, inside %u bytes)",
                            tbl_bytes, pos, fb.size);
    *out = (pl_table){fb.buf, fb.size, pos, (uint32_t)vt, pl_le16(fb.buf + vt)};
    return check_entries(out, tbl_bytes, err);
}

uint32_t pl_fb_table_bytes(const pl_table *t)
{
    return pl_le16(t->buf + t->vtable + 2);
}

pl_status pl_fb_check_field(const pl_table *t, uint32_t field, uint32_t width, pl_error *err)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0)
        return PL_OK;
    uint32_t tbl_bytes = pl_fb_table_bytes(t);
    if (off < 4u || off + width > tbl_bytes)
        return pl_error_set(err, PL_ERR_MODEL,
                            "field %u (%u bytes at table byte %u) is outside the table's %u bytes",
                            field, width, off, tbl_bytes);
    if ((t->pos + off) % width != 0)
        return pl_error_set(err, PL_ERR_MODEL, "field %u at byte %u is not %u-byte aligned", field,
                            t->pos + off, width);
    return PL_OK;
}

pl_status pl_fb_check_ref(const pl_table *t, uint32_t field, uint32_t *pos, pl_error *err)
{
    *pos = 0;
    PL_TRY(pl_fb_check_field(t, field, 4, err));
    uint32_t off = pl_table_field(t, field);
    if (off == 0)
        return PL_OK;
    uint32_t at = t->pos + off;
    uint32_t rel = pl_le32(t->buf + at);
    if (rel == 0 || rel > MAX_UOFFSET || (uint64_t)at + rel >= t->size)
        return pl_error_set(err, PL_ERR_MODEL,
                            "offset %u at byte %u points outside the %u-byte buffer", rel, at,
                            t->size);
    *pos = at + rel;
    return PL_OK;
}

pl_status pl_fb_check_vector(pl_fb fb, uint32_t pos, uint32_t elem, pl_vec *out, pl_error *err)
{
    if (pos % 4u != 0)
        return pl_error_set(err, PL_ERR_MODEL, "vector at byte %u is not 4-byte aligned", pos);
    if ((uint64_t)pos + 4u > fb.size)
        return pl_error_set(err, PL_ERR_MODEL, "vector at byte %u is outside the %u-byte buffer",
                            pos, fb.size);
    uint32_t n = pl_le32(fb.buf + pos);
    if ((uint64_t)pos + 4u + (uint64_t)n * elem > fb.size)
        return pl_error_set(err, PL_ERR_MODEL,
                            "vector of %u x %u bytes at byte %u runs past the buffer end (%u)", n,
                            elem, pos, fb.size);
    if (elem > 4u && (pos + 4u) % elem != 0)
        return pl_error_set(err, PL_ERR_MODEL,
                            "vector elements at byte %u are not %u-byte aligned", pos + 4u, elem);
    *out = (pl_vec){fb.buf + pos + 4u, n};
    return PL_OK;
}

pl_status pl_fb_check_string(pl_fb fb, uint32_t pos, pl_bytes *out, pl_error *err)
{
    pl_vec v = {NULL, 0};
    PL_TRY(pl_fb_check_vector(fb, pos, 1, &v, err));
    uint64_t nul = (uint64_t)pos + 4u + v.n;
    if (nul >= fb.size || fb.buf[nul] != 0)
        return pl_error_set(err, PL_ERR_MODEL, "string not terminated");
    *out = (pl_bytes){v.p, v.n};
    return PL_OK;
}

pl_status pl_fb_check_vec_field(const pl_table *t, uint32_t field, uint32_t elem, pl_vec *out,
                                pl_error *err)
{
    uint32_t pos;
    *out = (pl_vec){NULL, 0};
    PL_TRY(pl_fb_check_ref(t, field, &pos, err));
    if (pos == 0)
        return PL_OK;
    return pl_fb_check_vector((pl_fb){t->buf, t->size}, pos, elem, out, err);
}

pl_status pl_fb_check_str_field(const pl_table *t, uint32_t field, pl_bytes *out,
                                pl_error *err)
{
    uint32_t pos;
    *out = (pl_bytes){NULL, 0};
    PL_TRY(pl_fb_check_ref(t, field, &pos, err));
    if (pos == 0)
        return PL_OK;
    return pl_fb_check_string((pl_fb){t->buf, t->size}, pos, out, err);
}

pl_status pl_fb_check_table_field(const pl_table *t, uint32_t field, pl_table *out,
                                  pl_error *err)
{
    uint32_t pos;
    *out = (pl_table){NULL, 0, 0, 0, 0};
    PL_TRY(pl_fb_check_ref(t, field, &pos, err));
    if (pos == 0)
        return PL_OK;
    return pl_fb_check_table((pl_fb){t->buf, t->size}, pos, out, err);
}

pl_status pl_fb_check_table_elem(pl_fb fb, pl_vec v, uint32_t i, pl_table *out, pl_error *err)
{
    /* The vector was checked, so its element bytes lie inside fb. */
    uint32_t at = (uint32_t)(v.p - fb.buf) + 4u * i;
    uint32_t rel = pl_le32(v.p + 4u * i);
    if (rel == 0 || rel > MAX_UOFFSET || (uint64_t)at + rel >= fb.size)
        return pl_error_set(err, PL_ERR_MODEL,
                            "offset %u at byte %u points outside the %u-byte buffer", rel, at,
                            fb.size);
    return pl_fb_check_table(fb, at + rel, out, err);
}

#if !PL_FB_READERS_INLINE /* 32-bit devices: one copy of each plain reader */
#define PL_FB_READER
#include "model/fb_readers.h"
#endif

/* Option tables are read by kernels with fields the verifier may not know, so this reader
** checks everything itself and degrades to an empty vector. */
pl_vec pl_table_vec(const pl_table *t, uint32_t field, uint32_t elem)
{
    pl_vec v = {NULL, 0};
    if (t == NULL || t->buf == NULL || elem == 0)
        return v;
    if (pl_fb_check_vec_field(t, field, elem, &v, NULL) != PL_OK)
        return (pl_vec){NULL, 0};
    return v;
}
