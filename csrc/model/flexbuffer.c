/* flexbuffer.c - a bounds-checked FlexBuffer reader for custom operator options.
**
** Positions are byte offsets into the buffer, kept as integers and compared in 64 bits
** against its size; a pointer is formed only after its bytes are proven inside. */
#include "model/flexbuffer.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static bool valid_width(uint64_t w)
{
    return w == 1 || w == 2 || w == 4 || w == 8;
}

static bool known_type(uint32_t t)
{
    return t <= PL_FLEX_BOOL || t == PL_FLEX_VECTOR_BOOL;
}

/* Scalars live in the slot itself; everything else stores an offset back to its target. */
static bool is_inline(uint32_t t)
{
    return t == PL_FLEX_NULL || t == PL_FLEX_INT || t == PL_FLEX_UINT || t == PL_FLEX_FLOAT ||
           t == PL_FLEX_BOOL;
}

static pl_status check_span(const pl_flex *v, uint64_t pos, uint64_t bytes, pl_error *err)
{
    if (pos + bytes > v->size)
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: %llu bytes at byte %llu run past its %u bytes",
                            (unsigned long long)bytes, (unsigned long long)pos, v->size);
    return PL_OK;
}

static uint64_t read_u(const uint8_t *p, uint32_t w)
{
    uint64_t x = 0;
    for (uint32_t i = w; i-- > 0;)
        x = (x << 8) | p[i];
    return x;
}

static int64_t read_i(const uint8_t *p, uint32_t w)
{
    uint64_t x = read_u(p, w);
    uint64_t sign = (uint64_t)1 << (8u * w - 1u);
    if (!(x & sign))
        return (int64_t)x;
    return (int64_t)(x - sign) - (int64_t)(sign - 1u) - 1; /* no signed overflow */
}

/* Width 4 is a float and 8 a double; the format reads narrower floats as integers. */
static double read_f(const uint8_t *p, uint32_t w)
{
    if (w == 8) {
        uint64_t u = read_u(p, 8);
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    return w == 4 ? (double)pl_lef32(p) : (double)read_i(p, w);
}

/* The position an offset-typed value's slot points back to. */
static pl_status target(const pl_flex *v, uint32_t *out, pl_error *err)
{
    PL_TRY(check_span(v, v->pos, v->parent_width, err));
    uint64_t off = read_u(v->buf + v->pos, v->parent_width);
    if (off > v->pos)
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: offset %llu at byte %u points before the buffer",
                            (unsigned long long)off, v->pos);
    *out = v->pos - (uint32_t)off;
    return PL_OK;
}

/* Where a scalar's bytes are and how wide: the slot, or the target of an indirect. */
static pl_status scalar_at(const pl_flex *v, uint32_t *pos, uint32_t *w, pl_error *err)
{
    if (is_inline(v->type)) {
        *pos = v->pos;
        *w = v->parent_width;
    } else {
        PL_TRY(target(v, pos, err));
        *w = v->width;
    }
    return check_span(v, *pos, *w, err);
}

static pl_status not_a(const pl_flex *v, const char *what, pl_error *err)
{
    return pl_error_set(err, PL_ERR_MODEL, "flexbuffer: value at byte %u (type %u) is not %s",
                        v->pos, v->type, what);
}

pl_status pl_flex_root(pl_bytes data, pl_flex *out, pl_error *err)
{
    if (data.n < 3)
        return pl_error_set(err, PL_ERR_MODEL, "flexbuffer: %u bytes is too short (>= 3)",
                            data.n);
    uint32_t root_width = data.p[data.n - 1];
    uint32_t packed = data.p[data.n - 2];
    if (!valid_width(root_width) || (uint64_t)root_width + 2u > data.n)
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: root width %u is invalid (1, 2, 4 or 8 of %u bytes)",
                            root_width, data.n);
    if (!known_type(packed >> 2))
        return pl_error_set(err, PL_ERR_MODEL, "flexbuffer: root type %u is unknown",
                            packed >> 2);
    *out = (pl_flex){data.p, data.n, data.n - 2u - root_width, (uint8_t)root_width,
                     (uint8_t)(1u << (packed & 3u)), (uint8_t)(packed >> 2)};
    return PL_OK;
}

pl_status pl_flex_int(const pl_flex *v, int64_t *out, pl_error *err)
{
    uint32_t pos, w;
    switch (v->type) {
    case PL_FLEX_NULL:
        *out = 0;
        return PL_OK;
    case PL_FLEX_INT:
    case PL_FLEX_INDIRECT_INT:
    case PL_FLEX_BOOL:
        PL_TRY(scalar_at(v, &pos, &w, err));
        *out = read_i(v->buf + pos, w);
        return PL_OK;
    case PL_FLEX_UINT:
    case PL_FLEX_INDIRECT_UINT:
        PL_TRY(scalar_at(v, &pos, &w, err));
        *out = (int64_t)read_u(v->buf + pos, w);
        return PL_OK;
    case PL_FLEX_FLOAT:
    case PL_FLEX_INDIRECT_FLOAT: {
        PL_TRY(scalar_at(v, &pos, &w, err));
        double d = read_f(v->buf + pos, w);
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
            return pl_error_set(err, PL_ERR_MODEL,
                                "flexbuffer: float %g at byte %u is not a 64-bit integer", d,
                                pos);
        *out = (int64_t)d;
        return PL_OK;
    }
    default:
        return not_a(v, "a number", err);
    }
}

pl_status pl_flex_uint(const pl_flex *v, uint64_t *out, pl_error *err)
{
    uint32_t pos, w;
    if (v->type == PL_FLEX_UINT || v->type == PL_FLEX_INDIRECT_UINT) {
        PL_TRY(scalar_at(v, &pos, &w, err));
        *out = read_u(v->buf + pos, w);
        return PL_OK;
    }
    int64_t i;
    PL_TRY(pl_flex_int(v, &i, err));
    *out = (uint64_t)i;
    return PL_OK;
}

pl_status pl_flex_double(const pl_flex *v, double *out, pl_error *err)
{
    uint32_t pos, w;
    if (v->type == PL_FLEX_FLOAT || v->type == PL_FLEX_INDIRECT_FLOAT) {
        PL_TRY(scalar_at(v, &pos, &w, err));
        *out = read_f(v->buf + pos, w);
        return PL_OK;
    }
    if (v->type == PL_FLEX_UINT || v->type == PL_FLEX_INDIRECT_UINT) {
        uint64_t u;
        PL_TRY(pl_flex_uint(v, &u, err));
        *out = (double)u;
        return PL_OK;
    }
    int64_t i;
    PL_TRY(pl_flex_int(v, &i, err));
    *out = (double)i;
    return PL_OK;
}

pl_status pl_flex_bool(const pl_flex *v, bool *out, pl_error *err)
{
    uint64_t u;
    PL_TRY(pl_flex_uint(v, &u, err));
    *out = u != 0;
    return PL_OK;
}

/* A key: NUL-terminated, no length prefix; the NUL must lie inside the buffer. */
static pl_status key_at(const pl_flex *v, uint32_t pos, pl_bytes *out, pl_error *err)
{
    const uint8_t *nul = pos < v->size ? memchr(v->buf + pos, 0, v->size - pos) : NULL;
    if (nul == NULL)
        return pl_error_set(err, PL_ERR_MODEL, "flexbuffer: key at byte %u is not terminated",
                            pos);
    *out = (pl_bytes){v->buf + pos, (uint32_t)(nul - (v->buf + pos))};
    return PL_OK;
}

/* The length prefix of width w just before pos. */
static pl_status length_before(const pl_flex *v, uint32_t pos, uint32_t w, uint64_t *n,
                               pl_error *err)
{
    if (pos < w)
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: length of the value at byte %u lies before the buffer",
                            pos);
    *n = read_u(v->buf + pos - w, w);
    if (*n > v->size) /* also keeps n * width from wrapping */
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: length %llu at byte %u exceeds the %u-byte buffer",
                            (unsigned long long)*n, pos - w, v->size);
    return PL_OK;
}

pl_status pl_flex_string(const pl_flex *v, pl_bytes *out, pl_error *err)
{
    uint32_t t;
    uint64_t n = 0;
    if (v->type != PL_FLEX_STRING && v->type != PL_FLEX_KEY && v->type != PL_FLEX_BLOB)
        return not_a(v, "a string", err);
    PL_TRY(target(v, &t, err));
    if (v->type == PL_FLEX_KEY)
        return key_at(v, t, out, err);
    PL_TRY(check_span(v, t, 0, err));
    PL_TRY(length_before(v, t, v->width, &n, err));
    bool nul = v->type == PL_FLEX_STRING;
    PL_TRY(check_span(v, t, n + nul, err));
    if (nul && v->buf[t + n] != 0)
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: string of %llu bytes at byte %u is not terminated",
                            (unsigned long long)n, t);
    *out = (pl_bytes){v->buf + t, (uint32_t)n};
    return PL_OK;
}

/* Element type and count of the typed vector types (count 0: read the length prefix). */
static bool typed_vector(uint32_t t, uint8_t *elem, uint32_t *fixed_n)
{
    *fixed_n = 0;
    if (t >= PL_FLEX_VECTOR_INT && t <= PL_FLEX_VECTOR_KEY) {
        *elem = (uint8_t)(PL_FLEX_INT + (t - PL_FLEX_VECTOR_INT));
    } else if (t == PL_FLEX_VECTOR_STRING) {
        *elem = PL_FLEX_STRING;
    } else if (t == PL_FLEX_VECTOR_BOOL) {
        *elem = PL_FLEX_BOOL;
    } else if (t >= PL_FLEX_VECTOR_INT2 && t <= PL_FLEX_VECTOR_FLOAT4) {
        *elem = (uint8_t)(PL_FLEX_INT + (t - PL_FLEX_VECTOR_INT2) % 3u);
        *fixed_n = (t - PL_FLEX_VECTOR_INT2) / 3u + 2u;
    } else {
        return false;
    }
    return true;
}

pl_status pl_flex_vector(const pl_flex *v, pl_flex_vec *out, pl_error *err)
{
    uint8_t elem = PL_FLEX_NULL;
    uint32_t fixed_n = 0, t;
    bool untyped = v->type == PL_FLEX_VECTOR || v->type == PL_FLEX_MAP;
    if (!untyped && !typed_vector(v->type, &elem, &fixed_n))
        return not_a(v, "a vector", err);
    PL_TRY(target(v, &t, err));
    uint64_t n = fixed_n;
    if (fixed_n == 0)
        PL_TRY(length_before(v, t, v->width, &n, err));
    /* the slots, then one type byte per slot for untyped vectors */
    PL_TRY(check_span(v, t, n * v->width + (untyped ? n : 0u), err));
    *out = (pl_flex_vec){v->buf, v->size, t, (uint32_t)n, v->width, elem, untyped};
    return PL_OK;
}

pl_status pl_flex_elem(const pl_flex_vec *vec, uint32_t i, pl_flex *out, pl_error *err)
{
    if (i >= vec->n)
        return pl_error_set(err, PL_ERR_ARG, "flexbuffer: element %u of a %u-element vector",
                            i, vec->n);
    uint32_t pos = vec->start + i * vec->width;
    if (!vec->untyped) {
        uint8_t w = vec->elem_type == PL_FLEX_STRING ? vec->width : 1;
        *out = (pl_flex){vec->buf, vec->size, pos, vec->width, w, vec->elem_type};
        return PL_OK;
    }
    uint32_t packed = vec->buf[vec->start + vec->n * vec->width + i];
    if (!known_type(packed >> 2))
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: element %u at byte %u has unknown type %u", i, pos,
                            packed >> 2);
    *out = (pl_flex){vec->buf, vec->size, pos, vec->width, (uint8_t)(1u << (packed & 3u)),
                     (uint8_t)(packed >> 2)};
    return PL_OK;
}

/* A map's keys: a typed vector of key offsets, found through the two slots before the
** values' length: the keys vector's offset and its element width. */
static pl_status map_keys(const pl_flex *map, pl_flex_vec *values, pl_flex_vec *keys,
                          pl_error *err)
{
    if (map->type != PL_FLEX_MAP)
        return not_a(map, "a map", err);
    PL_TRY(pl_flex_vector(map, values, err));
    uint32_t w = map->width;
    if (values->start < 3u * w)
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: keys of the map at byte %u lie before the buffer",
                            values->start);
    uint32_t slot = values->start - 3u * w;
    uint64_t key_width = read_u(map->buf + slot + w, w);
    if (!valid_width(key_width))
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: key width %llu of the map at byte %u is invalid",
                            (unsigned long long)key_width, values->start);
    pl_flex kv = {map->buf, map->size, slot, (uint8_t)w, (uint8_t)key_width, PL_FLEX_VECTOR_KEY};
    PL_TRY(pl_flex_vector(&kv, keys, err));
    if (keys->n != values->n)
        return pl_error_set(err, PL_ERR_MODEL,
                            "flexbuffer: map at byte %u has %u keys for %u values",
                            values->start, keys->n, values->n);
    return PL_OK;
}

static pl_status key_of(const pl_flex_vec *keys, uint32_t i, pl_bytes *out, pl_error *err)
{
    pl_flex k;
    PL_TRY(pl_flex_elem(keys, i, &k, err));
    return pl_flex_string(&k, out, err);
}

/* strcmp order of a file key against a C string. */
static int compare(pl_bytes a, const char *b)
{
    size_t bn = strlen(b);
    int c = memcmp(a.p, b, a.n < bn ? a.n : bn);
    return c != 0 ? c : (a.n > bn) - (a.n < bn);
}

pl_status pl_flex_map_find(const pl_flex *map, const char *key, pl_flex *out, bool *found,
                           pl_error *err)
{
    pl_flex_vec values, keys;
    PL_TRY(map_keys(map, &values, &keys, err));
    uint32_t lo = 0, hi = keys.n;
    *found = false;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        pl_bytes k;
        PL_TRY(key_of(&keys, mid, &k, err));
        int c = compare(k, key);
        if (c == 0) {
            *found = true;
            return pl_flex_elem(&values, mid, out, err);
        }
        if (c < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return PL_OK;
}

typedef struct walker {
    uint64_t budget; /* values left to visit: bounds shared and cyclic offsets */
    pl_error *err;
} walker;

static pl_status check_value(walker *w, const pl_flex *v, uint32_t depth);

static pl_status check_elements(walker *w, const pl_flex *v, uint32_t depth)
{
    pl_flex_vec vec;
    PL_TRY(pl_flex_vector(v, &vec, w->err));
    for (uint32_t i = 0; i < vec.n; i++) {
        pl_flex e;
        PL_TRY(pl_flex_elem(&vec, i, &e, w->err));
        PL_TRY(check_value(w, &e, depth + 1u));
    }
    return PL_OK;
}

/* Every key readable and strictly ascending, so that binary search finds each one. */
static pl_status check_keys(walker *w, const pl_flex *map)
{
    pl_flex_vec values, keys;
    PL_TRY(map_keys(map, &values, &keys, w->err));
    pl_bytes prev = {NULL, 0};
    for (uint32_t i = 0; i < keys.n; i++) {
        pl_bytes k;
        PL_TRY(key_of(&keys, i, &k, w->err));
        if (i > 0) {
            int c = memcmp(prev.p, k.p, prev.n < k.n ? prev.n : k.n);
            if (c > 0 || (c == 0 && prev.n >= k.n))
                return pl_error_set(w->err, PL_ERR_MODEL,
                                    "flexbuffer: map keys %u and %u are not in ascending order",
                                    i - 1u, i);
        }
        prev = k;
    }
    return PL_OK;
}

static pl_status check_value(walker *w, const pl_flex *v, uint32_t depth)
{
    if (depth > PL_FLEX_MAX_DEPTH)
        return pl_error_set(w->err, PL_ERR_MODEL, "flexbuffer: nested deeper than %u levels",
                            PL_FLEX_MAX_DEPTH);
    if (w->budget == 0)
        return pl_error_set(w->err, PL_ERR_MODEL,
                            "flexbuffer: more values than bytes (shared or cyclic offsets)");
    w->budget--;
    pl_bytes s;
    uint8_t elem;
    uint32_t fixed_n;
    if (v->type == PL_FLEX_MAP)
        PL_TRY(check_keys(w, v));
    if (v->type == PL_FLEX_MAP || v->type == PL_FLEX_VECTOR || typed_vector(v->type, &elem,
                                                                             &fixed_n))
        return check_elements(w, v, depth);
    if (v->type == PL_FLEX_STRING || v->type == PL_FLEX_KEY || v->type == PL_FLEX_BLOB)
        return pl_flex_string(v, &s, w->err);
    double d;
    return pl_flex_double(v, &d, w->err);
}

pl_status pl_flex_check(pl_bytes data, pl_error *err)
{
    pl_flex root;
    PL_TRY(pl_flex_root(data, &root, err));
    walker w = {2u * (uint64_t)data.n, err};
    return check_value(&w, &root, 0);
}
