/* verify.c - the TFLite model verifier.
**
** Tables are reached only along the schema's fixed paths (model -> subgraph -> tensor ...),
** so there is no recursion. Flatbuffers may share objects, so a hostile file can make many
** offsets point at one big vector; a work budget proportional to the file size bounds the
** total number of tables and elements visited. */
#include "model/verify.h"

#include <stdarg.h>
#include <string.h>

#include "base/fmt.h"
#include "model/fb.h"
#include "model/model.h"
#include "model/schema.h"

/* Largest TensorType value in the schema; 19..22 are valid but unknown to picolite. */
#define SCHEMA_TYPE_MAX 22
#define MAX_TENSOR_BYTES 0x7fffffffu
#define BUDGET_BASE (1u << 20)

typedef struct vstate {
    pl_fb fb;
    pl_error *err;
    pl_error scratch;   /* receives the primitives' reasons, then wrapped with context */
    uint64_t work, budget;
    pl_vec buffers, opcodes, subgraphs;
    /* what is being checked, for messages: "[subgraph sg ]kind[ index]" */
    const char *kind;
    int32_t sg, index; /* a vector holds fewer than 2^30 elements: the file is under 4 GB */
} vstate;

static void at(vstate *v, const char *kind, int32_t sg, int32_t index)
{
    v->kind = kind;
    v->sg = sg;
    v->index = index;
}

static void prefix(const vstate *v, char *buf, size_t cap)
{
    char sg[32] = "", index[16] = "";
    if (v->sg >= 0)
        pl_fmt(sg, sizeof sg, "subgraph %d ", (int)v->sg);
    if (v->index >= 0)
        pl_fmt(index, sizeof index, " %d", (int)v->index);
    pl_fmt(buf, cap, "%s%s%s", sg, v->kind, index);
}

static pl_status vfail(vstate *v, pl_status status, const char *field, const char *fmt,
                       va_list ap)
{
    char where[64], what[PL_ERROR_CAPACITY];
    prefix(v, where, sizeof where);
    pl_fmt_v(what, sizeof what, fmt, ap);
    if (field != NULL)
        return pl_error_set(v->err, status, "%s (%s): %s", where, field, what);
    return pl_error_set(v->err, status, "%s: %s", where, what);
}

static pl_status fail(vstate *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pl_status s = vfail(v, PL_ERR_MODEL, NULL, fmt, ap);
    va_end(ap);
    return s;
}

/* A valid schema value picolite cannot represent. */
static pl_status unsupported(vstate *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pl_status s = vfail(v, PL_ERR_UNSUPPORTED, NULL, fmt, ap);
    va_end(ap);
    return s;
}

static pl_status fail_field(vstate *v, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pl_status s = vfail(v, PL_ERR_MODEL, field, fmt, ap);
    va_end(ap);
    return s;
}

/* Wraps a primitive's failure (in v->scratch) with the current table and field. */
static pl_status wrap(vstate *v, pl_status s, const char *field)
{
    if (s == PL_OK)
        return PL_OK;
    return field != NULL ? fail_field(v, field, "%s", v->scratch.msg)
                         : fail(v, "%s", v->scratch.msg);
}

static pl_status charge(vstate *v, uint64_t units)
{
    v->work += units;
    if (v->work > v->budget)
        return pl_error_set(v->err, PL_ERR_MODEL,
                            "model: more than %llu tables and elements to verify in %u bytes "
                            "(shared or looping offsets)",
                            (unsigned long long)v->budget, v->fb.size);
    return PL_OK;
}

static pl_status charge_table(vstate *v, const pl_table *t)
{
    return charge(v, 1u + t->vt_bytes / 2u);
}

static pl_status elem_table(vstate *v, pl_vec vec, uint32_t i, pl_table *t)
{
    PL_TRY(wrap(v, pl_fb_check_table_elem(v->fb, vec, i, t, &v->scratch), NULL));
    return charge_table(v, t);
}

/* How a field is checked, as data: a scalar of `kind` bytes (1, 2, 4 or 8), a vector of
** elements of (kind & 15) bytes, a string or a table. The found vector or table is read
** again with fb.h's plain readers once checked, so a rule has no output. */
#define F_VEC 0x10u
#define F_STR 0x20u
#define F_TABLE 0x40u

typedef struct field_rule {
    uint8_t field, kind;
    const char *name;
} field_rule;

#define RULES(list) list, sizeof list / sizeof *list

/* One field: inside the bytes and aligned; a vector or table also charged to the budget
** (a table by its vtable entries, a vector by its elements unless they are bytes). */
static pl_status check_field(vstate *v, const pl_table *t, uint32_t field, uint32_t kind,
                             const char *name)
{
    pl_status s;
    uint64_t units = 0;
    if (kind & F_VEC) {
        pl_vec vec;
        s = pl_fb_check_vec_field(t, field, kind & 15u, &vec, &v->scratch);
        units = 1u + ((kind & 15u) == 1 ? 0 : vec.n);
    } else if (kind == F_STR) {
        pl_bytes str;
        s = pl_fb_check_str_field(t, field, &str, &v->scratch);
    } else if (kind == F_TABLE) {
        pl_table sub;
        s = pl_fb_check_table_field(t, field, &sub, &v->scratch);
        units = sub.buf != NULL ? 1u + sub.vt_bytes / 2u : 0;
    } else {
        s = pl_fb_check_field(t, field, kind, &v->scratch);
    }
    PL_TRY(wrap(v, s, name));
    return charge(v, units); /* 0 units never fail: work stays within budget */
}

/* The rules in order: the first failing field names the cause. */
static pl_status check_fields(vstate *v, const pl_table *t, const field_rule *rules, size_t n)
{
    for (size_t i = 0; i < n; i++)
        PL_TRY(check_field(v, t, rules[i].field, rules[i].kind, rules[i].name));
    return PL_OK;
}

/* ---- model header and buffers ---- */

static pl_status verify_header(vstate *v, pl_table *root)
{
    at(v, "model", -1, -1);
    if (v->fb.size < 8u)
        return fail(v, "%u bytes is too small for a TFLite flatbuffer (at least 8)", v->fb.size);
    const uint8_t *id = v->fb.buf + 4;
    if (memcmp(id, "TFL3", 4) != 0) {
        char shown[5];
        for (int i = 0; i < 4; i++)
            shown[i] = id[i] >= 0x20 && id[i] < 0x7f ? (char)id[i] : '?';
        shown[4] = '\0';
        return fail(v, "file identifier is \"%s\", expected \"TFL3\"", shown);
    }
    PL_TRY(wrap(v, pl_fb_check_table(v->fb, pl_le32(v->fb.buf), root, &v->scratch), "root"));
    return charge_table(v, root);
}

static pl_status verify_external(vstate *v, uint64_t offset, uint64_t size, const char *what)
{
    if (offset < PL_EXTERNAL_OFFSET_MIN)
        return PL_OK;
    if (offset > v->fb.size || size > v->fb.size - offset)
        return fail(v, "%s at offset %llu size %llu is outside the %u-byte file", what,
                    (unsigned long long)offset, (unsigned long long)size, v->fb.size);
    return PL_OK;
}

static const field_rule buffer_rules[] = {
    {PL_F_BUFFER_DATA, F_VEC | 1, "data"},
    {PL_F_BUFFER_OFFSET, 8, "offset"},
    {PL_F_BUFFER_SIZE, 8, "size"},
};

static pl_status verify_buffer(vstate *v, uint32_t i)
{
    pl_table t;
    at(v, "buffer", -1, i);
    PL_TRY(elem_table(v, v->buffers, i, &t));
    PL_TRY(check_fields(v, &t, RULES(buffer_rules)));
    return verify_external(v, pl_fb_u64(&t, PL_F_BUFFER_OFFSET, 0),
                           pl_fb_u64(&t, PL_F_BUFFER_SIZE, 0), "data");
}

/* Bytes a verified buffer holds, inline or after the flatbuffer. */
/* Address of buffer b's first byte (inline data or external offset), NULL when empty. */
static const uint8_t *buffer_data(const vstate *v, uint32_t b)
{
    pl_table t = pl_fb_table_elem(v->fb, v->buffers, b);
    pl_vec data = pl_fb_vec(&t, PL_F_BUFFER_DATA);
    if (data.n > 0)
        return data.p;
    uint64_t off = pl_fb_u64(&t, PL_F_BUFFER_OFFSET, 0);
    return off >= PL_EXTERNAL_OFFSET_MIN && off < v->fb.size ? v->fb.buf + off : NULL;
}

static uint64_t buffer_bytes(const vstate *v, uint32_t b)
{
    pl_table t = pl_fb_table_elem(v->fb, v->buffers, b);
    uint32_t n = pl_fb_vec(&t, PL_F_BUFFER_DATA).n;
    if (n == 0 && pl_fb_u64(&t, PL_F_BUFFER_OFFSET, 0) >= PL_EXTERNAL_OFFSET_MIN)
        return pl_fb_u64(&t, PL_F_BUFFER_SIZE, 0);
    return n;
}

/* ---- operator codes ---- */

static const field_rule opcode_rules[] = {
    {PL_F_OPCODE_DEPRECATED_BUILTIN, 1, "deprecated_builtin_code"},
    {PL_F_OPCODE_CUSTOM_CODE, F_STR, "custom_code"},
    {PL_F_OPCODE_VERSION, 4, "version"},
    {PL_F_OPCODE_BUILTIN, 4, "builtin_code"},
};

static pl_status verify_opcode(vstate *v, uint32_t i)
{
    pl_table t;
    at(v, "operator code", -1, i);
    PL_TRY(elem_table(v, v->opcodes, i, &t));
    PL_TRY(check_fields(v, &t, RULES(opcode_rules)));
    int32_t dep = pl_table_i8(&t, PL_F_OPCODE_DEPRECATED_BUILTIN, 0);
    int32_t code = pl_table_i32(&t, PL_F_OPCODE_BUILTIN, 0);
    code = dep > code ? dep : code;
    if (code < 0 || code >= PL_BUILTIN_COUNT)
        return fail(v, "builtin code %d unknown (BuiltinOperator 0..%d)", code,
                    PL_BUILTIN_COUNT - 1);
    return PL_OK;
}

/* ---- tensors ---- */

static pl_status verify_dims(vstate *v, pl_vec dims, int32_t min_dim, const char *name)
{
    if (dims.n > PL_MAX_DIMS)
        return fail_field(v, name, "rank %u is more than %d", dims.n, PL_MAX_DIMS);
    for (uint32_t d = 0; d < dims.n; d++) {
        if (pl_vec_i32(dims, d) < min_dim)
            return fail_field(v, name, "dimension %u is %d", d, pl_vec_i32(dims, d));
    }
    return PL_OK;
}

/* Element count of a checked shape, or UINT64_MAX when it exceeds MAX_TENSOR_BYTES. */
static uint64_t element_count(pl_vec shape)
{
    uint64_t count = 1;
    for (uint32_t d = 0; d < shape.n; d++) {
        if (pl_vec_i32(shape, d) == 0)
            return 0;
    }
    for (uint32_t d = 0; d < shape.n; d++) {
        count *= (uint32_t)pl_vec_i32(shape, d);
        if (count > MAX_TENSOR_BYTES)
            return UINT64_MAX;
    }
    return count;
}

static pl_status verify_type(vstate *v, int32_t type)
{
    if (type < 0 || type > SCHEMA_TYPE_MAX)
        return fail(v, "type %d unknown (TensorType 0..%d)", type, SCHEMA_TYPE_MAX);
    if (type >= PL_TYPE_COUNT)
        return unsupported(v, "type %d is not supported (picolite knows TensorType 0..%d)",
                           type, PL_TYPE_COUNT - 1);
    return PL_OK;
}

/* A constant STRING buffer is TFLite's string buffer: int32 count (the shape's), int32
** offsets[count + 1] from the buffer's start, nondecreasing from past themselves to at most
** the buffer's end, then the text. Kernels then read every string in bounds. */
static pl_status verify_strings(vstate *v, uint32_t b, uint64_t count, uint64_t have)
{
    const uint8_t *p = buffer_data(v, b);
    uint64_t prev = 4u * (count + 2u);
    if (p == NULL || have < prev || pl_le32(p) != count)
        return fail(v, "buffer %u (%llu bytes) is not a string buffer of %llu strings", b,
                    (unsigned long long)have, (unsigned long long)count);
    for (uint64_t i = 0; i <= count; i++) {
        uint32_t off = pl_le32(p + 4u + 4u * i);
        if (off < prev || off > have)
            return fail(v, "buffer %u: string offset %llu is %u, outside %llu..%llu", b,
                        (unsigned long long)i, off, (unsigned long long)prev,
                        (unsigned long long)have);
        prev = off;
    }
    return PL_OK;
}

static pl_status verify_sizes(vstate *v, const pl_table *t, pl_vec shape, int32_t type)
{
    uint64_t count = element_count(shape);
    size_t elem = pl_type_size(type);
    uint64_t bytes = count == UINT64_MAX ? UINT64_MAX : count * (elem ? elem : 1);
    if (bytes > MAX_TENSOR_BYTES)
        return fail(v, "%s tensor of rank %u needs more than 2^31 - 1 bytes", pl_type_name(type),
                    shape.n);
    uint32_t b = pl_fb_u32(t, PL_F_TENSOR_BUFFER, 0);
    uint64_t have = buffer_bytes(v, b);
    if (type == PL_STRING && have > 0)
        return verify_strings(v, b, count, have);
    /* Sparse constants are compressed: not comparable. int4 packs two values a byte (the
    ** kernels unpack count values from it). */
    if (have == 0 || pl_table_field(t, PL_F_TENSOR_SPARSITY) != 0)
        return PL_OK;
    if (type == PL_INT4 && have < count / 2 + count % 2)
        return fail(v, "buffer %u holds %llu bytes, INT4 shape needs %llu", b,
                    (unsigned long long)have, (unsigned long long)(count / 2 + count % 2));
    if (elem == 0)
        return PL_OK;
    if (have < bytes)
        return fail(v, "buffer %u holds %llu bytes, %s shape needs %llu", b,
                    (unsigned long long)have, pl_type_name(type), (unsigned long long)bytes);
    /* Kernels read constants in place. Converters align buffer data to 4 only (int64 biases
    ** of real 16x8 models sit at 4 mod 8), so 8-byte elements are read with pl_load_i64();
    ** everything else needs its natural alignment, and the model a 4-aligned address. */
    size_t need = elem < 4 ? elem : 4;
    if ((uintptr_t)buffer_data(v, b) % need != 0)
        return fail(v, "buffer %u: %s data at an address not aligned to %u bytes (keep the "
                    "model 16-byte aligned)", b, pl_type_name(type), (unsigned)need);
    return PL_OK;
}

/* A dimension outside the shape is stale and ignored, as TFLM does (older converters gave
** per-channel biases their filter's dimension 3); kernels that quantize per channel check
** the dimension they need. */
static pl_status verify_per_channel(vstate *v, pl_vec shape, uint32_t channels, int32_t qdim)
{
    if (qdim < 0 || (uint32_t)qdim >= shape.n)
        return PL_OK;
    int32_t dim = pl_vec_i32(shape, (uint32_t)qdim);
    if ((uint32_t)dim != channels)
        return fail_field(v, "quantization", "%u scales for dimension %d of size %d", channels,
                          qdim, dim);
    return PL_OK;
}

/* Zero points of 8- and 16-bit integer tensors lie in the type's range; kernels add them
** to values of the type in int32, which an out-of-range zero point could overflow. Any other
** type's fit int32, where TFLite and TFLM keep every zero point (the schema's are int64). */
static pl_status verify_zero_points(vstate *v, pl_vec zp, int32_t type)
{
    bool narrow = type == PL_INT8 || type == PL_INT16 || type == PL_UINT8;
    int64_t lo = type == PL_INT8 ? INT8_MIN : type == PL_INT16 ? INT16_MIN : 0;
    int64_t hi = type == PL_INT8 ? INT8_MAX : type == PL_INT16 ? INT16_MAX : UINT8_MAX;
    if (!narrow) {
        lo = INT32_MIN;
        hi = INT32_MAX;
    }
    PL_TRY(charge(v, zp.n));
    for (uint32_t i = 0; i < zp.n; i++) {
        int64_t z = pl_vec_i64(zp, i);
        if (z < lo || z > hi)
            return fail_field(v, "quantization", "zero point %lld (channel %u) is outside %s",
                              (long long)z, i, narrow ? pl_type_name(type) : "int32");
    }
    return PL_OK;
}

/* Quantization as TFLM's allocator reads it: one zero point may serve every scale, the
** details union is ignored (an unknown type too), and quantized_dimension matters only with
** more than one scale, inside the shape. */
static const field_rule quant_rules[] = {
    {PL_F_QUANT_MIN, F_VEC | 4, "quantization min"},
    {PL_F_QUANT_MAX, F_VEC | 4, "quantization max"},
    {PL_F_QUANT_SCALE, F_VEC | 4, "quantization scale"},
    {PL_F_QUANT_ZERO_POINT, F_VEC | 8, "quantization zero_point"},
    {PL_F_QUANT_DETAILS_TYPE, 1, "quantization details_type"},
    {PL_F_QUANT_DETAILS, F_TABLE, "quantization details"},
    {PL_F_QUANT_QUANTIZED_DIMENSION, 4, "quantized_dimension"},
};

static pl_status verify_quant(vstate *v, const pl_table *tensor, pl_vec shape, int32_t type)
{
    PL_TRY(check_field(v, tensor, PL_F_TENSOR_QUANTIZATION, F_TABLE, "quantization"));
    pl_table q = pl_fb_subtable(tensor, PL_F_TENSOR_QUANTIZATION);
    if (q.buf == NULL)
        return PL_OK;
    PL_TRY(check_fields(v, &q, RULES(quant_rules)));
    pl_vec scale = pl_fb_vec(&q, PL_F_QUANT_SCALE), zp = pl_fb_vec(&q, PL_F_QUANT_ZERO_POINT);
    if (scale.n > 0 && zp.n == 0) /* LiteRT's refusal, word for word */
        return fail_field(v, "quantization", "Quantization parameters has non-null scale but "
                          "null zero_point (%u scales)", scale.n);
    /* fewer zero points than scales would be read past their vector */
    if (zp.n > 1 && zp.n < scale.n)
        return fail_field(v, "quantization", "%u zero points for %u scales", zp.n, scale.n);
    PL_TRY(verify_zero_points(v, zp, type));
    if (scale.n > 1)
        return verify_per_channel(v, shape, scale.n,
                                  pl_table_i32(&q, PL_F_QUANT_QUANTIZED_DIMENSION, 0));
    return PL_OK;
}

static const field_rule tensor_rules[] = {
    {PL_F_TENSOR_SHAPE, F_VEC | 4, "shape"},
    {PL_F_TENSOR_TYPE, 1, "type"},
    {PL_F_TENSOR_BUFFER, 4, "buffer"},
    {PL_F_TENSOR_NAME, F_STR, "name"},
    {PL_F_TENSOR_IS_VARIABLE, 1, "is_variable"},
    {PL_F_TENSOR_SPARSITY, F_TABLE, "sparsity"},
    {PL_F_TENSOR_SHAPE_SIGNATURE, F_VEC | 4, "shape_signature"},
    {PL_F_TENSOR_HAS_RANK, 1, "has_rank"},
};

static pl_status verify_tensor_fields(vstate *v, const pl_table *t, pl_vec *shape)
{
    PL_TRY(check_fields(v, t, RULES(tensor_rules)));
    *shape = pl_fb_vec(t, PL_F_TENSOR_SHAPE);
    pl_vec sig = pl_fb_vec(t, PL_F_TENSOR_SHAPE_SIGNATURE);
    PL_TRY(verify_dims(v, *shape, 0, "shape"));
    PL_TRY(verify_dims(v, sig, -1, "shape_signature"));
    if (sig.n != 0 && sig.n != shape->n)
        return fail_field(v, "shape_signature", "rank %u differs from the shape's rank %u",
                          sig.n, shape->n);
    return PL_OK;
}

static pl_status verify_tensor(vstate *v, pl_vec tensors, uint32_t sg, uint32_t i)
{
    pl_table t;
    pl_vec shape;
    at(v, "tensor", sg == 0 ? -1 : (int32_t)sg, (int32_t)i);
    PL_TRY(elem_table(v, tensors, i, &t));
    PL_TRY(verify_tensor_fields(v, &t, &shape));
    int32_t type = pl_table_i8(&t, PL_F_TENSOR_TYPE, 0);
    PL_TRY(verify_type(v, type));
    uint32_t b = pl_fb_u32(&t, PL_F_TENSOR_BUFFER, 0);
    if (b >= v->buffers.n)
        return fail(v, "buffer %u out of range (%u buffers)", b, v->buffers.n);
    PL_TRY(verify_sizes(v, &t, shape, type));
    return verify_quant(v, &t, shape, type);
}

/* ---- operators ---- */

/* Tensor indices in a list; optional (-1) entries only where allowed. */
static pl_status verify_indices(vstate *v, pl_vec list, uint32_t n_tensors, const char *what,
                                int optional_ok)
{
    for (uint32_t j = 0; j < list.n; j++) {
        int32_t x = pl_vec_i32(list, j);
        if ((x == -1 && optional_ok) || (x >= 0 && (uint32_t)x < n_tensors))
            continue;
        return fail(v, "%s %u is tensor %d, out of range (%u tensors)", what, j, x, n_tensors);
    }
    return PL_OK;
}

/* Option fields whose values or bytes need checking: vectors (kind = element size) and
** subgraph indices of control flow (kind OPT_SUBGRAPH: an int, OPT_SUBGRAPHS: an [int]).
** Scalar fields need no entry: the table check keeps them inside the table. */
#define OPT_SUBGRAPH 0
#define OPT_SUBGRAPHS 2

static const struct {
    uint8_t which, type, field, kind; /* which: 1 = BuiltinOptions, 2 = BuiltinOptions2 */
} option_fields[] = {
    {1, 3, 1, 4}, {1, 3, 2, 4},                           /* ConcatEmbeddings */
    {1, 8, 5, 1},                                         /* FullyConnected.quant_spec */
    {1, 16, 0, OPT_SUBGRAPH},                             /* Call */
    {1, 17, 0, 4},                                        /* Reshape.new_shape */
    {1, 30, 0, 4},                                        /* Squeeze.squeeze_dims */
    {1, 92, 0, OPT_SUBGRAPH}, {1, 92, 1, OPT_SUBGRAPH},   /* If then, else */
    {1, 93, 0, OPT_SUBGRAPH}, {1, 93, 1, OPT_SUBGRAPH},   /* While cond, body */
    {1, 103, 0, OPT_SUBGRAPH},                            /* CallOnce init */
    {1, 111, 0, 1}, {1, 111, 1, 1},                       /* VarHandle container, name */
    {1, 115, 0, 4},                                       /* Bucketize.boundaries */
    {2, 2, 0, 8},                                         /* StablehloBroadcastInDim */
    {2, 3, 0, 8}, {2, 3, 1, 8}, {2, 3, 2, 8},             /* StablehloSlice */
    {2, 4, 0, 8}, {2, 4, 1, 8}, {2, 4, 2, 8}, {2, 4, 3, 8}, {2, 4, 4, 1}, {2, 4, 7, 8},
    {2, 4, 10, 8}, {2, 4, 13, 8}, {2, 4, 16, 4},          /* StablehloConvolution */
    {2, 5, 4, 4}, {2, 5, 5, 1},                           /* StablehloCustomCall */
    {2, 6, 0, 8}, {2, 6, 1, OPT_SUBGRAPH},                /* StablehloReduce */
    {2, 7, 1, 8}, {2, 7, 2, 8}, {2, 7, 3, 8}, {2, 7, 6, OPT_SUBGRAPH}, /* StablehloScatter */
    {2, 9, 0, 8},                                         /* StablehloDynamicSlice */
    {2, 10, 0, 8}, {2, 10, 1, 8}, {2, 10, 2, 8},          /* StablehloPad */
    {2, 12, 0, 8}, {2, 12, 1, 8}, {2, 12, 2, 8}, {2, 12, 3, 8}, {2, 12, 4, 4}, /* DotGeneral */
    {2, 13, 0, 8}, {2, 13, 1, 8}, {2, 13, 2, 8}, {2, 13, 3, 8}, {2, 13, 4, 8},
    {2, 13, 5, OPT_SUBGRAPH},                             /* StablehloReduceWindow */
    {2, 14, 2, OPT_SUBGRAPH},                             /* StablehloSort */
    {2, 15, 0, OPT_SUBGRAPH}, {2, 15, 1, OPT_SUBGRAPH},   /* StablehloWhile */
    {2, 16, 0, 8}, {2, 16, 1, 8}, {2, 16, 2, 8}, {2, 16, 4, 8}, /* StablehloGather */
    {2, 17, 0, 8},                                        /* StablehloTranspose */
    {2, 21, 1, OPT_SUBGRAPH}, {2, 21, 2, 1},              /* StableHLOComposite */
    {2, 23, 0, OPT_SUBGRAPHS},                            /* StablehloCase */
};

static pl_status check_subgraph(vstate *v, const char *name, uint32_t field, int32_t sg)
{
    if (sg < 0 || (uint32_t)sg >= v->subgraphs.n)
        return fail_field(v, name, "field %u is subgraph %d, out of range (%u subgraphs)", field,
                          sg, v->subgraphs.n);
    return PL_OK;
}

static pl_status verify_option_field(vstate *v, const pl_table *opt, const char *name,
                                     uint32_t field, uint32_t kind)
{
    if (kind == OPT_SUBGRAPH) {
        PL_TRY(check_field(v, opt, field, 4, name));
        return check_subgraph(v, name, field, pl_table_i32(opt, field, 0));
    }
    PL_TRY(check_field(v, opt, field, F_VEC | (kind == OPT_SUBGRAPHS ? 4 : kind), name));
    pl_vec vec = pl_fb_vec(opt, field);
    for (uint32_t i = 0; kind == OPT_SUBGRAPHS && i < vec.n; i++)
        PL_TRY(check_subgraph(v, name, field, pl_vec_i32(vec, i)));
    return PL_OK;
}

/* The options table (which = 1) or options 2 table (which = 2) of an operator. */
static pl_status verify_option_table(vstate *v, const pl_table *op, uint32_t which)
{
    const char *name = which == 1 ? "builtin_options" : "builtin_options_2";
    int32_t type = pl_table_u8(op, which == 1 ? PL_F_OP_OPTIONS_TYPE : PL_F_OP_OPTIONS2_TYPE, 0);
    uint32_t field = which == 1 ? PL_F_OP_OPTIONS : PL_F_OP_OPTIONS2;
    PL_TRY(check_field(v, op, field, F_TABLE, name));
    pl_table opt = pl_fb_subtable(op, field);
    for (size_t k = 0; opt.buf != NULL && k < sizeof option_fields / sizeof *option_fields;
         k++) {
        if (option_fields[k].which == which && option_fields[k].type == type)
            PL_TRY(verify_option_field(v, &opt, name, option_fields[k].field,
                                       option_fields[k].kind));
    }
    return PL_OK;
}

/* Unknown option union types pass, as in flatbuffers' verifier; their tables are checked
** as tables, and kernels read fields only through bounds-checked accessors. */
static pl_status verify_options(vstate *v, const pl_table *op)
{
    static const field_rule rules[] = {
        {PL_F_OP_OPTIONS_TYPE, 1, "builtin_options_type"},
        {PL_F_OP_OPTIONS2_TYPE, 1, "builtin_options_2_type"},
    };
    PL_TRY(check_fields(v, op, RULES(rules)));
    PL_TRY(verify_option_table(v, op, 1));
    return verify_option_table(v, op, 2);
}

static const field_rule op_rules[] = {
    {PL_F_OP_OPCODE_INDEX, 4, "opcode_index"},
    {PL_F_OP_INPUTS, F_VEC | 4, "inputs"},
    {PL_F_OP_OUTPUTS, F_VEC | 4, "outputs"},
    {PL_F_OP_CUSTOM_OPTIONS, F_VEC | 1, "custom_options"},
    {PL_F_OP_CUSTOM_OPTIONS_FORMAT, 1, "custom_options_format"},
    {PL_F_OP_MUTATING_VARIABLES, F_VEC | 1, "mutating_variable_inputs"},
    {PL_F_OP_INTERMEDIATES, F_VEC | 4, "intermediates"},
    {PL_F_OP_LARGE_CUSTOM_OFFSET, 8, "large_custom_options_offset"},
    {PL_F_OP_LARGE_CUSTOM_SIZE, 8, "large_custom_options_size"},
    {PL_F_OP_DEBUG_METADATA, 4, "debug_metadata_index"},
};

static pl_status verify_op_fields(vstate *v, const pl_table *t, uint32_t n_tensors)
{
    PL_TRY(check_fields(v, t, RULES(op_rules)));
    PL_TRY(verify_indices(v, pl_fb_vec(t, PL_F_OP_INPUTS), n_tensors, "input", 1));
    PL_TRY(verify_indices(v, pl_fb_vec(t, PL_F_OP_OUTPUTS), n_tensors, "output", 0));
    return verify_indices(v, pl_fb_vec(t, PL_F_OP_INTERMEDIATES), n_tensors, "intermediate", 0);
}

/* Constants are read in place from the caller's (const) model bytes: an operator that
** wrote one would write into the model. Variables with initial data are copied first. An
** output that is also an input of the same operator would be read while written. */
static pl_status verify_outputs_writable(vstate *v, const pl_table *op, pl_vec tensors)
{
    pl_vec out = pl_fb_vec(op, PL_F_OP_OUTPUTS), in = pl_fb_vec(op, PL_F_OP_INPUTS);
    PL_TRY(charge(v, (uint64_t)out.n * (1u + in.n)));
    for (uint32_t j = 0; j < out.n; j++) {
        uint32_t x = (uint32_t)pl_vec_i32(out, j); /* in range: verify_op_fields */
        /* kernels read inputs while they write outputs (through restrict pointers) */
        for (uint32_t k = 0; k < in.n; k++)
            if (pl_vec_i32(in, k) == (int32_t)x)
                return fail(v, "output %u is tensor %u, also input %u", j, x, k);
        pl_table t = pl_fb_table_elem(v->fb, tensors, x);
        uint32_t b = pl_fb_u32(&t, PL_F_TENSOR_BUFFER, 0);
        if (buffer_bytes(v, b) > 0 && !pl_table_bool(&t, PL_F_TENSOR_IS_VARIABLE, false))
            return fail(v, "output %u is tensor %u, a constant (buffer %u has data)", j, x, b);
    }
    return PL_OK;
}

static pl_status verify_operator(vstate *v, pl_vec ops, uint32_t sg, uint32_t i,
                                 pl_vec tensors)
{
    pl_table t;
    at(v, "operator", sg, i);
    PL_TRY(elem_table(v, ops, i, &t));
    PL_TRY(verify_op_fields(v, &t, tensors.n));
    PL_TRY(verify_outputs_writable(v, &t, tensors));
    uint32_t opcode = pl_fb_u32(&t, PL_F_OP_OPCODE_INDEX, 0);
    if (opcode >= v->opcodes.n)
        return fail(v, "opcode index %u out of range (%u operator codes)", opcode,
                    v->opcodes.n);
    PL_TRY(verify_options(v, &t));
    return verify_external(v, pl_fb_u64(&t, PL_F_OP_LARGE_CUSTOM_OFFSET, 0),
                           pl_fb_u64(&t, PL_F_OP_LARGE_CUSTOM_SIZE, 0), "large custom options");
}

/* ---- subgraphs ---- */

static const field_rule subgraph_rules[] = {
    {PL_F_SUBGRAPH_TENSORS, F_VEC | 4, "tensors"},
    {PL_F_SUBGRAPH_INPUTS, F_VEC | 4, "inputs"},
    {PL_F_SUBGRAPH_OUTPUTS, F_VEC | 4, "outputs"},
    {PL_F_SUBGRAPH_OPERATORS, F_VEC | 4, "operators"},
    {PL_F_SUBGRAPH_NAME, F_STR, "name"},
};

static pl_status verify_subgraph(vstate *v, uint32_t sg)
{
    pl_table t;
    at(v, "subgraph", -1, sg);
    PL_TRY(elem_table(v, v->subgraphs, sg, &t));
    PL_TRY(check_fields(v, &t, RULES(subgraph_rules)));
    pl_vec tensors = pl_fb_vec(&t, PL_F_SUBGRAPH_TENSORS);
    pl_vec ops = pl_fb_vec(&t, PL_F_SUBGRAPH_OPERATORS);
    PL_TRY(verify_indices(v, pl_fb_vec(&t, PL_F_SUBGRAPH_INPUTS), tensors.n, "input", 0));
    PL_TRY(verify_indices(v, pl_fb_vec(&t, PL_F_SUBGRAPH_OUTPUTS), tensors.n, "output", 0));
    for (uint32_t i = 0; i < tensors.n; i++)
        PL_TRY(verify_tensor(v, tensors, sg, i));
    for (uint32_t i = 0; i < ops.n; i++)
        PL_TRY(verify_operator(v, ops, sg, i, tensors));
    return PL_OK;
}

/* ---- metadata and signatures ---- */

static pl_status verify_metadata(vstate *v, pl_vec metadata, uint32_t i)
{
    pl_table t;
    at(v, "metadata", -1, i);
    static const field_rule rules[] = {
        {PL_F_METADATA_NAME, F_STR, "name"},
        {PL_F_METADATA_BUFFER, 4, "buffer"},
    };
    PL_TRY(elem_table(v, metadata, i, &t));
    /* an out-of-range buffer is not refused: readers skip the entry, as LiteRT does */
    return check_fields(v, &t, RULES(rules));
}

static pl_status verify_tensor_maps(vstate *v, const pl_table *sig, uint32_t field,
                                    const char *name, uint32_t n_tensors)
{
    pl_table t;
    PL_TRY(check_field(v, sig, field, F_VEC | 4, name));
    pl_vec maps = pl_fb_vec(sig, field);
    for (uint32_t j = 0; j < maps.n; j++) {
        PL_TRY(elem_table(v, maps, j, &t));
        PL_TRY(check_field(v, &t, PL_F_TENSORMAP_NAME, F_STR, name));
        PL_TRY(check_field(v, &t, PL_F_TENSORMAP_TENSOR, 4, name));
        uint32_t x = pl_fb_u32(&t, PL_F_TENSORMAP_TENSOR, 0);
        if (x >= n_tensors)
            return fail_field(v, name, "entry %u is tensor %u, out of range (%u tensors)", j, x,
                              n_tensors);
    }
    return PL_OK;
}

static pl_status verify_signature(vstate *v, pl_vec sigs, uint32_t i)
{
    pl_table t;
    at(v, "signature", -1, i);
    PL_TRY(elem_table(v, sigs, i, &t));
    PL_TRY(check_field(v, &t, PL_F_SIGNATURE_KEY, F_STR, "signature_key"));
    if (pl_table_field(&t, PL_F_SIGNATURE_KEY) == 0) /* LiteRT refuses the model too */
        return fail(v, "no signature_key: a signature must be named");
    PL_TRY(check_field(v, &t, PL_F_SIGNATURE_SUBGRAPH, 4, "subgraph_index"));
    uint32_t sg = pl_fb_u32(&t, PL_F_SIGNATURE_SUBGRAPH, 0);
    if (sg >= v->subgraphs.n)
        return fail(v, "subgraph %u out of range (%u subgraphs)", sg, v->subgraphs.n);
    pl_table sgt = pl_fb_table_elem(v->fb, v->subgraphs, sg);
    uint32_t n_tensors = pl_fb_vec(&sgt, PL_F_SUBGRAPH_TENSORS).n;
    PL_TRY(verify_tensor_maps(v, &t, PL_F_SIGNATURE_INPUTS, "inputs", n_tensors));
    return verify_tensor_maps(v, &t, PL_F_SIGNATURE_OUTPUTS, "outputs", n_tensors);
}

/* ---- the model ---- */

static const field_rule model_rules[] = {
    {PL_F_MODEL_VERSION, 4, "version"},
    {PL_F_MODEL_OPERATOR_CODES, F_VEC | 4, "operator_codes"},
    {PL_F_MODEL_SUBGRAPHS, F_VEC | 4, "subgraphs"},
    {PL_F_MODEL_DESCRIPTION, F_STR, "description"},
    {PL_F_MODEL_BUFFERS, F_VEC | 4, "buffers"},
    {PL_F_MODEL_METADATA_BUFFER, F_VEC | 4, "metadata_buffer"},
    {PL_F_MODEL_METADATA, F_VEC | 4, "metadata"},
    {PL_F_MODEL_SIGNATURE_DEFS, F_VEC | 4, "signature_defs"},
};

static pl_status verify_root(vstate *v, const pl_table *root, pl_vec *metadata, pl_vec *sigs)
{
    PL_TRY(check_fields(v, root, RULES(model_rules)));
    v->opcodes = pl_fb_vec(root, PL_F_MODEL_OPERATOR_CODES);
    v->subgraphs = pl_fb_vec(root, PL_F_MODEL_SUBGRAPHS);
    v->buffers = pl_fb_vec(root, PL_F_MODEL_BUFFERS);
    *metadata = pl_fb_vec(root, PL_F_MODEL_METADATA);
    *sigs = pl_fb_vec(root, PL_F_MODEL_SIGNATURE_DEFS);
    if (v->subgraphs.n == 0)
        return fail(v, "no subgraphs");
    return PL_OK;
}

pl_status pl_verify_model(const uint8_t *buf, uint32_t size, pl_error *err)
{
    vstate v = {.fb = {buf, size}, .err = err, .budget = BUDGET_BASE + 4ull * size};
    pl_table root;
    pl_vec metadata, sigs;
    pl_error_clear(&v.scratch);
    PL_TRY(verify_header(&v, &root));
    PL_TRY(verify_root(&v, &root, &metadata, &sigs));
    for (uint32_t i = 0; i < v.buffers.n; i++)
        PL_TRY(verify_buffer(&v, i));
    for (uint32_t i = 0; i < v.opcodes.n; i++)
        PL_TRY(verify_opcode(&v, i));
    for (uint32_t i = 0; i < v.subgraphs.n; i++)
        PL_TRY(verify_subgraph(&v, i));
    for (uint32_t i = 0; i < metadata.n; i++)
        PL_TRY(verify_metadata(&v, metadata, i));
    for (uint32_t i = 0; i < sigs.n; i++)
        PL_TRY(verify_signature(&v, sigs, i));
    return PL_OK;
}
