/* reduce.c - MEAN and SUM as LiteRT's reference kernels compute them: float sums in input
** order; int8/int16 MEAN through the integer QuantizedMeanOrSum (one rescale of the centered
** sum, 1/count folded into the multiplier), for every axis combination.
**
** SUM int8 under target litert follows what LiteRT 2.3.0's BUILTIN_REF really does (probed
** against it, whatever the scales): it runs QuantizedMeanOrSum instantiated for uint8, so the
** int8 bytes are summed as uint8 (-1 counts 255), the result clamps to [0, 255] and that byte
** is stored (255 reads back as -1). The zero points are used as given. Deterministic, so
** reproduced. TFLM's targets run QuantizedMeanOrSum<int8_t>, as int8 MEAN without the
** division.
** SUM int16 through the same path reads the int16 buffer as bytes and leaves half of the
** output unwritten (garbage from the arena): no defined result, so int16 SUM follows TFLM,
** whose SUM runs QuantizedMeanOrSum<int16_t> (the int16 MEAN's path without the division).
** Legacy uint8 MEAN and SUM are the template for the type it was written for: [0, 255]. */
#include "reduce.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "picolite/pl_node_io.h"

/* ReducerOptions field ids (schema.fbs). */
enum { OPT_KEEP_DIMS = 0 };


typedef pl_reduce_op op_data;
typedef pl_reduce_blocks block_shape;

bool pl_reduce_as_blocks(const pl_reduce_params *p, block_shape *b)
{
    size_t n[3] = {1, 1, 1};
    int part = 0; /* 0: kept dims before the reduced ones, 1: reduced, 2: kept after */
    for (int32_t d = 0; d < p->ndims; d++) {
        if (p->dims[d] == 1)
            continue;
        bool red = p->out_stride[d] == 0;
        if (part == 0 && red)
            part = 1;
        else if (part == 1 && !red)
            part = 2;
        else if (part == 2 && red)
            return false;
        n[part] *= (size_t)p->dims[d];
    }
    b->outer = n[0];
    b->reduced = part == 0 ? 1 : n[1];
    b->inner = n[2];
    return true;
}

/* acc[o][c] += x[o][r][c] over r, in r order; WIDEN converts one element. */
#define SUM_BLOCKS(b, acc, x, WIDEN)                                                      \
    do {                                                                              \
        for (size_t o_ = 0; o_ < (b).outer; o_++) {                                   \
            for (size_t r_ = 0; r_ < (b).reduced; r_++) {                             \
                const size_t row_ = (o_ * (b).reduced + r_) * (b).inner;              \
                for (size_t c_ = 0; c_ < (b).inner; c_++)                             \
                    (acc)[o_ * (b).inner + c_] += WIDEN((x)[row_ + c_]);              \
            }                                                                         \
        }                                                                             \
    } while (0)

#define AS_IS(v) (v)
#define AS_U32(v) ((uint32_t)(v))

void pl_reduce_sum_f32(const pl_reduce_params *p, const float *in, float *acc)
{
    for (size_t k = 0; k < p->out_count; k++)
        acc[k] = 0.0f;
    block_shape b;
    if (pl_reduce_as_blocks(p, &b))
        SUM_BLOCKS(b, acc, in, AS_IS);
    else
        PL_REDUCE_FOR_EACH(p, acc[slot] += in[i]);
}

void pl_reduce_sum_s32(const pl_reduce_params *p, const void *in, pl_type type,
                       int32_t *acc)
{
    memset(acc, 0, p->out_count * sizeof *acc);
    /* int32 sums as LiteRT's, wrapping (defined) where a huge reduction would overflow */
    uint32_t *u = (uint32_t *)acc;
    block_shape b;
    bool blocks = pl_reduce_as_blocks(p, &b);
    if (type == PL_UINT8) {
        const uint8_t *x = in;
        if (blocks)
            SUM_BLOCKS(b, u, x, AS_U32);
        else
            PL_REDUCE_FOR_EACH(p, u[slot] += x[i]);
    } else if (type == PL_INT8) {
        const int8_t *x = in;
        if (blocks)
            SUM_BLOCKS(b, u, x, AS_U32);
        else
            PL_REDUCE_FOR_EACH(p, u[slot] += (uint32_t)x[i]);
    } else {
        const int16_t *x = in;
        if (blocks)
            SUM_BLOCKS(b, u, x, AS_U32);
        else
            PL_REDUCE_FOR_EACH(p, u[slot] += (uint32_t)x[i]);
    }
}

static int32_t type_min(pl_type t)
{
    return t == PL_INT8 ? INT8_MIN : t == PL_UINT8 ? 0 : INT16_MIN;
}

static int32_t type_max(pl_type t)
{
    return t == PL_INT8 ? INT8_MAX : t == PL_UINT8 ? UINT8_MAX : INT16_MAX;
}

static void store(pl_type t, void *out, size_t k, int32_t v)
{
    if (t == PL_INT8)
        ((int8_t *)out)[k] = (int8_t)v;
    else if (t == PL_UINT8)
        ((uint8_t *)out)[k] = (uint8_t)v;
    else
        ((int16_t *)out)[k] = (int16_t)v;
}

/* LiteRT's QuantizedMeanOrSum: the sum of (x - zp) rescaled by in/out scale with one
** MultiplyByQuantizedMultiplier. For the mean, 1/count is folded into the multiplier:
** shift by floor(log2(count)) (at most 32 and 31 + shift), divide, subtract the shift. */
void pl_reduce_rescale_params_of(const op_data *d, pl_reduce_rescale_params *r)
{
    int32_t multiplier = d->multiplier, shift = d->shift;
    int64_t n = d->p.reduced;
    if (!d->is_sum) {
        int32_t up = 0;
        while (up < 62 && ((uint64_t)n >> (up + 1)) != 0)
            up++;
        up = up < 32 ? up : 32;
        up = up < 31 + shift ? up : 31 + shift;
        up = up > 0 ? up : 0; /* a scale ratio under 2^-31 (the reference shifts by < 0) */
        multiplier = (int32_t)(((int64_t)multiplier * ((int64_t)1 << up)) / n);
        shift -= up;
    }
    r->multiplier = multiplier;
    r->shift = shift;
    r->zp_n = (int32_t)(uint32_t)((int64_t)d->in_zp * n); /* subtracted wrapping */
    r->out_zp = d->out_zp;
    r->lo = d->as_uint8 ? 0 : type_min(d->type);
    r->hi = d->as_uint8 ? UINT8_MAX : type_max(d->type);
}

void pl_reduce_rescale(const op_data *d, const int32_t *sum, void *out)
{
    pl_reduce_rescale_params r;
    pl_reduce_rescale_params_of(d, &r);
    for (size_t k = 0; k < d->p.out_count; k++) { /* the rescale inlined: not a call each */
        int32_t v = pl_reduce_rescaled(&r, sum[k]);
        store(d->type, out, k, d->as_uint8 && v > INT8_MAX ? v - 256 : v);
    }
}

/* Resolves the constant axis tensor (negative axes, duplicates) into a mask of dims. */
static pl_status resolve_axes(pl_context *ctx, const char *name, const pl_tensor *axis,
                              int32_t ndims, uint32_t *mask)
{
    if (axis->type != PL_INT32 || axis->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: axis must be a constant INT32 tensor "
                         "(got %s%s)", name, pl_type_name(axis->type),
                         axis->data == NULL ? ", not constant" : "");
    pl_vec v = {axis->data, (uint32_t)pl_tensor_count(axis)};
    *mask = 0;
    for (uint32_t k = 0; k < v.n; k++) {
        int32_t a = pl_vec_i32(v, k);
        int32_t r = a < 0 ? a + ndims : a;
        if (r < 0 || r >= ndims)
            return ctx->fail(ctx, PL_ERR_MODEL, "%s: axis %d is out of range for rank %d",
                             name, a, ndims);
        *mask |= 1u << r;
    }
    return PL_OK;
}

/* Output dims as TFLite's ResizeOutputTensor: reduced ones become 1 (keep_dims) or
** disappear; a model that declares a full reduction [1] rather than [] keeps its [1]. */
static pl_status check_output(pl_context *ctx, const char *name, const pl_tensor *in,
                              pl_tensor *out, uint32_t mask, bool keep, pl_reduce_params *p)
{
    size_t stride = 1;
    int32_t kept = 0, dims[PL_MAX_DIMS];
    for (int32_t d = 0; d < in->ndims; d++) {
        if (keep || !((mask >> d) & 1u))
            dims[kept++] = keep && ((mask >> d) & 1u) ? 1 : in->dims[d];
    }
    if (kept == 0 && out->ndims == 1 && out->dims[0] == 1)
        dims[kept++] = 1;
    PL_TRY(pl_set_output_shape(ctx, out, kept, dims));
    kept = 0;
    int64_t reduced = 1; /* a 0 dim elsewhere lets the others multiply past int32 */
    p->ndims = in->ndims;
    for (int32_t d = in->ndims - 1; d >= 0; d--) {
        p->dims[d] = in->dims[d];
        bool red = (mask >> d) & 1u;
        p->out_stride[d] = red ? 0 : stride;
        stride *= red ? 1 : (size_t)in->dims[d];
        reduced *= red ? in->dims[d] : 1;
        reduced = reduced > INT32_MAX ? (int64_t)INT32_MAX + 1 : reduced;
        kept += red ? 0 : 1;
    }
    if (reduced > INT32_MAX)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: more than 2^31 - 1 elements reduced "
                         "into each output", name);
    p->reduced = (int32_t)reduced;
    p->out_count = stride;
    bool ok = pl_tensor_count(out) == stride && out->type == in->type &&
              (keep ? out->ndims == in->ndims : (out->ndims == kept ||
                                                 (kept == 0 && out->ndims == 1)));
    if (!ok)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: output (rank %d, %zu elements, %s) does not "
                         "match the reduction of a rank %d input to %zu elements", name,
                         out->ndims, pl_tensor_count(out), pl_type_name(out->type),
                         in->ndims, stride);
    return PL_OK;
}

static pl_status prepare_quant(pl_context *ctx, const char *name, const pl_tensor *in,
                               const pl_tensor *out, op_data *d)
{
    if (in->q.count != 1 || out->q.count != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input and output need per-tensor "
                         "quantization (got %u, %u scales)", name, in->q.count, out->q.count);
    d->in_zp = (int32_t)in->q.zero_point[0];
    d->out_zp = (int32_t)out->q.zero_point[0];
    if (in->type == PL_INT16 && (d->in_zp != 0 || d->out_zp != 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: int16 zero points must be 0", name);
    pl_fx_quantize_multiplier((double)in->q.scale[0] / (double)out->q.scale[0],
                              &d->multiplier, &d->shift);
    return PL_OK;
}

pl_status pl_reduce_plan(pl_context *ctx, pl_node *node, const char *name, pl_tensor **in,
                         pl_tensor **out, pl_reduce_params *p)
{
    pl_tensor *axis;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), in, &axis, out));
    bool keep = pl_table_bool(&node->options, OPT_KEEP_DIMS, false);
    uint32_t mask = 0;
    PL_TRY(resolve_axes(ctx, name, axis, (*in)->ndims, &mask));
    return check_output(ctx, name, *in, *out, mask, keep, p);
}

static pl_status prepare_reduce(pl_context *ctx, pl_node *node, const char *name)
{
    op_data *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_reduce_plan(ctx, node, name, &in, &out, &d->p));
    if (in->type != PL_FLOAT32 && in->type != PL_INT8 && in->type != PL_INT16 &&
        in->type != PL_UINT8)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: input type %s is not supported", name,
                         pl_type_name(in->type));
    d->type = in->type;
    /* LiteRT's quirk only: TFLM sums int8 as int8 */
    d->as_uint8 = d->is_sum && in->type == PL_INT8 && ctx->arith == PL_ARITH_LITERT;
    if (in->type == PL_FLOAT32)
        return PL_OK;
    /* the integer mean divides by the count (float gives NaN as TFLite does) */
    if (!d->is_sum && d->p.reduced == 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: integer mean over an empty axis", name);
    PL_TRY(prepare_quant(ctx, name, in, out, d));
    return ctx->request_scratch(ctx, d->p.out_count * sizeof(int32_t), &d->scratch);
}

static pl_status prepare_mean(pl_context *ctx, pl_node *node)
{
    ((op_data *)node->user_data)->is_sum = false;
    return prepare_reduce(ctx, node, "MEAN");
}

static pl_status prepare_sum(pl_context *ctx, pl_node *node)
{
    ((op_data *)node->user_data)->is_sum = true;
    return prepare_reduce(ctx, node, "SUM");
}

static void invoke_float(const op_data *d, const float *in, float *out)
{
    pl_reduce_sum_f32(&d->p, in, out);
    if (d->is_sum)
        return;
    float n = (float)d->p.reduced;
    for (size_t k = 0; k < d->p.out_count; k++)
        out[k] = out[k] / n;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    if (d->type == PL_FLOAT32) {
        invoke_float(d, in.data, out.data);
        return PL_OK;
    }
    int32_t *sum = ctx->get_scratch(ctx, d->scratch);
    if (sum == NULL)
        return ctx->fail(ctx, PL_ERR_STATE, "%s: scratch buffer %d missing",
                         d->is_sum ? "SUM" : "MEAN", d->scratch);
    pl_reduce_sum_s32(&d->p, in.data, d->as_uint8 ? PL_UINT8 : d->type, sum);
    pl_reduce_rescale(d, sum, out.data);
    return PL_OK;
}

const pl_registration *pl_reduce_mean_registration(void)
{
    static const pl_registration reg = {.name = "MEAN", .builtin_code = 40,
                                        .prepare = prepare_mean, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}

const pl_registration *pl_reduce_sum_registration(void)
{
    static const pl_registration reg = {.name = "SUM", .builtin_code = 74,
                                        .prepare = prepare_sum, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
