/* detection_postprocess.c - TFLite_Detection_PostProcess (SSD post-processing), as LiteRT's
** kernel computes it: box encodings (float or uint8) decoded against the anchors in double
** precision, then non-maximum suppression, either per class ('use_regular_nms') or once
** over each anchor's best classes (the fast default).
**
** Sorting is defined completely: the full sort is stable by descending score (LiteRT's
** std::stable_sort) and the partial sorts order ties by index (TFLM's comparator; LiteRT's
** std::partial_sort leaves ties unspecified). Boxes must decode with min <= max. The fast
** path writes num_detections rows and zeroes the rest of the outputs (LiteRT leaves them
** as they were). All working memory is one scratch buffer in the arena head. */
#include <math.h>
#include <string.h>

#include "kernels/custom/list.h"
#include "picolite/pl_node_io.h"

enum { BOXES, CLASSES, SCORES, NUM };

typedef struct op_data {
    int32_t max_detections, max_classes, per_class, num_classes;
    bool regular, quant_scores;
    float score_threshold, iou_threshold, scale[4];
    int32_t boxes, classes_bg, encoding; /* N anchors, classes + background, box stride */
    float enc_scale, anchor_scale, class_scale;
    int32_t enc_zp, anchor_zp, class_zp;
    int32_t scratch;
} op_data;

/* Offsets of the working arrays in the scratch buffer, in 4-byte words. */
typedef struct layout {
    size_t decoded, scores, active, keep_scores, keep_idx, sorted, merge, work, selected;
    size_t out_idx, out_scores, out_sorted, out_vals, class_idx, words;
} layout;

static void plan(const op_data *d, layout *l)
{
    size_t n = (size_t)d->boxes, m = (size_t)d->max_detections, at = 0;
    size_t *fields[] = {&l->decoded, &l->scores, &l->active, &l->keep_scores, &l->keep_idx,
                        &l->sorted, &l->merge, &l->work, &l->selected, &l->out_idx,
                        &l->out_scores, &l->out_sorted, &l->out_vals, &l->class_idx};
    size_t r = d->regular ? 1 : 0, q = d->quant_scores ? 1 : 0;
    size_t words[] = {4 * n, q * n * (size_t)d->classes_bg, (n + 3) / 4, n, n, n, n, n, n,
                      r * (n + m), r * (n + m), r * (n + m), r * m,
                      (1 - r) * n * (size_t)d->num_classes};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        *fields[i] = at;
        at += words[i];
    }
    l->words = at;
}

static pl_status opt_int(pl_context *ctx, pl_node *node, const char *key, int32_t dflt,
                         int32_t *out)
{
    bool has;
    PL_TRY(pl_custom_opt_has(ctx, node, key, &has));
    *out = dflt;
    return has ? pl_custom_opt_int(ctx, node, key, 0, INT32_MAX, out) : PL_OK;
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    bool has;
    static const char *const scales[4] = {"y_scale", "x_scale", "h_scale", "w_scale"};
    PL_TRY(pl_custom_opt_int(ctx, node, "max_detections", 0, 1 << 20, &d->max_detections));
    PL_TRY(pl_custom_opt_int(ctx, node, "max_classes_per_detection", 1, 1 << 16,
                             &d->max_classes));
    PL_TRY(pl_custom_opt_int(ctx, node, "num_classes", 1, 1 << 16, &d->num_classes));
    PL_TRY(opt_int(ctx, node, "detections_per_class", 100, &d->per_class));
    PL_TRY(pl_custom_opt_has(ctx, node, "use_regular_nms", &has));
    if (has)
        PL_TRY(pl_custom_opt_bool(ctx, node, "use_regular_nms", &d->regular));
    PL_TRY(pl_custom_opt_float(ctx, node, "nms_score_threshold", &d->score_threshold));
    PL_TRY(pl_custom_opt_float(ctx, node, "nms_iou_threshold", &d->iou_threshold));
    for (int i = 0; i < 4; i++)
        PL_TRY(pl_custom_opt_float(ctx, node, scales[i], &d->scale[i]));
    if (!(d->iou_threshold > 0.0f && d->iou_threshold <= 1.0f) || d->per_class < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "nms_iou_threshold %g must be in (0, 1] and "
                         "detections_per_class %d positive", (double)d->iou_threshold,
                         d->per_class);
    return PL_OK;
}

/* Scale and zero point of a uint8 input (float inputs: 0 and 0, unused). */
static void quant_of(const pl_tensor *t, float *scale, int32_t *zp)
{
    *scale = t->q.count > 0 ? t->q.scale[0] : 0.0f;
    *zp = t->q.count > 0 ? t->q.zero_point[0] : 0;
}

static pl_status check_inputs(pl_context *ctx, op_data *d, pl_tensor *const *t)
{
    pl_type type = t[0]->type;
    if ((type != PL_FLOAT32 && type != PL_UINT8) || t[2]->type != type ||
        (t[1]->type != PL_FLOAT32 && t[1]->type != PL_UINT8))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "inputs %s, %s, %s: float32 or uint8 only",
                         pl_type_name(t[0]->type), pl_type_name(t[1]->type),
                         pl_type_name(t[2]->type));
    if (t[0]->ndims != 3 || t[1]->ndims != 3 || t[2]->ndims != 2 || t[0]->dims[0] != 1 ||
        t[1]->dims[0] != 1 || t[0]->dims[2] < 4 || t[2]->dims[1] != 4 ||
        t[1]->dims[1] != t[0]->dims[1] || t[2]->dims[0] < t[0]->dims[1])
        return ctx->fail(ctx, PL_ERR_MODEL, "inputs must be [1, anchors, >= 4], [1, anchors, "
                         "classes] and [>= anchors, 4]");
    d->boxes = t[0]->dims[1];
    d->encoding = t[0]->dims[2];
    d->classes_bg = t[1]->dims[2];
    if (d->classes_bg < d->num_classes || d->classes_bg - d->num_classes > 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "%d class scores for num_classes %d (one "
                         "background class at most)", d->classes_bg, d->num_classes);
    quant_of(t[0], &d->enc_scale, &d->enc_zp);
    quant_of(t[2], &d->anchor_scale, &d->anchor_zp);
    quant_of(t[1], &d->class_scale, &d->class_zp);
    d->quant_scores = t[1]->type == PL_UINT8;
    return PL_OK;
}

static pl_status set_outputs(pl_context *ctx, pl_node *node, const op_data *d)
{
    int32_t rows = d->max_detections * d->max_classes;
    int32_t boxes[3] = {1, rows, 4}, per[2] = {1, rows}, one = 1;
    pl_tensor *t;
    for (uint32_t i = 0; i < 4; i++) {
        PL_TRY(pl_node_tensor(ctx, node, true, i, &t));
        PL_TRY(pl_check_type(ctx, t, true, i, PL_TYPES1(PL_FLOAT32)));
    }
    PL_TRY(ctx->set_shape(ctx, pl_node_output(node, BOXES), 3, boxes));
    PL_TRY(ctx->set_shape(ctx, pl_node_output(node, CLASSES), 2, per));
    PL_TRY(ctx->set_shape(ctx, pl_node_output(node, SCORES), 2, per));
    return ctx->set_shape(ctx, pl_node_output(node, NUM), 1, &one);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor *t[3];
    PL_TRY(pl_node_check(ctx, node, PL_IO(3, 4)));
    for (uint32_t i = 0; i < 3; i++)
        PL_TRY(pl_node_tensor(ctx, node, false, i, &t[i]));
    PL_TRY(check_inputs(ctx, d, t));
    if ((int64_t)d->max_detections * d->max_classes > INT32_MAX / 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "%d detections of %d classes is too many",
                         d->max_detections, d->max_classes);
    layout l;
    plan(d, &l);
    if (l.words > UINT32_MAX / 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "working memory of %zu words exceeds 32 bits",
                         l.words);
    PL_TRY(ctx->request_scratch(ctx, l.words * 4u, &d->scratch));
    return set_outputs(ctx, node, d);
}

static float deq(uint8_t x, int32_t zp, float scale)
{
    return ((float)x - (float)zp) * scale;
}

/* Row i of a [.., 4+] box tensor as (y, x, h, w) floats. */
static void load_box(const pl_tensor *t, size_t i, size_t stride, float scale, int32_t zp,
                     float *out)
{
    for (size_t k = 0; k < 4; k++) {
        if (t->type == PL_FLOAT32)
            out[k] = ((const float *)t->data)[i * stride + k];
        else
            out[k] = deq(((const uint8_t *)t->data)[i * stride + k], zp, scale);
    }
}

/* Centre-size encodings to corners (ymin, xmin, ymax, xmax), in LiteRT's double steps. */
static void decode(const op_data *d, const pl_tensor *enc, const pl_tensor *anchors,
                   float *out)
{
    const double sy = d->scale[0], sx = d->scale[1], sh = d->scale[2], sw = d->scale[3];
    for (size_t i = 0; i < (size_t)d->boxes; i++) {
        float b[4], a[4];
        load_box(enc, i, (size_t)d->encoding, d->enc_scale, d->enc_zp, b);
        load_box(anchors, i, 4, d->anchor_scale, d->anchor_zp, a);
        float yc = (float)((double)b[0] / sy * (double)a[2] + (double)a[0]);
        float xc = (float)((double)b[1] / sx * (double)a[3] + (double)a[1]);
        float hh = (float)(0.5 * exp((double)b[2] / sh) * (double)a[2]);
        float hw = (float)(0.5 * exp((double)b[3] / sw) * (double)a[3]);
        float *o = out + 4 * i;
        o[0] = yc - hh;
        o[1] = xc - hw;
        o[2] = yc + hh;
        o[3] = xc + hw;
    }
}

/* The first k of idx[0..n) in (value descending, index ascending) order. */
static void partial_argsort(const float *v, int32_t n, int32_t k, int32_t *idx)
{
    for (int32_t i = 0; i < n; i++)
        idx[i] = i;
    for (int32_t i = 0; i < k; i++) {
        int32_t best = i;
        for (int32_t j = i + 1; j < n; j++) {
            if (v[idx[j]] > v[idx[best]] || (v[idx[j]] == v[idx[best]] && idx[j] < idx[best]))
                best = j;
        }
        int32_t t = idx[i];
        idx[i] = idx[best];
        idx[best] = t;
    }
}

/* Stable descending argsort (LiteRT's std::stable_sort), a bottom-up merge sort. */
static void stable_argsort(const float *v, int32_t n, int32_t *idx, int32_t *tmp)
{
    for (int32_t i = 0; i < n; i++)
        idx[i] = i;
    for (int32_t w = 1; w < n; w *= 2) {
        for (int32_t lo = 0; lo < n; lo += 2 * w) {
            int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int32_t a = lo, b = mid, o = lo;
            while (a < mid || b < hi)
                tmp[o++] = (b >= hi || (a < mid && !(v[idx[b]] > v[idx[a]]))) ? idx[a++]
                                                                               : idx[b++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof *idx);
    }
}

static float iou(const float *boxes, int32_t i, int32_t j)
{
    const float *a = boxes + 4 * i, *b = boxes + 4 * j;
    float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0)
        return 0.0f;
    float ymin = fmaxf(a[0], b[0]), xmin = fmaxf(a[1], b[1]);
    float ymax = fminf(a[2], b[2]), xmax = fminf(a[3], b[3]);
    float inter = fmaxf(ymax - ymin, 0.0f) * fmaxf(xmax - xmin, 0.0f);
    return inter / (area_a + area_b - inter);
}

/* Greedy NMS over one score per anchor: *count anchors into selected, best first. */
static void nms(const op_data *d, const layout *l, float *mem, const float *scores,
                int32_t limit, int32_t *selected, int32_t *count)
{
    int32_t *words = (int32_t *)mem;
    float *keep_scores = mem + l->keep_scores;
    int32_t *keep = words + l->keep_idx, *sorted = words + l->sorted;
    uint32_t kept = 0;
    uint8_t *active = (uint8_t *)(words + l->active);
    for (int32_t i = 0; i < d->boxes; i++) {
        if (scores[i] >= d->score_threshold) {
            keep_scores[kept] = scores[i];
            keep[kept++] = i;
        }
    }
    stable_argsort(keep_scores, (int32_t)kept, sorted, words + l->merge);
    int32_t out_max = (int32_t)kept < limit ? (int32_t)kept : limit, left = (int32_t)kept;
    const float *boxes = mem + l->decoded;
    for (uint32_t i = 0; i < kept; i++)
        active[i] = 1;
    *count = 0;
    for (int32_t i = 0; i < (int32_t)kept && left > 0 && *count < out_max; i++) {
        if (!active[i])
            continue;
        selected[(*count)++] = keep[sorted[i]];
        active[i] = 0;
        left--;
        for (int32_t j = i + 1; j < (int32_t)kept; j++) {
            if (active[j] && iou(boxes, keep[sorted[i]], keep[sorted[j]]) > d->iou_threshold) {
                active[j] = 0;
                left--;
            }
        }
    }
}

static void write_row(float *const *out, int32_t row, const float *box, float cls, float s)
{
    memcpy(out[BOXES] + 4 * row, box, 4 * sizeof(float));
    out[CLASSES][row] = cls;
    out[SCORES][row] = s;
}

/* Per class NMS; the best max_detections over all classes so far kept after each class. */
static void regular(const op_data *d, const layout *l, float *mem, const float *scores,
                    float *const *out)
{
    int32_t *words = (int32_t *)mem, *selected = words + l->selected, count;
    int32_t *box_idx = words + l->out_idx, *sorted = words + l->out_sorted, kept = 0;
    float *class_scores = mem + l->work, *after = mem + l->out_scores, *vals = mem + l->out_vals;
    int32_t off = d->classes_bg - d->num_classes;
    for (int32_t c = 0; c < d->num_classes; c++) {
        for (int32_t r = 0; r < d->boxes; r++)
            class_scores[r] = scores[(size_t)r * (size_t)d->classes_bg + (size_t)(c + off)];
        nms(d, l, mem, class_scores, d->per_class, selected, &count);
        int32_t n = kept;
        for (int32_t i = 0; i < count; i++, n++) {
            box_idx[n] = selected[i] * d->classes_bg + c + off;
            after[n] = class_scores[selected[i]];
        }
        kept = n < d->max_detections ? n : d->max_detections;
        partial_argsort(after, n, kept, sorted);
        for (int32_t r = 0; r < kept; r++) {
            vals[r] = after[sorted[r]];
            sorted[r] = box_idx[sorted[r]];
        }
        memcpy(box_idx, sorted, (size_t)kept * sizeof *box_idx);
        memcpy(after, vals, (size_t)kept * sizeof *after);
    }
    for (int32_t r = 0; r < kept; r++) {
        int32_t anchor = box_idx[r] / d->classes_bg;
        float cls = (float)(box_idx[r] - anchor * d->classes_bg - off);
        write_row(out, r, mem + l->decoded + 4 * anchor, cls, after[r]);
    }
    *out[NUM] = (float)kept;
}

/* NMS once over each anchor's best class score; each kept anchor reports its top classes. */
static void fast(const op_data *d, const layout *l, float *mem, const float *scores,
                 float *const *out)
{
    int32_t *words = (int32_t *)mem, *selected = words + l->selected, count;
    int32_t *class_idx = words + l->class_idx, off = d->classes_bg - d->num_classes;
    int32_t per = d->max_classes < d->num_classes ? d->max_classes : d->num_classes;
    float *best = mem + l->work;
    for (int32_t r = 0; r < d->boxes; r++) {
        const float *s = scores + (size_t)r * (size_t)d->classes_bg + off;
        int32_t *ci = class_idx + (size_t)r * (size_t)d->num_classes;
        partial_argsort(s, d->num_classes, per, ci);
        best[r] = s[ci[0]];
    }
    nms(d, l, mem, best, d->max_detections, selected, &count);
    for (int32_t i = 0; i < count; i++) {
        const float *s = scores + (size_t)selected[i] * (size_t)d->classes_bg + off;
        const int32_t *ci = class_idx + (size_t)selected[i] * (size_t)d->num_classes;
        for (int32_t c = 0; c < per; c++)
            write_row(out, d->max_classes * i + c, mem + l->decoded + 4 * selected[i],
                      (float)ci[c], s[ci[c]]);
    }
    *out[NUM] = (float)count;
}

/* Class scores as floats: the input itself, or dequantized into the scratch. */
static const float *class_scores(const op_data *d, const layout *l, float *mem,
                                 const pl_tensor *t)
{
    if (t->type == PL_FLOAT32)
        return t->data;
    float *s = mem + l->scores;
    const uint8_t *q = t->data;
    for (size_t i = 0; i < (size_t)d->boxes * (size_t)d->classes_bg; i++)
        s[i] = (float)((double)d->class_scale * (q[i] - d->class_zp));
    return s;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in[3], o[4];
    float *out[4];
    PL_TRY(pl_node_evals(ctx, node, 3, 4, &in[0], &in[1], &in[2], &o[0], &o[1], &o[2], &o[3]));
    for (uint32_t i = 0; i < 4; i++) {
        out[i] = o[i].data;
        memset(out[i], 0, o[i].bytes);
    }
    layout l;
    plan(d, &l);
    float *mem = ctx->get_scratch(ctx, d->scratch);
    decode(d, &in[0], &in[2], mem + l.decoded);
    for (int32_t i = 0; i < d->boxes; i++) {
        const float *b = mem + l.decoded + 4 * i;
        if (b[0] > b[2] || b[1] > b[3])
            return ctx->fail(ctx, PL_ERR_ARG, "anchor %d decodes to an inverted box", i);
    }
    const float *scores = class_scores(d, &l, mem, &in[1]);
    if (d->regular)
        regular(d, &l, mem, scores, out);
    else
        fast(d, &l, mem, scores, out);
    return PL_OK;
}

const pl_registration *pl_detection_postprocess_registration(void)
{
    static const pl_registration reg = {.name = "TFLite_Detection_PostProcess",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
