/* depthwise16.c - DEPTHWISE_CONV_2D's 16x8 fast path (see depthwise16.h): each batch staged
** into the host block with its padding written out (0: the int16 zero point) and its depth
** multiplier expanded, then one table run per output row. A filter or bias that is not a
** constant, more than PL_DW16_MAX_TAPS taps or a huge staged batch keep the portable
** kernel. */
#include <string.h>

#include "fast/depthwise.h"
#include "fast/depthwise16.h"
#include "fast/gemm.h" /* pl_fast_round_up */
#include "fast/gemm16.h" /* pl_s16_narrow */
#include "fast/isa_pick.h"
#include "fast/s16.h"
#include "kernels/conv/depthwise_conv_fast.h"

/* A staged batch larger than this keeps the portable kernel (host memory is not free). */
#define MAX_STAGED ((size_t)1 << 28)

typedef struct dw16_plan {
    pl_dw16_job job;
    pl_dw_geometry g;
    int16_t *staged;    /* one batch, zero where it is padding */
} dw16_plan;

const pl_dw_s16 *pl_dw_s16_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_dw_s16_avx2, &pl_dw_s16_avx2, &pl_dw_s16_sse41, &pl_dw_s16_neon,
                 &pl_dw_s16_neon);
    return NULL;
}

/* Position of channel c's lane within its group of 16 (depthwise16.h's order). */
static inline int32_t lane_of(int32_t c)
{
    static const int8_t order[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
    return order[c % 16];
}

/* The layout of depthwise16.h for filter w ([real taps][channels]) and bias (or NULL). */
static void pack(const pl_depthwise_conv_op *d, const pl_dw16_job *job, int32_t real_taps,
                 const int8_t *w, const int64_t *bias, uint8_t *out)
{
    const int32_t n = job->channels;
    for (int32_t c0 = 0; c0 < job->cp; c0 += 16, out += pl_dw16_group_bytes(job->taps)) {
        int16_t *pw = (int16_t *)out;
        for (int32_t t = 0; t < job->taps; t += 2)
            for (int32_t half = 0; half < 2; half++)
                for (int32_t lane = 0; lane < 2; lane++)
                    for (int32_t j = 0; j < 4; j++) {
                        int32_t c = c0 + 8 * lane + 4 * half + j;
                        for (int32_t q = t; q < t + 2; q++)
                            *pw++ = c < n && q < real_taps ? w[(size_t)q * (size_t)n + (size_t)c]
                                                           : 0;
                    }
        int64_t *arr = (int64_t *)(out + (size_t)job->taps / 2 * 64);
        for (int32_t c = c0; c < c0 + 16; c++) {
            int32_t at = lane_of(c);
            int32_t mult = c < n ? d->p.multiplier[c] : 0, sh = c < n ? d->p.shift[c] : 0;
            int64_t total = 15 - (int64_t)sh;
            arr[at] = 0;
            if (c < n && bias != NULL)
                memcpy(&arr[at], bias + c, sizeof(int64_t));
            arr[16 + at] = mult < 0x7FFF0000 ? ((int64_t)mult + (1 << 15)) >> 16 : 0x7FFF;
            arr[48 + at] = total < 1 ? 1 : total > 63 ? 63 : total;
            arr[32 + at] = (int64_t)(UINT64_C(1) << (arr[48 + at] - 1));
        }
    }
}

/* The largest magnitude of the int64 bias's n entries (0 without a bias). */
static int64_t bias_max(const pl_tensor *bias, int32_t n)
{
    int64_t most = 0;
    for (int32_t c = 0; c < n && bias->index >= 0; c++) {
        int64_t b;
        memcpy(&b, (const int64_t *)bias->data + c, sizeof b);
        int64_t mag = b < -(int64_t)INT32_MAX ? INT64_MAX : b < 0 ? -b : b;
        most = mag > most ? mag : most;
    }
    return most;
}

bool pl_fast_depthwise16_plan(pl_context *ctx, const pl_node *node)
{
    const pl_depthwise_conv_op *d = node->user_data;
    pl_tensor in, f, bias, out;
    if (d->type != PL_INT16 || pl_dw_s16_for(pl_fast_isa_of(node)) == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &f) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 2), &bias) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    if (f.data == NULL || !f.is_constant ||
        (bias.index >= 0 && (bias.data == NULL || !bias.is_constant || bias.type != PL_INT64)))
        return false;
    dw16_plan pl = {0};
    if (!pl_dw_geometry_of(&d->p, &in, &f, &out, MAX_STAGED, &pl.g))
        return false;
    size_t staged_elems = pl.g.staged;
    pl.job.channels = pl.g.channels;
    pl.job.cp = pl.g.cp;
    pl.job.step = pl.g.step;
    int64_t real_taps = (int64_t)f.dims[1] * f.dims[2];
    if (real_taps < 1 || real_taps > PL_DW16_MAX_TAPS)
        return false;
    pl.job.taps = pl_fast_round_up((int32_t)real_taps, 2);
    pl.job.out_offset = d->p.output_offset;
    pl.job.act_min = d->p.act_min;
    pl.job.act_max = d->p.act_max;
    pl.job.narrow = pl_s16_narrow(real_taps, bias_max(&bias, pl.job.channels));
    size_t packed = (size_t)(pl.job.cp / 16) * pl_dw16_group_bytes(pl.job.taps);
    size_t head = pl_fast_align64(sizeof pl);
    size_t taps = pl_fast_align64(sizeof(size_t) * (size_t)pl.job.taps);
    uint8_t *block = pl_fast_block_new(node, head + taps + pl_fast_align64(packed) +
                                                 staged_elems * sizeof(int16_t));
    if (block == NULL)
        return false;
    size_t *tap_at = (size_t *)(block + head);
    for (int32_t t = 0; t < pl.job.taps; t++) { /* the extra tap repeats the last one */
        int32_t r = t < real_taps ? t : (int32_t)real_taps - 1;
        int32_t fy = r / f.dims[2], fx = r % f.dims[2];
        tap_at[t] = ((size_t)fy * (size_t)d->p.dilation_h * (size_t)pl.g.wp +
                     (size_t)fx * (size_t)d->p.dilation_w) * (size_t)pl.job.cp;
    }
    pl.job.tap_at = tap_at;
    pl.job.packed = block + head + taps;
    pl.staged = (int16_t *)(block + head + taps + pl_fast_align64(packed));
    memset(pl.staged, 0, staged_elems * sizeof(int16_t));
    pack(d, &pl.job, (int32_t)real_taps, f.data, bias.index >= 0 ? bias.data : NULL,
         block + head + taps);
    memcpy(block, &pl, sizeof pl);
    return true;
}

static void stage(const dw16_plan *pl, const int16_t *in)
{
    const size_t cin = (size_t)pl->g.in_c, m = (size_t)pl->g.m;
    for (int32_t iy = 0; iy < pl->g.rows; iy++)
        for (int32_t ix = 0; ix < pl->g.cols; ix++) {
            const int16_t *s = in + ((size_t)iy * (size_t)pl->g.in_w + (size_t)ix) * cin;
            int16_t *o = pl->staged + ((size_t)(iy + pl->g.pad_h) * (size_t)pl->g.wp +
                                       (size_t)(ix + pl->g.pad_w)) * (size_t)pl->job.cp;
            if (m == 1)
                memcpy(o, s, cin * sizeof(int16_t));
            else
                for (size_t c = 0; c < cin; c++)
                    for (size_t k = 0; k < m; k++)
                        o[c * m + k] = s[c];
        }
}

pl_status pl_fast_depthwise16_invoke(pl_context *ctx, const pl_node *node, const void *block)
{
    const dw16_plan *pl = block;
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    const pl_dw_s16 *k = pl_dw_s16_for(pl_fast_isa_of(node));
    const size_t in_batch = (size_t)pl->g.in_h * (size_t)pl->g.in_w * (size_t)pl->g.in_c;
    const size_t out_row = (size_t)pl->g.ow * (size_t)pl->job.channels;
    const size_t row_step = (size_t)pl->g.stride_h * (size_t)pl->g.wp * (size_t)pl->job.cp;
    for (int32_t b = 0; b < in.dims[0]; b++) {
        size_t o = (size_t)b * (size_t)pl->g.oh * out_row;
        stage(pl, (const int16_t *)in.data + (size_t)b * in_batch);
        for (int32_t oy = 0; oy < pl->g.oh; oy++, o += out_row)
            k->run(&pl->job, pl->staged + (size_t)oy * row_step, pl->g.ow,
                   (int16_t *)out.data + o);
    }
    return PL_OK;
}
