/* conv_1xn_mve.c - arm_convolve_1_x_n_s8's Helium path, byte for byte (conv_1xn_mve.h).
**
** The kernel splits the output row into left, middle and right rows. The middle rows read
** the input directly. The left rows read an im2col buffer holding the left padding, then
** K * C input bytes; the right rows read the same buffer after it was given (K - 1) * C
** input bytes from the right edge's first window, then the right padding; bytes past what
** the right edge wrote still hold the left edge's. Every row is K * C bytes read at a stride
** of stride * C. Padding bytes hold minus the input offset, so they add nothing. */
#include "conv_1xn_mve.h"

#include "kernels/common/fixedpoint.h"
#include "kernels/common/rescale.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* The kernel's split of one output row (its own variable names in comments). */
typedef struct layout {
    int32_t c, k, s, in_w, out_w;
    int32_t left, middle, right;  /* left_pad_num, no_pad_num, right_pad_num */
    int32_t pad_left;             /* pad_size_left: bytes of left padding */
    int32_t len_left, len_right;  /* bytes the left and right edges write into the buffer */
    int32_t size;                 /* the buffer: TFLM asks for exactly this much */
    int32_t middle_start;         /* input byte of the first middle row */
    int32_t right_start;          /* input byte the right edge's copy starts from */
} layout;

enum { NOT_TAKEN, TAKEN, FAILS };

/* The kernel's own arithmetic on C's int32 (its % and / truncate: a total padding of -1
** gives asym_pad -1, which counts as one column of right padding). */
static int split(const pl_conv_params *p, const int32_t *in_dims, const int32_t *f_dims,
                 const int32_t *out_dims, layout *l)
{
    l->c = in_dims[3];
    l->k = f_dims[2];
    l->s = p->stride_w;
    l->in_w = in_dims[2];
    l->out_w = out_dims[2];
    bool one_by_one = p->pad_w == 0 && p->pad_h == 0 && f_dims[1] == 1 && l->k == 1 &&
                      p->dilation_w == 1 && p->dilation_h == 1 && l->c == f_dims[3];
    bool one_by_n = in_dims[1] == 1 && p->dilation_w == 1 && f_dims[1] == 1 &&
                    (l->s * l->c) % 4 == 0 && l->c == f_dims[3];
    if (one_by_one || !one_by_n)
        return NOT_TAKEN;
    int32_t pad = p->pad_w, total = (l->out_w - 1) * l->s + l->k - l->in_w;
    int32_t asym = total % 2;
    if (pad * 2 + asym != total)
        return FAILS;
    l->right = pad + asym != 0 ? MAX(1, (pad + asym + l->s - 1) / l->s) : 0;
    l->left = pad != 0 ? MAX(1, (pad + l->s - 1) / l->s) : 0;
    l->middle = MAX(l->out_w - (l->right + l->left), 0);
    if (l->right + l->middle + l->left != l->out_w)
        return NOT_TAKEN; /* arm_convolve_s8: the reference kernel's bytes */
    l->pad_left = pad * l->c;
    int32_t pad_right = asym ? l->right * l->c : l->pad_left;
    l->len_left = l->pad_left + l->k * l->c;
    l->len_right = (l->k - 1) * l->c + pad_right;
    l->size = MAX(l->len_left, l->len_right);
    l->middle_start = (l->s * l->left - pad) * l->c;
    l->right_start = (l->s * (l->left + l->middle) - pad) * l->c;
    return l->middle_start < 0 ? FAILS : TAKEN;
}

/* Where byte j of output column o's row comes from: an input byte of this batch (its offset
** from the batch's start, which may lie in another batch or outside the input: *defined
** says), or padding (returns false). */
static bool source(const layout *l, int32_t o, int32_t j, int64_t *offset, bool *defined)
{
    *defined = true;
    int64_t step = (int64_t)l->s * l->c;
    if (o >= l->left && o < l->left + l->middle) {
        *offset = l->middle_start + (o - l->left) * step + j;
        return true;
    }
    bool right = o >= l->left + l->middle;
    int64_t at = (right ? o - l->left - l->middle : o) * step + j; /* in the buffer */
    if (right && at < (int64_t)(l->k - 1) * l->c) {
        *offset = l->right_start + at;
        return true;
    }
    if (right && at < l->len_right)
        return false;
    if (at >= l->len_left) {
        *defined = false; /* past the buffer, or bytes no edge wrote */
        return false;
    }
    if (at < l->pad_left)
        return false;
    *offset = at - l->pad_left;
    return true;
}

pl_status pl_conv_1xn_mve_plan(pl_context *ctx, const pl_conv_params *p,
                               const int32_t *in_dims, const int32_t *f_dims,
                               const int32_t *out_dims, bool *taken)
{
    layout l;
    int how = split(p, in_dims, f_dims, out_dims, &l);
    *taken = how == TAKEN;
    if (how == FAILS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: TFLM + CMSIS-NN on Helium leaves "
                         "this 1xN convolution's output unwritten (arm_convolve_1_x_n_s8 "
                         "fails on a total padding of %d, which a release build ignores)",
                         (int)((out_dims[2] - 1) * p->stride_w + f_dims[2] - in_dims[2]));
    if (how == NOT_TAKEN)
        return PL_OK;
    int64_t row = (int64_t)l.in_w * l.c, all = row * in_dims[0];
    for (int32_t b = 0; b < in_dims[0]; b++)
        for (int32_t o = 0; o < l.out_w; o++)
            for (int32_t j = 0; j < l.k * l.c; j++) {
                int64_t at = 0;
                bool defined;
                bool input = source(&l, o, j, &at, &defined);
                at += b * row;
                if (!defined || (input && (at < 0 || at >= all)))
                    return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: TFLM + CMSIS-NN on "
                                     "Helium computes output column %d of this 1xN "
                                     "convolution from bytes outside its input and im2col "
                                     "buffer (undefined)", (int)o);
            }
    return PL_OK;
}

/* Output channels per pass: each byte's source is resolved once for the pass. */
#define CHANNEL_BLOCK 16

void pl_conv_1xn_mve_s8(const pl_conv_params *p, const int32_t *in_dims, const int8_t *in,
                        const int32_t *f_dims, const int8_t *filter, const int32_t *bias,
                        const int32_t *out_dims, int8_t *out)
{
    layout l;
    split(p, in_dims, f_dims, out_dims, &l);
    const int32_t cols = l.k * l.c, channels = out_dims[3];
    const int64_t row = (int64_t)l.in_w * l.c;
    for (int32_t b = 0; b < in_dims[0]; b++)
        for (int32_t o = 0; o < l.out_w; o++) {
            int8_t *dst = out + ((int64_t)b * l.out_w + o) * channels;
            for (int32_t oc0 = 0; oc0 < channels; oc0 += CHANNEL_BLOCK) {
                int32_t n = channels - oc0 < CHANNEL_BLOCK ? channels - oc0 : CHANNEL_BLOCK;
                uint32_t acc[CHANNEL_BLOCK] = {0}; /* int32 sums that wrap */
                for (int32_t j = 0; j < cols; j++) {
                    int64_t at;
                    bool defined;
                    if (!source(&l, o, j, &at, &defined))
                        continue; /* padding: adds nothing */
                    int32_t x = in[b * row + at] + p->input_offset;
                    const int8_t *w = filter + (int64_t)oc0 * cols + j;
                    for (int32_t k = 0; k < n; k++)
                        acc[k] += (uint32_t)(w[(int64_t)k * cols] * x);
                }
                for (int32_t k = 0; k < n; k++) {
                    int32_t oc = oc0 + k;
                    uint32_t sum = acc[k] + (bias != NULL ? (uint32_t)bias[oc] : 0u);
                    int32_t a = pl_rescale_qm((int32_t)sum, p->multiplier[oc], p->shift[oc]) +
                                p->output_offset;
                    dst[oc] = (int8_t)pl_fx_clamp(a, p->act_min, p->act_max);
                }
            }
        }
}
