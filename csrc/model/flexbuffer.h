/* flexbuffer.h - a bounds-checked FlexBuffer reader for custom operator options.
**
** Custom operators (TFLM's Signal library, CIRCULAR_BUFFER, detection post-processing) keep
** their parameters in custom_options as a FlexBuffer: usually a map with string keys. The
** reader follows the flatbuffer reader's rules: file bytes are never cast to C types, every
** read is checked against the buffer size (positions are integers compared in 64 bits),
** widths other than 1/2/4/8 and unknown types are refused, and every failure returns
** PL_ERR_MODEL with a message naming the position and the numbers. Nothing is recursive
** except pl_flex_check, which is depth- and work-limited, so cycles cannot hang a caller. */
#ifndef PL_MODEL_FLEXBUFFER_H
#define PL_MODEL_FLEXBUFFER_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_status.h"
#include "picolite/pl_view.h"

/* Nesting depth pl_flex_check accepts (TFLM's options are one map deep). */
#define PL_FLEX_MAX_DEPTH 32

/* The FlexBuffer type codes picolite reads (the format's numbering). */
typedef enum pl_flex_type {
    PL_FLEX_NULL = 0,
    PL_FLEX_INT = 1,
    PL_FLEX_UINT = 2,
    PL_FLEX_FLOAT = 3,
    PL_FLEX_KEY = 4,
    PL_FLEX_STRING = 5,
    PL_FLEX_INDIRECT_INT = 6,
    PL_FLEX_INDIRECT_UINT = 7,
    PL_FLEX_INDIRECT_FLOAT = 8,
    PL_FLEX_MAP = 9,
    PL_FLEX_VECTOR = 10,
    PL_FLEX_VECTOR_INT = 11,
    PL_FLEX_VECTOR_UINT = 12,
    PL_FLEX_VECTOR_FLOAT = 13,
    PL_FLEX_VECTOR_KEY = 14,
    PL_FLEX_VECTOR_STRING = 15, /* deprecated in the format, still readable */
    PL_FLEX_VECTOR_INT2 = 16,   /* fixed-length typed vectors: 2, 3 and 4 elements */
    PL_FLEX_VECTOR_FLOAT4 = 24,
    PL_FLEX_BLOB = 25,
    PL_FLEX_BOOL = 26,
    PL_FLEX_VECTOR_BOOL = 36
} pl_flex_type;

/* A value: where its bytes (a scalar) or its offset (anything else) lie, the width of
** that slot, the width its target's elements use, and its type. Positions are offsets
** from buf; a pl_flex is only made by the functions below, which check them. */
typedef struct pl_flex {
    const uint8_t *buf;
    uint32_t size;
    uint32_t pos;
    uint8_t parent_width;
    uint8_t width;
    uint8_t type;
} pl_flex;

/* A vector's (or a map's values') elements: n slots of width bytes at start; an untyped
** vector has n type bytes after them (elem_type is then PL_FLEX_NULL). */
typedef struct pl_flex_vec {
    const uint8_t *buf;
    uint32_t size;
    uint32_t start;
    uint32_t n;
    uint8_t width;
    uint8_t elem_type;
    bool untyped;
} pl_flex_vec;

/* The root value of data (the last bytes name its width and type). */
pl_status pl_flex_root(pl_bytes data, pl_flex *out, pl_error *err);

/* Scalars of every width, converted as the format's As*() accessors do (an int read as a
** float and the reverse; bool as 0/1; null as 0). Other types are an error. A float read
** as an integer must be finite and in range. */
pl_status pl_flex_int(const pl_flex *v, int64_t *out, pl_error *err);
pl_status pl_flex_uint(const pl_flex *v, uint64_t *out, pl_error *err);
pl_status pl_flex_double(const pl_flex *v, double *out, pl_error *err);
pl_status pl_flex_bool(const pl_flex *v, bool *out, pl_error *err);

/* The bytes of a string, key or blob (strings and keys without their NUL). */
pl_status pl_flex_string(const pl_flex *v, pl_bytes *out, pl_error *err);

/* The elements of a vector, typed vector, fixed typed vector or map (its values). */
pl_status pl_flex_vector(const pl_flex *v, pl_flex_vec *out, pl_error *err);
/* Element i < vec->n (PL_ERR_ARG past the end). */
pl_status pl_flex_elem(const pl_flex_vec *vec, uint32_t i, pl_flex *out, pl_error *err);

/* Looks key up in a map by binary search over its sorted keys; *found false when absent.
** key is NUL-terminated. PL_ERR_MODEL when map is not a map or its keys are malformed. */
pl_status pl_flex_map_find(const pl_flex *map, const char *key, pl_flex *out, bool *found,
                           pl_error *err);

/* Walks every value reachable from the root (maps' keys included) and checks it; nesting
** deeper than PL_FLEX_MAX_DEPTH, or more values than the buffer has bytes (shared or
** cyclic offsets), is an error. Readers do not need it: it is for verification and fuzzing. */
pl_status pl_flex_check(pl_bytes data, pl_error *err);

#endif
