/* conv.c - CONV_2D's fast path, int8 and float32 (16x8: conv16.c): the input windows of a
** chunk of output points gathered as rows (im2col) into the host block, then the matrix
** product with the filter packed at prepare; hybrid (float input, int8 filter) is
** conv_hybrid.c. Groups and uint8 convolutions keep the portable kernel, as does a model whose
** filter is not a constant. */
#include <string.h>

#include "fast/conv_gather.h"
#include "fast/conv_narrow.h"
#include "fast/fast.h"
#include "fast/gemm.h"
#include "fast/hybrid.h"
#include "fast/s16.h"
#include "kernels/conv/conv_fast.h"
#include "kernels/conv/conv_window_fast.h"
#include "kernels/conv/convq_views_fast.h"

typedef struct conv_plan {
    uint8_t kind;      /* PL_CONV_BLOCK_PRODUCT (conv_narrow.c's blocks have their own) */
    int32_t k, kp, n;  /* taps x input channels, k padded for int8, output channels */
    int32_t rows;      /* output points per chunk */
    bool f32;
    bool direct;       /* float 1x1, stride 1, no padding: the input rows are the rows */
    uint8_t pad;       /* int8: what a padded tap holds, the zero point + 128 */
    void *packed;
    /* In the resolver's scratch, the pointers set in the invoke's copy of the plan (NULL in
    ** the node's block), their offsets there from prepare: */
    void *a;           /* per worker, rows x kp gathered taps (at 0) */
    size_t a_stride;   /* bytes between two workers' rows */
    float *padded;     /* float, few channels: the input with its padding written out */
    uint8_t *flipped;  /* int8 read in place: the input + 128 with its padding written out */
    size_t padded_at, padded_bytes, flipped_at, flipped_bytes; /* bytes 0: none */
    int32_t hp, wp;    /* padded's or flipped's rows and columns (every window's extent) */
    int32_t *tap_at;   /* float, k <= TAP_K, windows starting in their source (the padded
                       ** copy, or the input itself), and int8 read in place: each tap's
                       ** offset from the origin */
    int32_t row_run;   /* int8 in place, channels not a multiple of 4: each window row's
                       ** bytes (kw x channels) as one run, rounded up to 4 (zero weights) */
    int32_t oy_whole, ox_whole; /* windows of oy < oy_whole, ox < ox_whole are whole in it */
    bool in_place;     /* the product reads the windows in place (run_taps) */
    bool by_columns;   /* ... one output column at a time (rows too short): a chunk is a
                       ** column, rows = the output's height */
    int32_t nblock;    /* output channels per task (a multiple of 16, or n) */
    pl_s8_stage st;
} conv_plan;

/* A float convolution whose window rows hold at most this many values reads its windows
** from a padded copy of its input (none clipped), when the copy holds at most PADDED_MAX
** values. 128, not 64: ResNet-like 3x3 layers on 16 and 32 channels 12-14% faster; 1536
** made ResNet50-64 float 4% slower (its 3x3x64-512 rows are long runs anyway). */
enum { PADDED_SPAN = 128, PADDED_MAX = 1 << 22, CLIPPED_COPY_MAX = 1 << 16 };

/* A float window of at most TAP_K taps, whole in its source, is read in place by the product
** a row of outputs at a time where rows hold at least IN_PLACE_W points, else a column at a
** time where columns do (kws's first layer, 25 rows of 5 points: 4.2 us gathered, 4.5 by
** rows, 2.5 by columns); else, up to GATHER_TAP_K taps, gathered tap by tap from offsets
** computed at prepare (a first layer's 3x3x1 window: 9 loads, not 3 row copies of 3). */
enum { TAP_K = 512, IN_PLACE_W = 8, GATHER_TAP_K = 64 };

/* An int8 window of at most S8_TAP_K taps on channels a multiple of 4 is read in place too,
** from a copy of the input + 128 with its padding (the product takes unsigned bytes, so the
** input is copied anyway; this copy is its size, not k times it). No layer of ResNet50-64
** int8 was slower in place, up to 3x3x512 (3x3x64 on 16x16: 39.4 -> 36.8 us); the limit
** only bounds the taps' table. */
enum { S8_TAP_K = 16384 };

/* The flipped copy's room past its end, for a last row run's 3 bytes. */
enum { FLIPPED_TAIL = 4 };

/* A run of floats as whole quads: at most 3 floats past the run, in the rows' spill room. */
static inline void copy_quads_f32(float *dst, const float *src, size_t quads)
{
    for (size_t i = 0; i < quads; i++)
        memcpy(dst + 4 * i, src + 4 * i, 4 * sizeof(float));
}

/* n floats: short runs (a few taps of few channels) skip the library call. */
static inline void copy_f32(float *dst, const float *src, size_t n)
{
    if (n > 16) {
        memcpy(dst, src, n * sizeof(float));
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

static inline void zero_f32(float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = 0.0f;
}

/* The float taps of one window row fy (padding 0.0f, whose products add +-0). */
static inline void gather_row_f32(const pl_conv_params *p, const pl_conv_window *w,
                                  const int32_t *in_dims, const float *in, int32_t fy,
                                  int32_t kw, float *row)
{
    const size_t ic = (size_t)in_dims[3];
    if (fy < w->fy0 || fy >= w->fy1 || w->fx0 >= w->fx1) {
        zero_f32(row, (size_t)kw * ic);
        return;
    }
    size_t iy = (size_t)(w->y0 + fy * p->dilation_h);
    const float *line = in + ((size_t)w->b * (size_t)in_dims[1] + iy) * (size_t)in_dims[2] * ic;
    zero_f32(row, (size_t)w->fx0 * ic);
    if (p->dilation_w == 1)
        copy_f32(row + (size_t)w->fx0 * ic, line + (size_t)(w->x0 + w->fx0) * ic,
                 (size_t)(w->fx1 - w->fx0) * ic);
    else
        for (int32_t fx = w->fx0; fx < w->fx1; fx++)
            copy_f32(row + (size_t)fx * ic, line + (size_t)(w->x0 + fx * p->dilation_w) * ic,
                     ic);
    zero_f32(row + (size_t)w->fx1 * ic, (size_t)(kw - w->fx1) * ic);
}

static void gather_f32(const pl_conv_params *p, const conv_plan *cp, float *a,
                       const int32_t *in_dims, const float *in, size_t in_count,
                       const int32_t *f_dims, const int32_t *out_dims, size_t first,
                       int32_t rows)
{
    const size_t span = (size_t)f_dims[2] * (size_t)in_dims[3];
    const size_t line = (size_t)in_dims[2] * (size_t)in_dims[3];
    const size_t last_run = (size_t)((f_dims[1] - 1) * p->dilation_h) * line;
    pl_conv_walk k = pl_conv_walk_from(out_dims, first);
    for (int32_t r = 0; r < rows; r++, pl_conv_walk_next(&k)) {
        pl_conv_window w = pl_conv_window_at(p, in_dims, f_dims, k.b, k.oy, k.ox);
        float *row = a + (size_t)r * (size_t)cp->k;
        if (w.fy0 == 0 && w.fy1 == f_dims[1] && w.fx0 == 0 && w.fx1 == f_dims[2] &&
            p->dilation_w == 1) { /* the whole window inside: one run per filter row */
            size_t at = ((size_t)w.b * (size_t)in_dims[1] + (size_t)w.y0) * line +
                        (size_t)w.x0 * (size_t)in_dims[3];
            const float *src = in + at;
            const size_t quads = (span + 3) / 4;
            if (span <= 16 && at + last_run + 4 * quads <= in_count) /* few channels */
                for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
                    copy_quads_f32(row, src + (size_t)(fy * p->dilation_h) * line, quads);
            else
                for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
                    copy_f32(row, src + (size_t)(fy * p->dilation_h) * line, span);
            continue;
        }
        for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
            gather_row_f32(p, &w, in_dims, in, fy, f_dims[2], row);
    }
}

/* Sets cp's copy extent (every window whole in it); false when the copy would exceed
** PADDED_MAX values. */
static bool fit_extent(const pl_conv_params *p, const pl_tensor *in, const pl_tensor *f,
                       const pl_tensor *out, conv_plan *cp)
{
    int64_t hp, wp;
    pl_fast_conv_window_extent(p, f->dims, out->dims, &hp, &wp);
    if (hp * wp * in->dims[3] * in->dims[0] > PADDED_MAX)
        return false;
    cp->hp = (int32_t)hp;
    cp->wp = (int32_t)wp;
    return true;
}

/* The padded copy's extent for cp's float windows; false when the input is not worth
** copying (enough channels that clipped windows copy long runs anyway, or no padding). */
static bool padded_extent(const pl_conv_params *p, const pl_tensor *in, const pl_tensor *f,
                          const pl_tensor *out, conv_plan *cp)
{
    if (!cp->f32 || cp->direct || (int64_t)f->dims[2] * in->dims[3] > PADDED_SPAN)
        return false;
    int64_t hp, wp;
    pl_fast_conv_window_extent(p, f->dims, out->dims, &hp, &wp);
    /* no window clipped: read in place; no padding but windows past the end (SAME's extra
    ** row): copied when small, else those windows are gathered and the rest read where they
    ** lie (against the copy, first layers: 224x224x3 205 us, not 214; 96x96x3 23.2, not
    ** 20.9) */
    bool clipped = hp > in->dims[1] || wp > in->dims[2];
    if (p->pad_h == 0 && p->pad_w == 0 &&
        (!clipped || pl_tensor_count(in) > CLIPPED_COPY_MAX))
        return false;
    return fit_extent(p, in, f, out, cp);
}

/* Whether cp's int8 windows are read in place from the flipped copy (its extent set). A 1x1
** convolution gathers its rows instead: one run each (one run in all at stride 1,
** conv_gather.c), and a stride of 2 reads a quarter of the input the copy would take.
** Channels not a multiple of 4 (a first layer's 3 or 1) need whole window rows (dilation 1
** across): each row's run is read 4 bytes at a time, its last group past the row meeting
** zero weights (first layer 3x3x3 -> 32 on 224x224: half its time had gone on the gather). */
static bool plan_s8_taps(const pl_gemm_s8 *g8, const pl_conv_params *p, const pl_tensor *in,
                         const pl_tensor *f, const pl_tensor *out, conv_plan *cp)
{
    if (cp->f32 || g8->run_taps == NULL || cp->k > S8_TAP_K ||
        (f->dims[1] == 1 && f->dims[2] == 1) || (in->dims[3] % 4 != 0 && p->dilation_w != 1))
        return false;
    if (!fit_extent(p, in, f, out, cp))
        return false;
    if (in->dims[3] % 4 != 0) { /* only now: a refused plan gathers rows of kp */
        cp->row_run = pl_fast_round_up(f->dims[2] * in->dims[3], 4);
        cp->kp = f->dims[1] * cp->row_run;
    }
    return true;
}

/* Each batch's input rows and columns that windows read, into a copy of elem-byte values
** laid out as cp's extent, its padding and the `tail` bytes past its end filled with `fill`
** (the copy is in the shared scratch: another node wrote there last): the float padded copy
** (fill 0), or the int8 one flipped to unsigned bytes (flip, fill the padded tap's byte). */
static void stage_copy(const conv_plan *cp, const pl_conv_params *p, const int32_t *in_dims,
                       const void *in, size_t elem, bool flip, uint8_t fill, size_t tail,
                       void *copy)
{
    const size_t c = (size_t)in_dims[3], hp = (size_t)cp->hp, wp = (size_t)cp->wp;
    const int32_t rows = in_dims[1] < cp->hp - p->pad_h ? in_dims[1] : cp->hp - p->pad_h;
    const int32_t cols = in_dims[2] < cp->wp - p->pad_w ? in_dims[2] : cp->wp - p->pad_w;
    const size_t ncols = cols > 0 ? (size_t)cols : 0, run = ncols * c, line = wp * c * elem;
    const size_t top = (size_t)p->pad_h < hp ? (size_t)p->pad_h : hp;
    const size_t left = (size_t)p->pad_w < wp ? (size_t)p->pad_w : wp;
    const size_t copied = rows > 0 ? (size_t)rows : 0, right = wp - left - ncols;
    for (int32_t b = 0; b < in_dims[0]; b++) {
        uint8_t *plane = (uint8_t *)copy + (size_t)b * hp * line;
        memset(plane, fill, top * line);
        for (size_t iy = 0; iy < copied; iy++) {
            const uint8_t *src = (const uint8_t *)in +
                ((size_t)b * (size_t)in_dims[1] + iy) * (size_t)in_dims[2] * c * elem;
            uint8_t *dst = plane + (top + iy) * line;
            memset(dst, fill, left * c * elem);
            if (flip)
                pl_fast_copy_flipped(dst + left * c, (const int8_t *)src, run);
            else
                memcpy(dst + left * c * elem, src, run * elem);
            memset(dst + (left * c + run) * elem, fill, right * c * elem);
        }
        memset(plane + (top + copied) * line, fill, (hp - top - copied) * line);
    }
    memset((uint8_t *)copy + (size_t)in_dims[0] * hp * line, fill, tail);
}

/* gather_f32 from the padded copy: every window whole, each of its rows one copy (dilated
** columns one copy per tap). */
static void gather_padded_f32(const pl_conv_params *p, const conv_plan *cp, float *a,
                              const int32_t *in_dims, const int32_t *f_dims,
                              const int32_t *out_dims, size_t first, int32_t rows)
{
    const size_t c = (size_t)in_dims[3], line = (size_t)cp->wp * c;
    const size_t span = (size_t)f_dims[2] * c, quads = (span + 3) / 4;
    const bool runs = p->dilation_w == 1;
    pl_conv_walk k = pl_conv_walk_from(out_dims, first);
    for (int32_t r = 0; r < rows; r++, pl_conv_walk_next(&k)) {
        float *row = a + (size_t)r * (size_t)cp->k;
        const float *src = cp->padded + ((size_t)k.b * (size_t)cp->hp +
                                         (size_t)(k.oy * p->stride_h)) * line +
                           (size_t)(k.ox * p->stride_w) * c;
        for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span) {
            const float *s = src + (size_t)(fy * p->dilation_h) * line;
            if (runs && span <= 16) /* quads: at most 3 floats past the row, in its spill room */
                copy_quads_f32(row, s, quads);
            else if (runs)
                copy_f32(row, s, span);
            else
                for (int32_t fx = 0; fx < f_dims[2]; fx++)
                    copy_f32(row + (size_t)fx * c, s + (size_t)(fx * p->dilation_w) * c, c);
        }
    }
}

/* Output rows (or columns) from 0 whose windows end inside size: those of o with
** o stride + (taps - 1) dilation < size, at most out. */
static int32_t whole_up_to(int32_t size, int32_t taps, int32_t stride, int32_t dilation,
                           int32_t out)
{
    int64_t last = (int64_t)size - 1 - (int64_t)(taps - 1) * dilation;
    int64_t n = last < 0 ? 0 : last / stride + 1;
    return n < out ? (int32_t)n : out;
}

/* Whether the taps' offsets can serve: windows that all start in their source (the padded
** copy, or an input without padding), a source of *src_w columns; sets which are whole. */
static bool plan_taps(const pl_conv_params *p, const int32_t *in_dims, const int32_t *f_dims,
                      const int32_t *out_dims, conv_plan *cp, int32_t *src_w)
{
    if (!cp->f32 || cp->direct || cp->k > TAP_K)
        return false;
    if (cp->padded_bytes > 0) {
        *src_w = cp->wp;
        cp->oy_whole = out_dims[1];
        cp->ox_whole = out_dims[2];
        return true;
    }
    *src_w = in_dims[2];
    cp->oy_whole = whole_up_to(in_dims[1], f_dims[1], p->stride_h, p->dilation_h, out_dims[1]);
    cp->ox_whole = whole_up_to(in_dims[2], f_dims[2], p->stride_w, p->dilation_w, out_dims[2]);
    return p->pad_h == 0 && p->pad_w == 0;
}

/* The int8 row runs' offsets: window row fy's run of row_run bytes from its origin. */
static void fill_row_runs(const pl_conv_params *p, const int32_t *f_dims, int32_t c,
                          int32_t src_w, int32_t row_run, int32_t *tap_at)
{
    for (int32_t fy = 0, t = 0; fy < f_dims[1]; fy++)
        for (int32_t j = 0; j < row_run; j++, t++)
            tap_at[t] = fy * p->dilation_h * src_w * c + j;
}

/* The filter w ([n][kh][kw][c]) with each window row's kw x c weights followed by zeros up
** to row_run: the bytes a row run reads past its window meet zero weights. */
static void widen_rows(const int8_t *w, const int32_t *f_dims, int32_t row_run, int8_t *out)
{
    const size_t run = (size_t)f_dims[2] * (size_t)f_dims[3];
    for (int32_t r = 0; r < f_dims[0] * f_dims[1]; r++) {
        memcpy(out, w + (size_t)r * run, run);
        memset(out + run, 0, (size_t)row_run - run);
        out += row_run;
    }
}

/* gather_f32 tap by tap from a source where every window is whole (src: src_h rows of
** src_w columns of c values). */
static void gather_taps_f32(const pl_conv_params *p, const conv_plan *cp, float *a,
                            const float *src, int32_t src_h, int32_t src_w, int32_t c,
                            const int32_t *out_dims, size_t first, int32_t rows)
{
    pl_conv_walk k = pl_conv_walk_from(out_dims, first);
    for (int32_t r = 0; r < rows; r++, pl_conv_walk_next(&k)) {
        float *row = a + (size_t)r * (size_t)cp->k;
        const float *o = src + (((size_t)k.b * (size_t)src_h + (size_t)(k.oy * p->stride_h)) *
                                    (size_t)src_w + (size_t)(k.ox * p->stride_w)) * (size_t)c;
        for (int32_t t = 0; t < cp->k; t++)
            row[t] = o[cp->tap_at[t]];
    }
}

/* What one chunk's product needs besides its points. */
typedef struct f32_chunk {
    const conv_plan *cp;
    const pl_conv_params *p;
    const pl_convq_views *v;
    const pl_gemm_f32 *gf;
    bool fused;
    int32_t n0, nn; /* the channel block */
    const void *packed;
    const float *bias;
    float *a; /* the worker's gathered rows */
} f32_chunk;

static void gather_run_f32(const f32_chunk *ch, size_t first, int32_t rows, float *out);

/* The product of the chunk's windows where they lie (src_h rows of src_w columns of c
** values), one output row's points at a time: they lie a stride apart. The windows that are
** not whole (past the input's end: no padded copy) are gathered. */
static void run_in_place_f32(const f32_chunk *ch, const float *src, int32_t src_h,
                             int32_t src_w, size_t first, int32_t rows, float *out)
{
    const conv_plan *cp = ch->cp;
    const pl_conv_params *p = ch->p;
    const int32_t *out_dims = ch->v->out.dims;
    const size_t c = (size_t)ch->v->in.dims[3], lda = (size_t)p->stride_w * c;
    pl_gemm_f32_taps_fn *run = pl_gemm_f32_run_taps(ch->gf, ch->fused);
    pl_conv_walk k = pl_conv_walk_from(out_dims, first);
    for (int32_t r = 0; r < rows;) {
        int32_t len = out_dims[2] - k.ox < rows - r ? out_dims[2] - k.ox : rows - r;
        int32_t whole = k.oy >= cp->oy_whole ? 0
                      : cp->ox_whole - k.ox < len ? cp->ox_whole - k.ox : len;
        whole = whole > 0 ? whole : 0;
        if (whole > 0) {
            const float *o = src + (((size_t)k.b * (size_t)src_h +
                                     (size_t)(k.oy * p->stride_h)) * (size_t)src_w +
                                    (size_t)(k.ox * p->stride_w)) * c;
            run(whole, ch->nn, cp->k, o, lda, cp->tap_at, ch->packed, ch->bias, p->f_act_min,
                p->f_act_max, out + (size_t)r * (size_t)cp->n, (size_t)cp->n);
        }
        if (len > whole)
            gather_run_f32(ch, first + (size_t)(r + whole), len - whole,
                           out + (size_t)(r + whole) * (size_t)cp->n);
        r += len;
        for (int32_t i = 0; i < len; i++)
            pl_conv_walk_next(&k);
    }
}

/* The product of one output column's windows where they lie (every window whole in its
** source): a column's points lie a stride of rows apart, its outputs a row apart. */
static void run_column_f32(const f32_chunk *ch, size_t column)
{
    const conv_plan *cp = ch->cp;
    const pl_conv_params *p = ch->p;
    const pl_convq_views *v = ch->v;
    const int32_t *out_dims = v->out.dims;
    const bool pad = cp->padded != NULL;
    const size_t src_h = (size_t)(pad ? cp->hp : v->in.dims[1]);
    const size_t src_w = (size_t)(pad ? cp->wp : v->in.dims[2]), c = (size_t)v->in.dims[3];
    const size_t b = column / (size_t)out_dims[2], ox = column % (size_t)out_dims[2];
    const float *src = pad ? cp->padded : v->in.data;
    const float *o = src + (b * src_h * src_w + ox * (size_t)p->stride_w) * c;
    float *out = (float *)v->out.data +
                 (b * (size_t)out_dims[1] * (size_t)out_dims[2] + ox) * (size_t)cp->n +
                 (size_t)ch->n0;
    pl_gemm_f32_run_taps(ch->gf, ch->fused)(out_dims[1], ch->nn, cp->k, o,
                                            (size_t)p->stride_h * src_w * c, cp->tap_at,
                                            ch->packed, ch->bias, p->f_act_min, p->f_act_max,
                                            out, (size_t)out_dims[2] * (size_t)cp->n);
}

/* Output channels per task: all of them, unless a job of fewer chunks of points than twice
** the workers (a late layer's few pixels, whose weights are most of its time) has channels
** to share out, in blocks of a multiple of 16 (of every set's panel: the packed weights and
** stage arrays then start at a panel). Blocks of 64 had left 192 channels in 3 blocks: one
** worker streamed two thirds of the weights (1x1 1152 -> 192 on 3x3: 59 -> 49 us). One chunk
** of points takes one block a worker: a block of 48 channels (3 panels) ran the product's
** narrow tails, 96 fill its wide blocks (that layer, two threads: 27.3 -> 23.8 us). */
static int32_t channel_block(int32_t n, size_t chunks, int32_t workers)
{
    if (workers <= 1 || chunks >= 2 * (size_t)workers || n < 32)
        return n;
    size_t blocks = chunks == 1 ? (size_t)workers : (2 * (size_t)workers + chunks - 1) / chunks;
    int32_t block = pl_fast_round_up((int32_t)(((size_t)n + blocks - 1) / blocks), 16);
    return block < n ? block : n;
}

/* Sets up the node's block; false: the portable kernel runs it. */
static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_conv_op *d = node->user_data;
    pl_isa isa = pl_fast_isa_of(node);
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(isa);
    const pl_gemm_f32 *gf = pl_gemm_f32_for(isa);
    pl_tensor in, f, bias, out;
    /* CMSIS-NN's Helium 1xN edges are not the reference arithmetic the GEMM computes */
    if (d->hybrid || d->helium_1xn || (d->type != PL_INT8 && d->type != PL_FLOAT32) ||
        g8 == NULL || gf == NULL || ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &f) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 2), &bias) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    if (d->type == PL_FLOAT32 && pl_gemm_f32_run(gf, d->fused) == NULL) /* no FMA */
        return false;
    if (f.data == NULL || !f.is_constant || f.type == PL_INT4 /* packed: portable */ ||
        f.dims[3] != in.dims[3] || (bias.index >= 0 && (bias.data == NULL || !bias.is_constant)))
        return false;
    conv_plan cp = {0};
    cp.f32 = d->type == PL_FLOAT32;
    cp.n = f.dims[0];
    cp.k = f.dims[1] * f.dims[2] * f.dims[3];
    if (cp.k <= 0 || cp.n <= 0) /* an empty filter: the portable kernel (the bias alone) */
        return false;
    cp.kp = cp.f32 ? cp.k : pl_fast_round_up(cp.k, 4);
    cp.direct = cp.f32 && f.dims[1] == 1 && f.dims[2] == 1 && d->p.stride_h == 1 &&
                d->p.stride_w == 1 && d->p.pad_h == 0 && d->p.pad_w == 0;
    cp.pad = (uint8_t)(128 - d->p.input_offset);
    size_t elem = cp.f32 ? sizeof(float) : 1;
    size_t points = pl_tensor_count(&out) / (size_t)cp.n;
    int32_t workers = pl_fast_threads_of(node);
    const bool s8_taps = plan_s8_taps(g8, &d->p, &in, &f, &out, &cp);
    cp.rows = pl_fast_chunk_rows_split((size_t)cp.kp * elem, points, workers);
    cp.nblock = channel_block(cp.n, (points + (size_t)cp.rows - 1) / (size_t)cp.rows, workers);
    int32_t lanes = pl_fast_round_up(cp.n, PL_FAST_LANES);
    size_t packed = cp.f32 ? gf->packed_bytes(cp.n, cp.k) : g8->packed_bytes(cp.n, cp.kp);
    size_t arrays = cp.f32 ? 0 : pl_fast_align64(sizeof(int32_t) * PL_S8_STAGE_ARRAYS *
                                                 (size_t)lanes);
    size_t flipped = s8_taps ? (size_t)in.dims[0] * (size_t)cp.hp * (size_t)cp.wp *
                                   (size_t)in.dims[3] + FLIPPED_TAIL : 0;
    size_t widened = cp.row_run > 0 ? (size_t)cp.n * (size_t)cp.kp : 0;
    cp.a_stride = cp.direct ? 0
                : s8_taps ? pl_fast_align64((size_t)cp.rows * sizeof(const uint8_t *))
                : pl_fast_align64((size_t)cp.rows * (size_t)cp.kp * elem + PL_FAST_GATHER_SPILL);
    size_t gathered = cp.a_stride * (size_t)workers;
    size_t head = pl_fast_align64(sizeof cp);
    cp.padded_bytes = padded_extent(&d->p, &in, &f, &out, &cp)
                          ? (size_t)in.dims[0] * (size_t)cp.hp * (size_t)cp.wp *
                                (size_t)in.dims[3] * sizeof(float) + PL_FAST_GATHER_SPILL
                          : 0;
    cp.flipped_bytes = flipped;
    cp.padded_at = pl_fast_align64(gathered);
    cp.flipped_at = cp.padded_at + pl_fast_align64(cp.padded_bytes);
    size_t taps = (cp.f32 && !cp.direct && cp.k <= TAP_K) || s8_taps
                      ? pl_fast_align64(sizeof(int32_t) * (size_t)cp.kp) : 0;
    /* the widened weights are packed from a copy after the taps (at prepare only) */
    uint8_t *block = pl_fast_block_new(node, head + pl_fast_align64(packed) + arrays + taps +
                                                 widened);
    if (block == NULL)
        return false;
    cp.packed = block + head;
    uint8_t *tap_room = block + head + pl_fast_align64(packed) + arrays;
    if (s8_taps) {
        cp.tap_at = (int32_t *)tap_room;
        if (cp.row_run > 0)
            fill_row_runs(&d->p, f.dims, in.dims[3], cp.wp, cp.row_run, cp.tap_at);
        else
            pl_fast_conv_fill_taps(&d->p, f.dims, in.dims[3], cp.wp, cp.tap_at);
    }
    int32_t src_w;
    if (taps > 0 && plan_taps(&d->p, in.dims, f.dims, out.dims, &cp, &src_w)) {
        cp.tap_at = (int32_t *)tap_room;
        pl_fast_conv_fill_taps(&d->p, f.dims, in.dims[3], src_w, cp.tap_at);
        const bool in_place = pl_gemm_f32_run_taps(gf, d->fused) != NULL;
        cp.in_place = in_place && out.dims[2] >= IN_PLACE_W;
        cp.by_columns = in_place && !cp.in_place && out.dims[1] >= IN_PLACE_W &&
                        cp.oy_whole == out.dims[1] && cp.ox_whole == out.dims[2];
        if (cp.by_columns) /* the gathered rows, sized for the old chunks, go unused */
            cp.rows = out.dims[1];
    }
    if (cp.f32) {
        if (!pl_fast_all_finite(f.data, (size_t)cp.n * (size_t)cp.k))
            return false;
        gf->pack(f.data, cp.n, cp.k, cp.packed);
    } else if (cp.row_run > 0) {
        int8_t *w = (int8_t *)tap_room + taps;
        widen_rows(f.data, f.dims, cp.row_run, w);
        g8->pack(w, cp.n, cp.kp, cp.kp, cp.packed);
    } else {
        g8->pack(f.data, cp.n, cp.k, cp.kp, cp.packed);
    }
    if (!cp.f32) {
        const pl_s8_requant q = {d->p.input_offset, d->p.multiplier, d->p.shift,
                                 d->p.output_offset, d->p.act_min, d->p.act_max};
        if (!pl_fast_s8_stage_init(&q, f.data, cp.n, cp.k, bias.data,
                                   (int32_t *)(block + head + pl_fast_align64(packed)), lanes, &cp.st))
            return false;
    }
    memcpy(block, &cp, sizeof cp);
    if (!pl_fast_scratch_reserve(node, cp.flipped_at + pl_fast_align64(cp.flipped_bytes)))
        return false;
    pl_fast_claim_folds(node, 1, 2); /* invoke reads the bias through the fold too */
    return true;
}

pl_status pl_fast_conv_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    const pl_conv_op *d = node->user_data;
    bool fast = d->hybrid ? pl_fast_conv_hybrid_plan(ctx, node)
              : d->type == PL_INT16 ? pl_fast_conv16_plan(ctx, node)
                                    : pl_fast_conv_narrow_plan(ctx, node) || plan(ctx, node);
    if (!fast)
        pl_fast_block_drop(node);
    return PL_OK;
}

/* The int8 product of the points first.. first + rows - 1 against nn channels, their windows
** read in the flipped copy from each point's origin (origin: the worker's room for rows). */
static void run_in_place_s8(const conv_plan *cp, const pl_conv_params *p,
                            const pl_convq_views *v, const pl_gemm_s8 *g8, int32_t nn,
                            const void *packed, const pl_s8_stage *st, size_t first,
                            int32_t rows, const uint8_t **origin, int8_t *out)
{
    const size_t c = (size_t)v->in.dims[3], line = (size_t)cp->wp * c;
    pl_fast_conv_origins(cp->flipped, (size_t)cp->hp * line, line, (size_t)p->stride_w * c,
                         p->stride_h, v->out.dims, first, rows, origin);
    const pl_s8_windows win = {origin, cp->tap_at};
    g8->run_taps(rows, nn, cp->kp, &win, packed, st, out, NULL, (size_t)cp->n);
}

/* One chunk of output points against one block of output channels: the points gathered
** into the worker's rows, then the product of the block's panels. */
typedef struct conv_job {
    const conv_plan *cp;
    const pl_conv_op *d;
    const pl_convq_views *v;
    pl_isa isa;
    size_t points;
    int32_t blocks; /* channel blocks per chunk */
} conv_job;

static void conv_chunk(void *arg, int32_t worker, int32_t task)
{
    const conv_job *j = arg;
    const conv_plan *cp = j->cp;
    const pl_convq_views *v = j->v;
    size_t first = (size_t)(task / j->blocks) * (size_t)cp->rows;
    int32_t rows = (int32_t)(j->points - first < (size_t)cp->rows ? j->points - first
                                                                    : (size_t)cp->rows);
    const int32_t n0 = task % j->blocks * cp->nblock;
    const int32_t nn = cp->n - n0 < cp->nblock ? cp->n - n0 : cp->nblock;
    size_t o = first * (size_t)cp->n + (size_t)n0;
    void *a = (uint8_t *)cp->a + (size_t)worker * cp->a_stride;
    if (!cp->f32) {
        const pl_gemm_s8 *g8 = pl_gemm_s8_for(j->isa);
        const pl_gather_s8 g = {a, cp->k, cp->kp, cp->pad};
        const pl_s8_stage st = pl_s8_stage_from(&cp->st, n0); /* the block's channels */
        const void *packed = (const uint8_t *)cp->packed + g8->packed_bytes(n0, cp->kp);
        if (cp->flipped != NULL) {
            run_in_place_s8(cp, &j->d->p, v, g8, nn, packed, &st, first, rows,
                            (const uint8_t **)a, (int8_t *)v->out.data + o);
            return;
        }
        pl_fast_conv_gather_s8(&j->d->p, &g, v->in.dims, v->in.data, pl_tensor_count(&v->in),
                               v->f.dims, v->out.dims, first, rows);
        g8->run(rows, nn, cp->kp, a, (size_t)cp->kp, packed, &st, (int8_t *)v->out.data + o,
                NULL, (size_t)cp->n);
        return;
    }
    const pl_gemm_f32 *gf = pl_gemm_f32_for(j->isa);
    const f32_chunk ch = {cp, &j->d->p, v, gf, j->d->fused, n0, nn,
                          (const uint8_t *)cp->packed + gf->packed_bytes(n0, cp->k),
                          v->bias.data != NULL ? (const float *)v->bias.data + n0 : NULL, a};
    float *out = (float *)v->out.data + o;
    if (cp->by_columns)
        run_column_f32(&ch, first / (size_t)cp->rows);
    else if (!cp->in_place)
        gather_run_f32(&ch, first, rows, out);
    else if (cp->padded != NULL)
        run_in_place_f32(&ch, cp->padded, cp->hp, cp->wp, first, rows, out);
    else
        run_in_place_f32(&ch, v->in.data, v->in.dims[1], v->in.dims[2], first, rows, out);
}

/* rows points from first on, gathered into the worker's rows (or, 1x1, read as they are),
** then their product. */
static void gather_run_f32(const f32_chunk *ch, size_t first, int32_t rows, float *out)
{
    const conv_plan *cp = ch->cp;
    const pl_convq_views *v = ch->v;
    const pl_conv_params *p = ch->p;
    const bool taps = cp->tap_at != NULL && cp->k <= GATHER_TAP_K &&
                      cp->oy_whole == v->out.dims[1] && cp->ox_whole == v->out.dims[2];
    float *a = ch->a;
    if (cp->direct)
        a = (float *)v->in.data + first * (size_t)cp->k;
    else if (taps && cp->padded != NULL)
        gather_taps_f32(p, cp, a, cp->padded, cp->hp, cp->wp, v->in.dims[3], v->out.dims,
                        first, rows);
    else if (taps)
        gather_taps_f32(p, cp, a, v->in.data, v->in.dims[1], v->in.dims[2], v->in.dims[3],
                        v->out.dims, first, rows);
    else if (cp->padded != NULL)
        gather_padded_f32(p, cp, a, v->in.dims, v->f.dims, v->out.dims, first, rows);
    else
        gather_f32(p, cp, a, v->in.dims, v->in.data, pl_tensor_count(&v->in), v->f.dims,
                   v->out.dims, first, rows);
    pl_gemm_f32_run(ch->gf, ch->fused)(rows, ch->nn, cp->k, a, (size_t)cp->k, ch->packed,
                                       ch->bias, p->f_act_min, p->f_act_max, out,
                                       (size_t)cp->n);
}

pl_status pl_fast_conv_invoke(pl_context *ctx, pl_node *node)
{
    const conv_plan *block = pl_fast_block(node);
    if (block == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_conv_op *d = node->user_data;
    if (d->hybrid)
        return pl_fast_conv_hybrid_invoke(ctx, node, block);
    if (d->type == PL_INT16)
        return pl_fast_conv16_invoke(ctx, node, block);
    if (block->kind != PL_CONV_BLOCK_PRODUCT)
        return pl_fast_conv_narrow_invoke(ctx, node, block);
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    pl_fast_use_fold(ctx, node, &v.bias);
    conv_plan here = *block; /* its rooms in the scratch */
    uint8_t *scratch = pl_fast_scratch(node);
    const conv_plan *cp = &here;
    here.a = scratch;
    if (cp->padded_bytes > 0) {
        here.padded = (float *)(scratch + cp->padded_at);
        stage_copy(cp, &d->p, v.in.dims, v.in.data, sizeof(float), false, 0,
                   PL_FAST_GATHER_SPILL, here.padded);
    }
    if (cp->flipped_bytes > 0) {
        here.flipped = scratch + cp->flipped_at;
        stage_copy(cp, &d->p, v.in.dims, v.in.data, 1, true, cp->pad, FLIPPED_TAIL,
                   here.flipped);
    }
    conv_job job = {cp, d, &v, pl_fast_isa_of(node), pl_tensor_count(&v.out) / (size_t)cp->n,
                    (cp->n + cp->nblock - 1) / cp->nblock};
    size_t chunks = (job.points + (size_t)cp->rows - 1) / (size_t)cp->rows;
    pl_fast_parallel(node, (int32_t)chunks * job.blocks, (double)job.points * cp->n * cp->k,
                     conv_chunk, &job);
    return PL_OK;
}
