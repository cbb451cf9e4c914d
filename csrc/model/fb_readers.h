/* fb_readers.h - the flatbuffer's plain readers (fb.h), written once: fb.h includes them as
** static inline functions on 64-bit hosts (each node's invoke reads a dozen fields: inline,
** pl_context_node takes 234 instructions a node instead of 403, and an unrolled 230-node
** int8 GRU 21 us instead of 24), fb.c as the one out-of-line copy on 32-bit devices, whose
** code size counts. The includer defines PL_FB_READER (static inline, or nothing). */

PL_FB_READER pl_table pl_fb_table(pl_fb fb, uint32_t pos)
{
    uint32_t vt = pos - pl_le32(fb.buf + pos); /* soffset, modulo 2^32 */
    return (pl_table){fb.buf, fb.size, pos, vt, pl_le16(fb.buf + vt)};
}

PL_FB_READER pl_table pl_fb_table_elem(pl_fb fb, pl_vec v, uint32_t i)
{
    uint32_t at = (uint32_t)(v.p - fb.buf) + 4u * i;
    return pl_fb_table(fb, at + pl_le32(v.p + 4u * i));
}

PL_FB_READER pl_table pl_fb_subtable(const pl_table *t, uint32_t field)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0)
        return (pl_table){NULL, 0, 0, 0, 0};
    uint32_t at = t->pos + off;
    return pl_fb_table((pl_fb){t->buf, t->size}, at + pl_le32(t->buf + at));
}

PL_FB_READER pl_vec pl_fb_vec(const pl_table *t, uint32_t field)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0)
        return (pl_vec){NULL, 0};
    uint32_t at = t->pos + off;
    uint32_t vp = at + pl_le32(t->buf + at);
    return (pl_vec){t->buf + vp + 4u, pl_le32(t->buf + vp)};
}

PL_FB_READER pl_bytes pl_fb_str(const pl_table *t, uint32_t field)
{
    pl_vec v = pl_fb_vec(t, field);
    return (pl_bytes){v.p, v.n};
}

PL_FB_READER uint32_t pl_fb_u32(const pl_table *t, uint32_t field, uint32_t dflt)
{
    return (uint32_t)pl_table_i32(t, field, (int32_t)dflt);
}

PL_FB_READER uint64_t pl_fb_u64(const pl_table *t, uint32_t field, uint64_t dflt)
{
    uint32_t off = pl_table_field(t, field);
    if (off == 0 || (uint64_t)t->pos + off + 8u > t->size)
        return dflt;
    return pl_le64(t->buf + t->pos + off);
}
