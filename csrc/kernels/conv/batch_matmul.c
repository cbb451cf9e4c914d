/* batch_matmul.c - BATCH_MATMUL as LiteRT's reference kernel computes it: out = op(lhs) x
** op(rhs) per broadcast batch, accumulating over depth in ascending order. */
#include "batch_matmul.h"

#include "kernels/common/fixedpoint.h"
#include "kernels/common/madd.h"
#include "picolite/pl_node_io.h"

/* BatchMatMulOptions field ids (schema.fbs). */
enum { OPT_ADJ_X = 0, OPT_ADJ_Y, OPT_ASYMMETRIC_INPUTS };

typedef pl_batch_matmul_op op_data;

/* Element offsets of lhs(i, k) and rhs(k, j) inside one batch's matrices. */
static size_t lhs_at(const pl_batch_matmul_params *p, int32_t i, int32_t k)
{
    return p->adj_x ? (size_t)k * (size_t)p->rows + (size_t)i
                    : (size_t)i * (size_t)p->depth + (size_t)k;
}

static size_t rhs_at(const pl_batch_matmul_params *p, int32_t k, int32_t j)
{
    return p->adj_y ? (size_t)j * (size_t)p->depth + (size_t)k
                    : (size_t)k * (size_t)p->cols + (size_t)j;
}

/* For every output element: l and r point at the batch's matrices, o at its output. */
#define FOR_EACH_OUTPUT(p, BODY)                                                      \
    for (int32_t b0 = 0; b0 < p->batch[0]; b0++)                                      \
        for (int32_t b1 = 0; b1 < p->batch[1]; b1++)                                  \
            for (int32_t b2 = 0; b2 < p->batch[2]; b2++) {                            \
                size_t lb = b0 * p->lhs_stride[0] + b1 * p->lhs_stride[1] +           \
                            b2 * p->lhs_stride[2];                                    \
                size_t rb = b0 * p->rhs_stride[0] + b1 * p->rhs_stride[1] +           \
                            b2 * p->rhs_stride[2];                                    \
                size_t ob = (((size_t)b0 * p->batch[1] + b1) * p->batch[2] + b2) *    \
                            (size_t)p->rows * (size_t)p->cols;                        \
                for (int32_t i = 0; i < p->rows; i++)                                 \
                    for (int32_t j = 0; j < p->cols; j++) {                           \
                        size_t o = ob + (size_t)i * (size_t)p->cols + (size_t)j;      \
                        BODY;                                                         \
                    }                                                                 \
            }

void pl_batch_matmul_f32(const pl_batch_matmul_params *p, const float *lhs, const float *rhs,
                         float *out)
{
    FOR_EACH_OUTPUT(p, {
        float total = 0.0f;
        for (int32_t k = 0; k < p->depth; k++)
            total = pl_madd_f32(total, lhs[lb + lhs_at(p, i, k)], rhs[rb + rhs_at(p, k, j)],
                                p->fused);
        out[o] = total;
    })
}

void pl_batch_matmul_s8(const pl_batch_matmul_params *p, const int8_t *lhs,
                        const int8_t *rhs, int8_t *out)
{
    FOR_EACH_OUTPUT(p, {
        int32_t total = 0;
        for (int32_t k = 0; k < p->depth; k++)
            total += (rhs[rb + rhs_at(p, k, j)] + p->rhs_offset) *
                     (lhs[lb + lhs_at(p, i, k)] + p->lhs_offset);
        total = pl_fx_mul_by_qm(total, p->multiplier, p->shift) + p->output_offset;
        out[o] = (int8_t)pl_fx_clamp(total, p->act_min, p->act_max);
    })
}

void pl_batch_matmul_s16(const pl_batch_matmul_params *p, const int16_t *lhs,
                         const int16_t *rhs, int16_t *out)
{
    FOR_EACH_OUTPUT(p, {
        int64_t total = 0;
        for (int32_t k = 0; k < p->depth; k++)
            total += (int64_t)(rhs[rb + rhs_at(p, k, j)] + p->rhs_offset) *
                     (lhs[lb + lhs_at(p, i, k)] + p->lhs_offset);
        int32_t v = pl_fx_mul_by_qm64(total, p->multiplier, p->shift) + p->output_offset;
        out[o] = (int16_t)pl_fx_clamp(v, p->act_min, p->act_max);
    })
}

/* Dim d (0..4) of t extended on the left to rank 5 with ones. */
static int32_t dim5(const pl_tensor *t, int32_t d)
{
    int32_t k = d - (5 - t->ndims);
    return k < 0 ? 1 : t->dims[k];
}

/* Batch broadcasting and the matrix sizes; the output becomes [batch..., rows, cols] as
** TFLite's ResizeOutputTensor makes it. */
static pl_status check_shapes(pl_context *ctx, const pl_tensor *l, const pl_tensor *r,
                              pl_tensor *out, pl_batch_matmul_params *p)
{
    if (l->ndims < 2 || l->ndims > 5 || r->ndims < 2 || r->ndims > 5)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "BATCH_MATMUL: ranks %d and %d are not in "
                         "2..5", l->ndims, r->ndims);
    p->rows = p->adj_x ? dim5(l, 4) : dim5(l, 3);
    p->depth = p->adj_x ? dim5(l, 3) : dim5(l, 4);
    p->cols = p->adj_y ? dim5(r, 3) : dim5(r, 4);
    int32_t rdepth = p->adj_y ? dim5(r, 4) : dim5(r, 3);
    size_t ls = (size_t)dim5(l, 3) * (size_t)dim5(l, 4);
    size_t rs = (size_t)dim5(r, 3) * (size_t)dim5(r, 4);
    for (int32_t d = 2; d >= 0; d--) {
        int32_t a = dim5(l, d), b = dim5(r, d);
        if (a != b && a != 1 && b != 1)
            return ctx->fail(ctx, PL_ERR_MODEL, "BATCH_MATMUL: batch dims %d and %d do not "
                             "broadcast", a, b);
        p->batch[d] = a > b ? a : b;
        p->lhs_stride[d] = a == 1 ? 0 : ls;
        p->rhs_stride[d] = b == 1 ? 0 : rs;
        ls *= (size_t)a;
        rs *= (size_t)b;
    }
    if (rdepth != p->depth)
        return ctx->fail(ctx, PL_ERR_MODEL, "BATCH_MATMUL: depths %d and %d differ", p->depth,
                         rdepth);
    int32_t out_rank = l->ndims > r->ndims ? l->ndims : r->ndims, dims[5];
    for (int32_t d = 0; d < out_rank - 2; d++)
        dims[d] = p->batch[3 - (out_rank - 2) + d];
    dims[out_rank - 2] = p->rows;
    dims[out_rank - 1] = p->cols;
    return pl_set_output_shape(ctx, out, out_rank, dims);
}

static pl_status prepare_quant(pl_context *ctx, const pl_tensor *l, const pl_tensor *r,
                               const pl_tensor *out, pl_batch_matmul_params *p)
{
    if (l->q.count != 1 || r->q.count != 1 || out->q.count != 1)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "BATCH_MATMUL: needs per-tensor "
                         "quantization (got %u, %u, %u scales)", l->q.count, r->q.count,
                         out->q.count);
    p->lhs_offset = -(int32_t)l->q.zero_point[0];
    p->rhs_offset = -(int32_t)r->q.zero_point[0];
    p->output_offset = (int32_t)out->q.zero_point[0];
    if (l->type == PL_INT16 && (p->lhs_offset != 0 || p->rhs_offset != 0 ||
                                p->output_offset != 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "BATCH_MATMUL: int16 zero points must be 0");
    /* GetQuantizedConvolutionMultipler: the scale product in float (LiteRT, TFLM 90b983c)
    ** or in double (the wheel's TFLM), the ratio in double */
    double product = pl_fx_pick(pl_arith_wide(ctx->arith),
                                 (double)l->q.scale[0] * (double)r->q.scale[0],
                                 (double)(l->q.scale[0] * r->q.scale[0]));
    pl_fx_quantize_multiplier(product / (double)out->q.scale[0], &p->multiplier, &p->shift);
    p->act_min = l->type == PL_INT8 ? INT8_MIN : INT16_MIN;
    p->act_max = l->type == PL_INT8 ? INT8_MAX : INT16_MAX;
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor *l, *r, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &l, &r, &out));
    if (!(l->type == PL_FLOAT32 || l->type == PL_INT8 || l->type == PL_INT16) ||
        r->type != l->type || out->type != l->type)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "BATCH_MATMUL: inputs %s, %s with output "
                         "%s are not supported", pl_type_name(l->type),
                         pl_type_name(r->type), pl_type_name(out->type));
    d->p.adj_x = pl_table_bool(&node->options, OPT_ADJ_X, false);
    d->p.adj_y = pl_table_bool(&node->options, OPT_ADJ_Y, false);
    d->p.fused = ctx->fused_madd;
    PL_TRY(check_shapes(ctx, l, r, out, &d->p));
    d->type = l->type;
    if (l->type != PL_FLOAT32)
        PL_TRY(prepare_quant(ctx, l, r, out, &d->p));
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor l, r, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &l, &r, &out));
    if (d->type == PL_FLOAT32)
        pl_batch_matmul_f32(&d->p, l.data, r.data, out.data);
    else if (d->type == PL_INT8)
        pl_batch_matmul_s8(&d->p, l.data, r.data, out.data);
    else
        pl_batch_matmul_s16(&d->p, l.data, r.data, out.data);
    return PL_OK;
}

const pl_registration *pl_batch_matmul_registration(void)
{
    static const pl_registration reg = {.name = "BATCH_MATMUL", .builtin_code = 126,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
