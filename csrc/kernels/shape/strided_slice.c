/* strided_slice.c - STRIDED_SLICE (TFLite strided_slice.cc + strided_slice_logic.h).
**
** Prepare expands ellipsis_mask and new_axis_mask into an "effective" input shape with
** per-axis begin/end/stride exactly as TFLite's BuildStridedSliceParams does, then fixes
** each axis' start and stop with StridedSliceStartForAxis/EndForAxis (offset included).
** begin/end/strides must be constant. Invoke is a strided copy of any fixed-size type. */
#include "strided_slice.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_STRIDED_SLICE = 45 };

typedef pl_strided_slice_op opdata;

/* TFLite's StridedSliceParams after BuildStridedSliceParams. */
typedef struct params {
    int32_t n;
    int32_t begin[PL_STRIDED_SLICE_MAX_DIMS], end[PL_STRIDED_SLICE_MAX_DIMS];
    int32_t stride[PL_STRIDED_SLICE_MAX_DIMS], dims[PL_STRIDED_SLICE_MAX_DIMS];
    int32_t begin_mask, end_mask, shrink_mask;
    int32_t input_axis[PL_STRIDED_SLICE_MAX_DIMS]; /* -1 for an added axis */
    bool offset;
} params;

/* A constant 1-D INT32 or INT64 operand: begin, end or strides. */
typedef struct operand {
    const uint8_t *data;
    pl_type type;
} operand;

typedef struct spec {
    operand begin, end, strides;
    int32_t count; /* entries in begin/end/strides */
    int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
} spec;

static int32_t clamp(int32_t v, int32_t lo, int32_t hi)
{
    return hi < v ? hi : v < lo ? lo : v;
}

/* max(0, ceil(x / y)) for y != 0: TFLite's std::ceil of the float quotient, floored at 0. */
static int64_t ceil_div(int64_t x, int64_t y)
{
    int64_t q = x / y, r = x % y;
    if (r != 0 && (r > 0) == (y > 0))
        q++;
    return q > 0 ? q : 0;
}

static int32_t spec_at(operand t, int32_t i)
{
    if (t.type == PL_INT64)
        return (int32_t)(int64_t)pl_le64(t.data + 8 * (size_t)i);
    return (int32_t)pl_le32(t.data + 4 * (size_t)i);
}

/* Which effective axes are ellipsis and which are new; TFLite's first loop. */
static void expand_masks(const spec *s, int32_t in_ndims, int32_t eff, int32_t *ell_mask,
                         int32_t *new_mask, int32_t *ell_start, int32_t *expanded)
{
    int32_t num_add = eff - in_ndims;
    *ell_mask = 0;
    *new_mask = 0;
    *ell_start = eff;
    *expanded = 0;
    for (int32_t i = 0; i < eff;) {
        if ((1 << i) & s->ellipsis_mask) {
            *ell_start = i;
            int32_t stop = i + 1 + num_add + in_ndims - s->count;
            stop = stop < eff ? stop : eff;
            stop = stop > i + 1 ? stop : i + 1;
            *expanded = stop - i - 1;
            for (; i < stop; i++)
                *ell_mask |= 1 << i;
            continue;
        }
        if ((1 << (i - *expanded)) & s->new_axis_mask)
            *new_mask |= 1 << i;
        i++;
    }
}

static void build_params(const spec *s, const pl_tensor *in, int32_t eff, params *p)
{
    int32_t ell_mask, new_mask, ell_start, expanded, added_ell = 0, added_axes = 0;
    expand_masks(s, in->ndims, eff, &ell_mask, &new_mask, &ell_start, &expanded);
    p->n = eff;
    p->begin_mask = p->end_mask = p->shrink_mask = 0;
    for (int32_t i = 0; i < eff; i++) {
        int32_t bit = 1 << i;
        p->begin[i] = 0;
        p->end[i] = 0;
        p->stride[i] = 1;
        p->input_axis[i] = i - added_axes;
        if (bit & ell_mask) {
            added_ell = i - ell_start > 0 ? i - ell_start : 0;
            p->begin_mask |= bit;
            p->end_mask |= bit;
        } else if (bit & new_mask) {
            p->end[i] = 1;
            p->input_axis[i] = -1;
            added_axes++;
        } else if (i >= s->count + expanded) {
            p->begin_mask |= bit;
            p->end_mask |= bit;
        } else {
            int32_t k = i - added_ell;
            p->begin[i] = spec_at(s->begin, k);
            p->end[i] = spec_at(s->end, k);
            p->stride[i] = spec_at(s->strides, k);
            p->begin_mask |= (s->begin_mask >> k & 1) << i;
            p->end_mask |= (s->end_mask >> k & 1) << i;
            p->shrink_mask |= (s->shrink_mask >> k & 1) << i;
        }
        p->dims[i] = p->input_axis[i] < 0 ? 1 : in->dims[p->input_axis[i]];
    }
}

/* TFLite StridedSliceStartForAxis. */
static int32_t start_for_axis(const params *p, int32_t a)
{
    int32_t size = p->dims[a], start = p->begin[a];
    if (start < 0)
        start += size;
    start = p->stride[a] > 0 ? clamp(start, 0, size) : clamp(start, -1, size - 1);
    if (p->begin_mask & (1 << a))
        start = p->stride[a] > 0 ? 0 : size - 1;
    return start;
}

/* TFLite StridedSliceEndForAxis. */
static int32_t end_for_axis(const params *p, int32_t a, int32_t start)
{
    int32_t size = p->dims[a];
    if (p->shrink_mask & (1 << a))
        return start >= size ? start : start + 1;
    int64_t wide = p->end[a]; /* end + start can pass INT32_MAX in a hostile model */
    if (p->offset)
        wide += start;
    if (wide < 0)
        wide += size;
    wide = wide < -1 ? -1 : wide > size ? size : wide;
    int32_t end = p->stride[a] > 0 ? clamp((int32_t)wide, 0, size)
                                   : clamp((int32_t)wide, -1, size - 1);
    if (p->end_mask & (1 << a))
        end = p->stride[a] > 0 ? size : -1;
    return end;
}

/* Eval views, not get_tensor's copies in temp: prepare needs no quantization here, so the
** arena's temp holds nothing for this node (TFLM's holds five TfLiteTensors). */
static pl_status read_spec(pl_context *ctx, pl_node *node, spec *s)
{
    operand *o[3] = {&s->begin, &s->end, &s->strides};
    for (uint32_t k = 0; k < 3; k++) {
        pl_tensor t; /* present: prepare's pl_node_check */
        PL_TRY(pl_node_eval(ctx, node, false, k + 1, &t));
        if (t.type != PL_INT32 && t.type != PL_INT64)
            return ctx->fail(ctx, PL_ERR_MODEL, "begin/end/strides must be INT32 or INT64");
        if (!t.is_constant || t.data == NULL)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "begin/end/strides tensor %d is not "
                             "constant", (int)t.index);
        if (t.ndims != 1 || (k > 0 && t.dims[0] != s->count))
            return ctx->fail(ctx, PL_ERR_MODEL, "begin/end/strides must be 1-D of one length");
        o[k]->data = t.data;
        o[k]->type = t.type;
        s->count = t.dims[0];
    }
    s->begin_mask = pl_table_i32(&node->options, 0, 0);
    s->end_mask = pl_table_i32(&node->options, 1, 0);
    s->ellipsis_mask = pl_table_i32(&node->options, 2, 0);
    s->new_axis_mask = pl_table_i32(&node->options, 3, 0);
    s->shrink_mask = pl_table_i32(&node->options, 4, 0);
    return PL_OK;
}

static int32_t effective_rank(const spec *s, int32_t in_ndims)
{
    int32_t n = in_ndims;
    for (int32_t i = 0; i < s->count && i < 31; i++) {
        if (!((1 << i) & s->ellipsis_mask) && ((1 << i) & s->new_axis_mask))
            n++;
    }
    return n;
}

/* Fills the op data; the output gets the kept axes' counts as TFLite's Prepare resizes it
** (an empty slice is 0, never negative). */
static pl_status plan(pl_context *ctx, const params *p, const pl_tensor *in, pl_tensor *out,
                      opdata *d)
{
    int32_t kept = 0, dims[PL_STRIDED_SLICE_MAX_DIMS];
    uint64_t step = 1; /* wraps only when a 0 dim leaves nothing to copy */
    for (int32_t a = in->ndims - 1; a >= 0; a--) {
        for (int32_t e = p->n - 1; e >= 0; e--) {
            if (p->input_axis[e] == a)
                d->in_step[e] = (int64_t)step;
        }
        step *= (uint64_t)in->dims[a];
    }
    d->ndims = p->n;
    for (int32_t a = 0; a < p->n; a++) {
        if (p->stride[a] == 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "stride of axis %d is 0", (int)a);
        /* TFLite's loop never runs for these and leaves the output unwritten */
        if (p->stride[a] < 0 && (p->shrink_mask & (1 << a)))
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "shrinking axis %d with a negative "
                             "stride (TFLite's reference writes nothing)", (int)a);
        int32_t b = start_for_axis(p, a), e = end_for_axis(p, a, b), st = p->stride[a];
        int64_t n = ceil_div((int64_t)e - b, st);
        n = n < 0 ? 0 : n;
        d->start[a] = b;
        d->stride[a] = st;
        d->count[a] = (int32_t)n;
        if (p->input_axis[a] < 0)
            d->in_step[a] = 0;
        if (p->shrink_mask & (1 << a)) {
            /* TFLite reads past the input here; TensorFlow calls it an error */
            if (d->count[a] != 1)
                return ctx->fail(ctx, PL_ERR_MODEL, "shrink_axis_mask takes index %d of an "
                                 "axis of %d", (int)p->begin[a], (int)p->dims[a]);
            continue;
        }
        /* with offset, TFLite sizes the output as end / stride, unclamped and unmasked,
        ** and reads past the input when that differs from the clamped slice */
        if (p->offset && ceil_div(p->end[a], st) != n)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "offset slice of axis %d leaves the "
                             "input or uses a mask (TFLite reads out of bounds)", (int)a);
        dims[kept++] = d->count[a];
    }
    return pl_set_output_shape(ctx, out, kept, dims);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_node_check(ctx, node, PL_IO(4, 1)));
    pl_tensor in, out; /* eval views, as read_spec's */
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    PL_TRY(pl_check_types(ctx, &in, &out, PL_TYPES_FIXED_SIZE));
    spec s = {0};
    PL_TRY(read_spec(ctx, node, &s));
    int32_t eff = effective_rank(&s, in.ndims);
    if (eff > PL_STRIDED_SLICE_MAX_DIMS || s.count > PL_STRIDED_SLICE_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "effective rank %d (at most %d)", (int)eff,
                         PL_STRIDED_SLICE_MAX_DIMS);
    params p;
    build_params(&s, &in, eff, &p);
    p.offset = pl_table_bool(&node->options, 5, false);
    PL_TRY(plan(ctx, &p, &in, &out, node->user_data));
    return ctx->fold(ctx, node, false);
}

void pl_strided_slice_copy(int32_t ndims, const int32_t *start, const int32_t *stride,
                           const int32_t *count, const int64_t *in_step, size_t esize,
                           const void *in, void *out)
{
    size_t total = 1;
    for (int32_t a = 0; a < ndims; a++)
        total *= (size_t)count[a];
    if (total == 0) /* the steps of an empty input may have wrapped: do not touch them */
        return;
    int32_t at[PL_STRIDED_SLICE_MAX_DIMS] = {0};
    int64_t src = 0;
    for (int32_t a = 0; a < ndims; a++)
        src += (int64_t)start[a] * in_step[a];
    uint8_t *dst = out;
    for (size_t i = 0; i < total; i++) {
        memcpy(dst + i * esize, (const uint8_t *)in + (size_t)src * esize, esize);
        for (int32_t a = ndims - 1; a >= 0; a--) {
            src += (int64_t)stride[a] * in_step[a];
            if (++at[a] < count[a])
                break;
            src -= (int64_t)stride[a] * in_step[a] * count[a];
            at[a] = 0;
        }
    }
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    pl_strided_slice_copy(d->ndims, d->start, d->stride, d->count, d->in_step,
                          pl_type_size(in.type), in.data, out.data);
    return PL_OK;
}

const pl_registration *pl_strided_slice_registration(void)
{
    static const pl_registration r = {.name = "STRIDED_SLICE", .builtin_code = OP_STRIDED_SLICE,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
