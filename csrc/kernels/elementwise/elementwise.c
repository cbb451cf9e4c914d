/* elementwise.c - ADD, SUB, MUL: float32, int32, int64, int8, int16 (TFLite reference math).
**
** Quantized add/sub follow tensorflow/lite/kernels/add.cc and sub.cc: inputs are shifted
** left (20 bits for int8, 15 for int16), rescaled to twice the larger input scale, summed
** and rescaled to the output. Under target litert, int16 with zero points 0 and
** power-of-two scales takes the "pot" path when the options ask for it (pot_scale_int16,
** default true); TFLM never does. MUL rescales the product by s1 * s2 / s_out (mul.cc),
** a multiplier each firmware computes in its own precision (prepare_mul_q). */
#include "elementwise.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/common/rescale.h"
#include "picolite/pl_node_io.h"

enum { OP_ADD = 0, OP_SUB = 41, OP_MUL = 18 };

static int32_t wrap_add(int32_t a, int32_t b, int32_t op)
{
    /* TFLite's int32 arithmetic wraps in practice; do it without undefined behaviour */
    uint32_t x = (uint32_t)a, y = (uint32_t)b;
    uint32_t r = op == OP_ADD ? x + y : op == OP_SUB ? x - y : x * y;
    return (int32_t)r;
}

static void run_s32(const pl_elementwise_op *d, const pl_bcast *bc, int32_t op,
                    const int32_t *a, const int32_t *b, int32_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = pl_fx_clamp(wrap_add(a[it.i1], b[it.i2], op), d->q.act_min, d->q.act_max);
}

static void run_s64(const pl_elementwise_op *d, const pl_bcast *bc, int32_t op,
                    const int64_t *a, const int64_t *b, int64_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it)) {
        uint64_t x = (uint64_t)a[it.i1], y = (uint64_t)b[it.i2];
        int64_t r = (int64_t)(op == OP_ADD ? x + y : op == OP_SUB ? x - y : x * y);
        out[i] = r < d->l_min ? d->l_min : r > d->l_max ? d->l_max : r;
    }
}

void pl_add_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = pl_fx_clamp_f32(a[it.i1] + b[it.i2], lo, hi);
}

void pl_sub_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = pl_fx_clamp_f32(a[it.i1] - b[it.i2], lo, hi);
}

void pl_mul_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = pl_fx_clamp_f32(a[it.i1] * b[it.i2], lo, hi);
}

/* One element of TFLite's AddElementwise (the multipliers are all "smaller than one"),
** rescaled inline: three rescales per element are this loop's whole cost. */
static inline int32_t add_one(const pl_add_params *p, int32_t x, int32_t y)
{
    int32_t sx = (x + p->input1_offset) * (1 << p->left_shift);
    int32_t sy = (y + p->input2_offset) * (1 << p->left_shift);
    int32_t rx = pl_rescale_qm(sx, p->input1_multiplier, p->input1_shift);
    int32_t ry = pl_rescale_qm(sy, p->input2_multiplier, p->input2_shift);
    int32_t raw = pl_rescale_qm(rx + ry, p->output_multiplier, p->output_shift) +
                  p->output_offset;
    return pl_fx_clamp(raw, p->act_min, p->act_max);
}

void pl_add_s8(const pl_add_params *p, const pl_bcast *bc, const int8_t *a, const int8_t *b,
               int8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (int8_t)add_one(p, a[it.i1], b[it.i2]);
}

/* Legacy uint8: the same arithmetic as int8 (left shift 20), output 0..255. */
void pl_add_u8(const pl_add_params *p, const pl_bcast *bc, const uint8_t *a, const uint8_t *b,
               uint8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (uint8_t)add_one(p, a[it.i1], b[it.i2]);
}

void pl_add_s16(const pl_add_params *p, const pl_bcast *bc, const int16_t *a,
                const int16_t *b, int16_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (int16_t)add_one(p, a[it.i1], b[it.i2]);
}

/* TFLite Add(int16, pot) / Sub16: the shifted input is divided by a power of two with
** rounding, the sum saturates to int16 and is clamped to the activation range. */
void pl_add_s16_pot(const pl_add_params *p, const pl_bcast *bc, const int16_t *a,
                    const int16_t *b, int16_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it)) {
        int32_t x = pl_fx_rdbpot(a[it.i1], -p->input1_shift);
        int32_t y = pl_fx_rdbpot(b[it.i2], -p->input2_shift);
        int32_t r = pl_fx_clamp(x + p->sign * y, INT16_MIN, INT16_MAX);
        out[i] = (int16_t)pl_fx_clamp(r, p->act_min, p->act_max);
    }
}

static int32_t mul_one(const pl_add_params *p, int32_t x, int32_t y)
{
    int32_t prod = (x + p->input1_offset) * (y + p->input2_offset);
    int32_t raw = p->output_offset +
                  pl_fx_mul_by_qm(prod, p->output_multiplier, p->output_shift);
    return pl_fx_clamp(raw, p->act_min, p->act_max);
}

void pl_mul_s8(const pl_add_params *p, const pl_bcast *bc, const int8_t *a, const int8_t *b,
               int8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (int8_t)mul_one(p, a[it.i1], b[it.i2]);
}

void pl_mul_u8(const pl_add_params *p, const pl_bcast *bc, const uint8_t *a, const uint8_t *b,
               uint8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (uint8_t)mul_one(p, a[it.i1], b[it.i2]);
}

void pl_mul_s16(const pl_add_params *p, const pl_bcast *bc, const int16_t *a,
                const int16_t *b, int16_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (int16_t)mul_one(p, a[it.i1], b[it.i2]);
}

/* TFLite CheckedLog2: is x a power of two (within 1e-3 in log2), and which. */
static bool checked_log2(float x, int32_t *log2)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if (!(x > 0.0f) || (u >> 23) == 0 || (u >> 23) >= 255)
        return false;
    int32_t e = (int32_t)(u >> 23) - 127;
    uint32_t frac_bits = u & 0x7FFFFFu;
    float m = 1.0f + (float)frac_bits / 8388608.0f; /* mantissa in [1, 2) */
    /* |log2(m) - round(log2(m))| < 1e-3 <=> m within 2^0.001 of 1 or of 2 */
    if (m < 1.00069338f) {
        *log2 = e;
        return true;
    }
    if (m > 1.99861432f) {
        *log2 = e + 1;
        return true;
    }
    return false;
}

static int32_t options_activation(const pl_node *node)
{
    return pl_table_i8(&node->options, 0, 0);
}

static void int32_range(int32_t act, int32_t *lo, int32_t *hi)
{
    *lo = act == PL_ACT_RELU || act == PL_ACT_RELU6 ? 0 : act == PL_ACT_RELU_N1_TO_1 ? -1
                                                                                : INT32_MIN;
    *hi = act == PL_ACT_RELU6 ? 6 : act == PL_ACT_RELU_N1_TO_1 ? 1 : INT32_MAX;
}

static void type_range(pl_type t, int32_t *lo, int32_t *hi)
{
    *lo = t == PL_INT8 ? INT8_MIN : t == PL_UINT8 ? 0 : INT16_MIN;
    *hi = t == PL_INT8 ? INT8_MAX : t == PL_UINT8 ? UINT8_MAX : INT16_MAX;
}

static pl_status check_zero_points(pl_context *ctx, const pl_tensor *const t[3])
{
    int32_t lo, hi;
    type_range(t[2]->type, &lo, &hi);
    for (int k = 0; k < 3; k++) {
        if (t[k]->q.count == 0 || !(t[k]->q.scale[0] > 0.0f))
            return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d: needs a positive scale",
                             (int)t[k]->index);
        if (t[k]->q.zero_point[0] < lo || t[k]->q.zero_point[0] > hi)
            return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d: zero point %lld out of range",
                             (int)t[k]->index, (long long)t[k]->q.zero_point[0]);
    }
    return PL_OK;
}

/* QuantizeMultiplierSmallerThanOneExp: TFLite aborts outside (0, 1); we refuse. */
static pl_status small_multiplier(pl_context *ctx, double m, int32_t *q, int32_t *shift)
{
    if (!(m > 0.0 && m < 1.0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "rescale multiplier %g is not in (0, 1)", m);
    pl_fx_quantize_multiplier(m, q, shift);
    return PL_OK;
}

/* add.cc / sub.cc general path (int8, and int16 with general scales). */
static pl_status prepare_add_general(pl_context *ctx, const pl_tensor *const t[3],
                                     int32_t op, pl_add_params *p)
{
    float s1 = t[0]->q.scale[0], s2 = t[1]->q.scale[0], so = t[2]->q.scale[0];
    p->input1_offset = -(int32_t)t[0]->q.zero_point[0];
    p->input2_offset = -(int32_t)t[1]->q.zero_point[0];
    p->output_offset = (int32_t)t[2]->q.zero_point[0];
    p->left_shift = t[2]->type == PL_INT16 ? 15 : 20;
    /* the float/double mix below is LiteRT's (and every TFLM's ADD), so the multipliers match
    ** to the bit; TFLM 90b983c's SUB takes the quotients in float */
    float twice = 2.0f * (s1 > s2 ? s1 : s2), scaled_out = (float)(1 << p->left_shift) * so;
    double twice_max = (double)twice;
    double m1 = (double)s1 / twice_max, m2 = (double)s2 / twice_max;
    double mo = twice_max / (double)scaled_out;
    bool wide = op != OP_SUB || ctx->arith == PL_ARITH_LITERT || pl_arith_wide(ctx->arith);
    m1 = pl_fx_pick(wide, m1, (double)(s1 / twice));
    m2 = pl_fx_pick(wide, m2, (double)(s2 / twice));
    mo = pl_fx_pick(wide, mo, (double)(twice / scaled_out));
    PL_TRY(small_multiplier(ctx, m1, &p->input1_multiplier, &p->input1_shift));
    PL_TRY(small_multiplier(ctx, m2, &p->input2_multiplier, &p->input2_shift));
    PL_TRY(small_multiplier(ctx, mo, &p->output_multiplier, &p->output_shift));
    if (op == OP_SUB)
        p->input2_multiplier = -p->input2_multiplier;
    p->sign = op == OP_SUB ? -1 : 1;
    return PL_OK;
}

static bool wants_pot(const pl_node *node, const pl_tensor *const t[3], int32_t log2[3])
{
    /* TFLite leaves pot_scale_int16 false when the options table is absent */
    if (t[2]->type != PL_INT16 || node->options.buf == NULL ||
        !pl_table_bool(&node->options, 1, true))
        return false;
    for (int k = 0; k < 3; k++) {
        if (t[k]->q.zero_point[0] != 0 || !checked_log2(t[k]->q.scale[0], &log2[k]))
            return false;
    }
    return true;
}

static pl_status prepare_add_pot(pl_context *ctx, const int32_t log2[3], bool broadcast,
                                 int32_t op, pl_add_params *p)
{
    p->input1_shift = log2[0] - log2[2];
    p->input2_shift = log2[1] - log2[2];
    p->sign = op == OP_SUB ? -1 : 1;
    if (!(p->input1_shift == 0 || p->input2_shift == 0) || p->input1_shift > 0 ||
        p->input2_shift > 0 || p->input1_shift < -31 || p->input2_shift < -31)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "int16 power-of-two scales need one input at the output scale and "
                         "the other finer (shifts %d, %d)", (int)p->input1_shift,
                         (int)p->input2_shift);
    /* TFLite's reference ADD has no broadcasting form of this path (LiteRT aborts; SUB has
    ** one) */
    if (broadcast && op == OP_ADD)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "int16 power-of-two ADD does not broadcast in TFLite's reference");
    return PL_OK;
}

/* The rescale s1 * s2 / s_out: LiteRT's mul.cc takes the product and quotient in float and
** widens the result; TFLM's mul_common.cc widens each scale and works in double. */
static pl_status prepare_mul_q(pl_context *ctx, const pl_tensor *const t[3], pl_add_params *p)
{
    p->input1_offset = -(int32_t)t[0]->q.zero_point[0];
    p->input2_offset = -(int32_t)t[1]->q.zero_point[0];
    p->output_offset = (int32_t)t[2]->q.zero_point[0];
    if (t[2]->type == PL_INT16 &&
        (p->input1_offset != 0 || p->input2_offset != 0 || p->output_offset != 0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "int16 MUL needs zero points of 0");
    float s1 = t[0]->q.scale[0], s2 = t[1]->q.scale[0], so = t[2]->q.scale[0];
    double m = pl_fx_ratio3(s1, s2, so, ctx->arith != PL_ARITH_LITERT);
    pl_fx_quantize_multiplier(m, &p->output_multiplier, &p->output_shift);
    return PL_OK;
}

/* TFLite's pot ADD runs flat, so it needs equal element counts, not equal shapes. */
static bool same_count(const pl_tensor *a, const pl_tensor *b)
{
    return pl_tensor_count(a) == pl_tensor_count(b);
}

static pl_status prepare_quantized(pl_context *ctx, pl_node *node, const pl_tensor *const t[3],
                                   pl_elementwise_op *d)
{
    int32_t op = node->builtin_code, act = options_activation(node), log2[3] = {0, 0, 0};
    PL_TRY(check_zero_points(ctx, t));
    /* TFLM's CMSIS-NN ADD refuses int16 zero points other than 0 (its reference one runs them) */
    if (op == OP_ADD && t[2]->type == PL_INT16 && pl_arith_cmsis_nn(ctx->arith) &&
        (t[0]->q.zero_point[0] != 0 || t[1]->q.zero_point[0] != 0 || t[2]->q.zero_point[0] != 0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "ADD: TFLM's CMSIS-NN kernel needs int16 "
                         "zero points 0");
    int32_t lo, hi;
    type_range(t[2]->type, &lo, &hi);
    pl_status s = pl_fx_activation_range_q(act, t[2]->q.scale[0],
                                           (int32_t)t[2]->q.zero_point[0], lo, hi,
                                           &d->q.act_min, &d->q.act_max);
    if (s != PL_OK)
        return ctx->fail(ctx, s, "activation bounds do not fit the output quantization");
    if (op == OP_MUL)
        return prepare_mul_q(ctx, t, &d->q);
    /* TFLM's int16 ADD and SUB always take the general path (pot_scale_int16 false) */
    d->pot = ctx->arith == PL_ARITH_LITERT && wants_pot(node, t, log2);
    if (d->pot)
        return prepare_add_pot(ctx, log2, !same_count(t[0], t[1]), op, &d->q);
    return prepare_add_general(ctx, t, op, &d->q);
}

static pl_status get_three(pl_context *ctx, pl_node *node, pl_tensor *t[3])
{
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &t[0], &t[1], &t[2]));
    return PL_OK;
}

static pl_status check_types(pl_context *ctx, const pl_tensor *const t[3], int32_t act)
{
    pl_type ty = t[0]->type;
    if (t[1]->type != ty || t[2]->type != ty)
        return ctx->fail(ctx, PL_ERR_MODEL, "input types %s, %s and output type %s differ",
                         pl_type_name(ty), pl_type_name(t[1]->type),
                         pl_type_name(t[2]->type));
    if (ty != PL_FLOAT32 && ty != PL_INT32 && ty != PL_INT64 && ty != PL_INT8 &&
        ty != PL_INT16 && ty != PL_UINT8)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(ty));
    if (act < PL_ACT_NONE || act > PL_ACT_RELU6)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "fused activation %d is not supported",
                         (int)act);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_elementwise_op *d = node->user_data;
    pl_tensor *t[3];
    PL_TRY(get_three(ctx, node, t));
    const pl_tensor *const *ct = (const pl_tensor *const *)t;
    int32_t act = options_activation(node);
    PL_TRY(check_types(ctx, ct, act));
    PL_TRY(pl_bcast_set_output(ctx, t[0], t[1], t[2]));
    pl_bcast bc;
    pl_bcast_result br = pl_bcast_setup(&bc, t[0], t[1], t[2]);
    if (br == PL_BCAST_RANK)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "broadcasting above rank %d is not supported",
                         PL_BCAST_MAX_DIMS);
    if (br != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "output shape is not the broadcast of the inputs");
    if (t[2]->type == PL_FLOAT32) {
        pl_fx_activation_range_f32(act, &d->f_min, &d->f_max);
        return PL_OK;
    }
    if (t[2]->type == PL_INT32 || t[2]->type == PL_INT64) {
        int32_range(act, &d->q.act_min, &d->q.act_max);
        /* the same bounds widened; no activation leaves the whole int64 range */
        d->l_min = d->q.act_min == INT32_MIN ? INT64_MIN : d->q.act_min;
        d->l_max = d->q.act_max == INT32_MAX ? INT64_MAX : d->q.act_max;
        return PL_OK;
    }
    return prepare_quantized(ctx, node, ct, d);
}

static void run_f32(const pl_elementwise_op *d, const pl_bcast *bc, int32_t op,
                    const float *a, const float *b, float *out)
{
    if (op == OP_ADD)
        pl_add_f32(bc, d->f_min, d->f_max, a, b, out);
    else if (op == OP_SUB)
        pl_sub_f32(bc, d->f_min, d->f_max, a, b, out);
    else
        pl_mul_f32(bc, d->f_min, d->f_max, a, b, out);
}

static void run_s16(const pl_elementwise_op *d, const pl_bcast *bc, int32_t op,
                    const int16_t *a, const int16_t *b, int16_t *out)
{
    if (op == OP_MUL)
        pl_mul_s16(&d->q, bc, a, b, out);
    else if (d->pot)
        pl_add_s16_pot(&d->q, bc, a, b, out);
    else
        pl_add_s16(&d->q, bc, a, b, out);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const pl_elementwise_op *d = node->user_data;
    pl_tensor a, b, o;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &a, &b, &o));
    pl_bcast bc;
    if (pl_bcast_setup(&bc, &a, &b, &o) != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    int32_t op = node->builtin_code;
    switch (o.type) {
    case PL_FLOAT32:
        run_f32(d, &bc, op, a.data, b.data, o.data);
        break;
    case PL_INT32:
        run_s32(d, &bc, op, a.data, b.data, o.data);
        break;
    case PL_INT64:
        run_s64(d, &bc, op, a.data, b.data, o.data);
        break;
    case PL_INT8:
        if (op == OP_MUL)
            pl_mul_s8(&d->q, &bc, a.data, b.data, o.data);
        else
            pl_add_s8(&d->q, &bc, a.data, b.data, o.data);
        break;
    case PL_INT16:
        run_s16(d, &bc, op, a.data, b.data, o.data);
        break;
    case PL_UINT8:
        if (op == OP_MUL)
            pl_mul_u8(&d->q, &bc, a.data, b.data, o.data);
        else
            pl_add_u8(&d->q, &bc, a.data, b.data, o.data);
        break;
    default:
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(o.type));
    }
    return PL_OK;
}

const pl_registration *pl_add_registration(void)
{
    static const pl_registration r = {.name = "ADD", .builtin_code = OP_ADD, .prepare = prepare,
                                      .invoke = invoke,
                                      .user_data_size = sizeof(pl_elementwise_op)};
    return &r;
}

const pl_registration *pl_sub_registration(void)
{
    static const pl_registration r = {.name = "SUB", .builtin_code = OP_SUB, .prepare = prepare,
                                      .invoke = invoke,
                                      .user_data_size = sizeof(pl_elementwise_op)};
    return &r;
}

const pl_registration *pl_mul_registration(void)
{
    static const pl_registration r = {.name = "MUL", .builtin_code = OP_MUL, .prepare = prepare,
                                      .invoke = invoke,
                                      .user_data_size = sizeof(pl_elementwise_op)};
    return &r;
}
