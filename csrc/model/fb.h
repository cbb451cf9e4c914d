/* fb.h - flatbuffer primitives: checked openers for the verifier, plain readers after it.
**
** The pl_fb_check_* functions prove that an object lies inside the bytes and is aligned;
** on failure they return PL_ERR_MODEL with a short reason ("string not terminated") that
** the verifier prefixes with the table, index and field. The plain readers (pl_fb_table,
** pl_fb_vec, ...) do no checking: call them only on objects the verifier has checked. */
#ifndef PL_MODEL_FB_H
#define PL_MODEL_FB_H

#include <stdint.h>

#include "picolite/pl_status.h"
#include "picolite/pl_view.h"

/* The whole buffer the offsets are relative to. */
typedef struct pl_fb {
    const uint8_t *buf;
    uint32_t size;
} pl_fb;

/* Checked openers (verifier side). Absent optional objects are not errors: an absent
** table has buf == NULL, an absent vector or string is empty. */
pl_status pl_fb_check_table(pl_fb fb, uint32_t pos, pl_table *out, pl_error *err);
/* A present scalar field of width bytes must lie inside the table and be aligned. */
pl_status pl_fb_check_field(const pl_table *t, uint32_t field, uint32_t width, pl_error *err);
/* Follows the uoffset in field; *pos is 0 when the field is absent. */
pl_status pl_fb_check_ref(const pl_table *t, uint32_t field, uint32_t *pos, pl_error *err);
pl_status pl_fb_check_vector(pl_fb fb, uint32_t pos, uint32_t elem, pl_vec *out, pl_error *err);
pl_status pl_fb_check_string(pl_fb fb, uint32_t pos, pl_bytes *out, pl_error *err);
pl_status pl_fb_check_vec_field(const pl_table *t, uint32_t field, uint32_t elem, pl_vec *out,
                                pl_error *err);
pl_status pl_fb_check_str_field(const pl_table *t, uint32_t field, pl_bytes *out,
                                pl_error *err);
pl_status pl_fb_check_table_field(const pl_table *t, uint32_t field, pl_table *out,
                                  pl_error *err);
/* Element i of a checked vector of table offsets. */
pl_status pl_fb_check_table_elem(pl_fb fb, pl_vec v, uint32_t i, pl_table *out, pl_error *err);

/* Bytes of the table's inline part (from its vtable). */
uint32_t pl_fb_table_bytes(const pl_table *t);

/* Plain readers (accessor side): only on verified objects. Inline on 64-bit hosts, one
** out-of-line copy on 32-bit devices (fb_readers.h). */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define PL_FB_READERS_INLINE 1
#define PL_FB_READER static inline
#include "model/fb_readers.h"
#undef PL_FB_READER
#else
#define PL_FB_READERS_INLINE 0
pl_table pl_fb_table(pl_fb fb, uint32_t pos);
pl_table pl_fb_table_elem(pl_fb fb, pl_vec v, uint32_t i);
pl_table pl_fb_subtable(const pl_table *t, uint32_t field);
pl_vec pl_fb_vec(const pl_table *t, uint32_t field);
pl_bytes pl_fb_str(const pl_table *t, uint32_t field);
uint32_t pl_fb_u32(const pl_table *t, uint32_t field, uint32_t dflt);
uint64_t pl_fb_u64(const pl_table *t, uint32_t field, uint64_t dflt);
#endif

#endif
