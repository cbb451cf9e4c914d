/* conv_hybrid.c - CONV_2D's hybrid fast path (float input, int8 filter packed at prepare):
** each batch quantized whole as the portable kernel does it (hybrid.h's vector quantizer:
** asymmetric with per-channel filter scales, symmetric with one) into the host block, its
** windows gathered as rows with the zero point in the padded taps (conv_gather.h) or, with
** channels a multiple of 4 (AVX2, AVX-512), read in place from a copy of the quantized batch
** + 128 with that padding written out, as the int8 convolution reads its windows (conv.c);
** the int8 matrix product's sums, then the portable kernel's float stage in its order. A
** filter that is not a constant keeps the portable kernel. */
#include <string.h>

#include "fast/conv_gather.h"
#include "fast/gemm.h"
#include "fast/hybrid.h"
#include "kernels/conv/conv_fast.h"
#include "kernels/conv/conv_window_fast.h"
#include "kernels/conv/convq_views_fast.h"

typedef struct conv_hybrid_plan {
    int32_t k, kp, n;    /* taps x input channels, k rounded up to 4, output channels */
    int32_t rows;        /* output points per chunk */
    size_t in_size;      /* one batch's input values */
    void *packed;
    int32_t *weight_sum; /* per output channel */
    float *scale;        /* per output channel (a per-tensor scale repeated) */
    /* q, a, sums and flipped lie in the resolver's scratch (carve_scratch, at invoke) */
    int8_t *q;           /* one batch quantized */
    uint8_t *a;          /* per worker: rows x kp gathered taps, then the gather's spill room */
    int32_t *sums;       /* per worker: rows x n */
    size_t a_stride, sums_stride; /* bytes between two workers' */
    int32_t workers;
    /* in place (flipped not NULL): the quantized batch + 128 in hp x wp pixels (every
    ** window's extent), its padding the zero point + 128, rewritten at every invoke (the zero
    ** point is the batch's); tap_at[k]: the k-th byte of a window from its origin */
    uint8_t *flipped;
    int32_t *tap_at;
    int32_t hp, wp, channels; /* hp 0: the windows are gathered */
} conv_hybrid_plan;

/* Windows of at most this many bytes are read in place (conv.c's S8_TAP_K), from a copy of at
** most IN_PLACE_MAX bytes. 3x3 hybrid layers: 32x32x8 -> 32 33.8 -> 18.9 us, 16x16x64 -> 64
** 44.4 -> 34.5 us, 32x32x32 -> 64 stride 2 32.0 -> 27.8 us. */
enum { IN_PLACE_K = 16384, IN_PLACE_MAX = 1 << 22 };

/* Whether cp reads its windows in place: channels a multiple of 4 (each group of 4 bytes of
** a window lies together), not 1x1 (its rows are one run each anyway), a set with run_taps;
** sets cp's extent. */
static bool plan_in_place(const pl_gemm_s8 *g8, const pl_conv_params *p, const pl_tensor *in,
                          const pl_tensor *f, const pl_tensor *out, conv_hybrid_plan *cp)
{
    if (g8->run_taps == NULL || in->dims[3] % 4 != 0 || cp->k > IN_PLACE_K ||
        (f->dims[1] == 1 && f->dims[2] == 1))
        return false;
    int64_t hp, wp;
    pl_fast_conv_window_extent(p, f->dims, out->dims, &hp, &wp);
    if (hp * wp * in->dims[3] > IN_PLACE_MAX)
        return false;
    cp->hp = (int32_t)hp;
    cp->wp = (int32_t)wp;
    return true;
}

#define TAKE(field, bytes)                                                                \
    do {                                                                                  \
        if (base != NULL)                                                                 \
            cp->field = (void *)(base + at);                                              \
        at += pl_fast_align64(bytes);                                                     \
    } while (0)

/* The arrays after the plan's head in the block (each 64-byte aligned); block NULL: only
** the size. */
static size_t carve_block(const pl_gemm_s8 *g8, uint8_t *base, conv_hybrid_plan *cp)
{
    const size_t n = (size_t)cp->n;
    size_t at = pl_fast_align64(sizeof *cp);
    TAKE(packed, g8->packed_bytes(cp->n, cp->kp));
    TAKE(weight_sum, sizeof(int32_t) * n);
    TAKE(scale, sizeof(float) * n);
    if (cp->hp > 0)
        TAKE(tap_at, sizeof(int32_t) * (size_t)cp->k);
    return at;
}

/* What an invoke writes, in the resolver's scratch from base (NULL: only the size): the
** quantized batch, its flipped copy, each worker's rows and sums. */
static size_t carve_scratch(uint8_t *base, conv_hybrid_plan *cp)
{
    const size_t n = (size_t)cp->n, rows = (size_t)cp->rows;
    size_t at = 0;
    TAKE(q, cp->in_size);
    if (cp->hp > 0)
        TAKE(flipped, (size_t)cp->hp * (size_t)cp->wp * (size_t)cp->channels);
    /* the gathered rows, or in place the rows' window origins */
    size_t a = rows * (size_t)cp->kp + PL_FAST_GATHER_SPILL;
    if (cp->hp > 0 && a < rows * sizeof(uint8_t *))
        a = rows * sizeof(uint8_t *);
    cp->a_stride = pl_fast_align64(a);
    cp->sums_stride = pl_fast_align64(sizeof(int32_t) * rows * n);
    TAKE(a, cp->a_stride * (size_t)cp->workers);
    TAKE(sums, cp->sums_stride * (size_t)cp->workers);
    return at;
}
#undef TAKE

bool pl_fast_conv_hybrid_plan(pl_context *ctx, const pl_node *node)
{
    const pl_conv_op *d = node->user_data;
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(pl_fast_isa_of(node));
    pl_tensor in, f, out;
    if (!d->hybrid || g8 == NULL || pl_hybrid_for(pl_fast_isa_of(node)) == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &f) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK || f.data == NULL ||
        !f.is_constant || pl_tensor_count(&in) == 0 || pl_tensor_count(&out) == 0)
        return false;
    conv_hybrid_plan cp = {0};
    cp.n = f.dims[0];
    cp.k = f.dims[1] * f.dims[2] * f.dims[3];
    if (cp.k <= 0 || cp.n <= 0) /* an empty filter: the portable kernel (the bias alone) */
        return false;
    cp.kp = pl_fast_round_up(cp.k, 4);
    cp.in_size = pl_tensor_count(&in) / (size_t)in.dims[0];
    cp.workers = pl_fast_threads_of(node);
    cp.rows = pl_fast_chunk_rows_split((size_t)cp.kp, pl_tensor_count(&out) /
                                                          (size_t)out.dims[0] / (size_t)cp.n,
                                       cp.workers);
    cp.channels = in.dims[3];
    if (plan_in_place(g8, &d->p, &in, &f, &out, &cp))
        pl_fast_reg_of(node)->owner->hybrid_in_place++;
    else
        cp.hp = cp.wp = 0;
    uint8_t *block = pl_fast_block_new(node, carve_block(g8, NULL, &cp));
    if (block == NULL || !pl_fast_scratch_reserve(node, carve_scratch(NULL, &cp)))
        return false;
    carve_block(g8, block, &cp);
    if (cp.hp > 0)
        pl_fast_conv_fill_taps(&d->p, f.dims, cp.channels, cp.wp, cp.tap_at);
    const int8_t *w = f.data;
    g8->pack(w, cp.n, cp.k, cp.kp, cp.packed);
    for (int32_t c = 0; c < cp.n; c++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < cp.k; i++)
            sum += w[(size_t)c * (size_t)cp.k + (size_t)i];
        cp.weight_sum[c] = (int32_t)sum; /* |sum| < 2^31: the portable kernel's int32 sums */
        cp.scale[c] = d->h.filter_scale[d->h.per_channel ? c : 0];
    }
    memcpy(block, &cp, sizeof cp);
    return true;
}

/* One batch's chunk of output points: its windows of the quantized batch gathered into
** the worker's rows, their int8 sums, then the float stage. */
typedef struct hybrid_job {
    const conv_hybrid_plan *cp;
    const pl_conv_op *d;
    const pl_gemm_s8 *g8;
    const pl_hybrid_kernels *k;
    const pl_hybrid_out *o;
    const int32_t *in_dims, *f_dims, *out_dims; /* one batch's */
    size_t points;
    float *out; /* the batch's */
} hybrid_job;

/* The sums of rows points from first on into sums: their windows read in place from each
** point's origin in the flipped copy (origin: the worker's room for rows). */
static void sums_in_place(const hybrid_job *j, size_t first, int32_t rows, const uint8_t **origin,
                          int32_t *sums)
{
    const conv_hybrid_plan *cp = j->cp;
    const pl_conv_params *p = &j->d->p;
    const size_t c = (size_t)cp->channels;
    const size_t line = (size_t)cp->wp * c;
    pl_fast_conv_origins(cp->flipped, (size_t)cp->hp * line, line, (size_t)p->stride_w * c,
                         p->stride_h, j->out_dims, first, rows, origin);
    const pl_s8_windows win = {origin, cp->tap_at};
    j->g8->run_taps(rows, cp->n, cp->kp, &win, cp->packed, NULL, NULL, sums, (size_t)cp->n);
}

static void hybrid_chunk(void *arg, int32_t worker, int32_t task)
{
    const hybrid_job *j = arg;
    const conv_hybrid_plan *cp = j->cp;
    const size_t n = (size_t)cp->n, first = (size_t)task * (size_t)cp->rows;
    int32_t rows = (int32_t)(j->points - first < (size_t)cp->rows ? j->points - first
                                                                    : (size_t)cp->rows);
    uint8_t *a = cp->a + (size_t)worker * cp->a_stride;
    int32_t *sums = (int32_t *)((uint8_t *)cp->sums + (size_t)worker * cp->sums_stride);
    if (cp->flipped != NULL) {
        sums_in_place(j, first, rows, (const uint8_t **)(void *)a, sums);
    } else {
        const pl_gather_s8 g = {a, cp->k, cp->kp, (uint8_t)(j->o->zp + 128)};
        pl_fast_conv_gather_s8(&j->d->p, &g, j->in_dims, cp->q, cp->in_size, j->f_dims,
                               j->out_dims, first, rows);
        j->g8->run(rows, cp->n, cp->kp, a, (size_t)cp->kp, cp->packed, NULL, NULL, sums, n);
    }
    for (int32_t r = 0; r < rows; r++)
        j->k->output(j->o, sums + (size_t)r * n, cp->n, j->out + (first + (size_t)r) * n);
}

/* The quantized batch + 128 (q, flipped already) into the copy's rows, every other byte of
** the copy the zero point + 128 (the padded taps then add nothing, as the gathered rows'). */
static void fill_flipped(const conv_hybrid_plan *cp, const pl_conv_params *p,
                         const int32_t *in_dims, uint8_t pad)
{
    const size_t c = (size_t)cp->channels, line = (size_t)cp->wp * c;
    const int32_t rows = in_dims[1] < cp->hp - p->pad_h ? in_dims[1] : cp->hp - p->pad_h;
    const int32_t cols = in_dims[2] < cp->wp - p->pad_w ? in_dims[2] : cp->wp - p->pad_w;
    const size_t left = (size_t)p->pad_w * c, run = (size_t)(cols > 0 ? cols : 0) * c;
    uint8_t *dst = cp->flipped;
    for (int32_t y = 0; y < cp->hp; y++, dst += line) {
        const int32_t iy = y - p->pad_h;
        if (iy < 0 || iy >= rows) {
            memset(dst, pad, line);
            continue;
        }
        memset(dst, pad, left);
        memcpy(dst + left, (const uint8_t *)cp->q + (size_t)iy * (size_t)in_dims[2] * c, run);
        memset(dst + left + run, pad, line - left - run);
    }
}

pl_status pl_fast_conv_hybrid_invoke(pl_context *ctx, pl_node *node, const void *block)
{
    conv_hybrid_plan here = *(const conv_hybrid_plan *)block;
    carve_scratch(pl_fast_scratch(node), &here);
    const conv_hybrid_plan *cp = &here;
    const pl_conv_op *d = node->user_data;
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    const int32_t *id = v.in.dims, *od = v.out.dims;
    const int32_t one_in[4] = {1, id[1], id[2], id[3]}, one_out[4] = {1, od[1], od[2], od[3]};
    const size_t points = (size_t)od[1] * (size_t)od[2], n = (size_t)cp->n;
    pl_hybrid_out o = {cp->weight_sum, cp->scale, 0.0f, 0, d->h.per_channel, v.bias.data,
                       d->p.f_act_min, d->p.f_act_max};
    hybrid_job job = {cp, d, pl_gemm_s8_for(pl_fast_isa_of(node)),
                      pl_hybrid_for(pl_fast_isa_of(node)), &o, one_in, v.f.dims, one_out,
                      points, NULL};
    const size_t chunks = (points + (size_t)cp->rows - 1) / (size_t)cp->rows;
    for (int32_t b = 0; b < id[0]; b++) {
        const float *x = (const float *)v.in.data + (size_t)b * cp->in_size;
        job.out = (float *)v.out.data + (size_t)b * points * n;
        job.k->quantize(x, (int32_t)cp->in_size, d->h.per_channel,
                        cp->flipped != NULL ? 0x80 : 0, (uint8_t *)cp->q, &o.row_scale, &o.zp);
        if (cp->flipped != NULL)
            fill_flipped(cp, &d->p, one_in, (uint8_t)(o.zp + 128));
        pl_fast_parallel(node, (int32_t)chunks, (double)points * (double)n * cp->k,
                         hybrid_chunk, &job);
    }
    return PL_OK;
}
