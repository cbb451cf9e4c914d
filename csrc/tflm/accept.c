/* accept.c - the tensor types TFLM's reference kernels run.
**
** A kernel whose prepare rejects a type, or whose eval has no code for it, fails whatever
** the arena: a TFLM firmware cannot run such a model (a hybrid convolution, uint8
** arithmetic, an int16 gather...), so its arena figures are refused, not computed. The
** rules are the kernels' type checks and type dispatches (prepare's or eval's: either
** fails), as the tflite-micro wheel runs them: some of TFLM's prepare checks compile to
** nothing (the elementwise kernels'), and there the eval's dispatch decides. A rule names a
** tensor of the node (an absent optional one passes) and the types that run. */
#include <stdarg.h>
#include <string.h>

#include "base/fmt.h"
#include "tflm/kernels.h"
#include "tflm/ops.h"

#define IN(k) (k)
#define OUT(k) (8 + (k))

#define F32 (1u << PL_FLOAT32)
#define I32 (1u << PL_INT32)
#define U8 (1u << PL_UINT8)
#define I64 (1u << PL_INT64)
#define BOOL (1u << PL_BOOL)
#define I16 (1u << PL_INT16)
#define I8 (1u << PL_INT8)
#define U32 (1u << PL_UINT32)
#define I4 (1u << PL_INT4)
#define NOT_STRING (~(1u << PL_STRING))

typedef struct rule {
    int32_t builtin;
    uint8_t tensor; /* IN(k) or OUT(k) */
    uint32_t types;
} rule;

static const rule rules[] = {
    {OP_ADD, OUT(0), F32 | I32 | I8 | I16},
    {OP_SUB, OUT(0), F32 | I32 | I8 | I16},
    {OP_MUL, IN(0), F32 | I32 | I8 | I16},
    {OP_DIV, OUT(0), F32 | I32 | I8},
    {OP_SQUARED_DIFFERENCE, OUT(0), F32 | I32 | I8 | I16},
    {OP_MAXIMUM, OUT(0), F32 | I8 | I16 | I32 | I64},
    {OP_MINIMUM, OUT(0), F32 | I8 | I16 | I32 | I64},
    {OP_FLOOR_DIV, IN(0), F32},
    {OP_FLOOR_MOD, IN(0), F32},
    {OP_EQUAL, IN(0), BOOL | F32 | I32 | I64 | I8},
    {OP_NOT_EQUAL, IN(0), BOOL | F32 | I32 | I64 | I8},
    {OP_GREATER, IN(0), F32 | I32 | I64 | I8 | I16},
    {OP_GREATER_EQUAL, IN(0), F32 | I32 | I64 | I8},
    {OP_LESS, IN(0), F32 | I32 | I64 | I8},
    {OP_LESS_EQUAL, IN(0), F32 | I32 | I64 | I8},
    {OP_LOGICAL_NOT, IN(0), BOOL},
    {OP_ABS, IN(0), F32 | I8 | I16},
    {OP_RSQRT, IN(0), F32 | I8 | I16},
    {OP_SIN, IN(0), F32},
    {OP_COS, IN(0), F32},
    {OP_LOG, IN(0), F32},
    {OP_SQRT, IN(0), F32},
    {OP_SQUARE, IN(0), F32},
    {OP_EXP, IN(0), F32},
    {OP_NEG, IN(0), F32},
    {OP_FLOOR, IN(0), F32},
    {OP_CEIL, IN(0), F32},
    {OP_ROUND, IN(0), F32},
    {OP_RELU, IN(0), F32 | I8 | I16},
    {OP_RELU6, IN(0), F32 | I8 | I16},
    {OP_LEAKY_RELU, IN(0), F32 | I8 | I16},
    {OP_PRELU, IN(0), F32 | I8 | I16},
    {OP_TANH, IN(0), F32 | I8 | I16},
    {OP_HARD_SWISH, IN(0), F32 | I8},
    {OP_ELU, IN(0), F32 | I8},
    {OP_DEQUANTIZE, IN(0), I8 | I16 | U8},
    {OP_DEQUANTIZE, OUT(0), F32},
    {OP_CAST, IN(0), I8 | I16 | I32 | U32 | F32 | BOOL},
    {OP_ADD_N, OUT(0), F32 | I8},
    {OP_SELECT_V2, IN(0), BOOL},
    {OP_SELECT_V2, IN(1), F32 | I8 | I16},
    {OP_ZEROS_LIKE, IN(0), I64 | I32 | I8 | F32},
    {OP_FILL, IN(0), I8 | I16 | I32 | I64},
    {OP_FILL, IN(1), F32 | I32 | I8},
    {OP_AVERAGE_POOL_2D, IN(0), F32 | I8 | I16},
    {OP_MAX_POOL_2D, IN(0), F32 | I8 | I16},
    {OP_L2_POOL_2D, IN(0), F32},
    {OP_LOG_SOFTMAX, IN(0), F32 | I8},
    {OP_L2_NORMALIZATION, OUT(0), F32 | I8},
    {OP_BATCH_MATMUL, IN(0), F32 | I8 | I16},
    {OP_BATCH_MATMUL, IN(1), F32 | I8 | I16},
    {OP_CONCATENATION, IN(0), F32 | I8 | I16 | I32 | I64 | BOOL},
    {OP_PACK, OUT(0), F32 | I8 | I16 | I32 | I64},
    {OP_UNPACK, IN(0), F32 | I32 | I16 | I8},
    {OP_SPLIT, IN(1), F32 | I8 | I16 | I32},
    {OP_SPLIT_V, IN(0), F32 | I8 | I16 | I32},
    {OP_PAD, IN(0), F32 | I8 | I16 | I32},
    {OP_PADV2, IN(0), F32 | I8 | I16 | I32},
    {OP_MIRROR_PAD, OUT(0), F32 | I8},
    {OP_TRANSPOSE, IN(0), F32 | I8 | I16},
    {OP_STRIDED_SLICE, OUT(0), F32 | I8 | I16 | I32 | BOOL},
    {OP_SLICE, IN(0), F32 | I32 | I8 | I16 | BOOL},
    {OP_SLICE, IN(1), I32 | I64},
    {OP_SPACE_TO_BATCH_ND, IN(0), F32 | I8},
    {OP_BATCH_TO_SPACE_ND, IN(0), F32 | I8},
    {OP_DEPTH_TO_SPACE, OUT(0), F32 | I8},
    {OP_SPACE_TO_DEPTH, OUT(0), F32 | I8},
    {OP_EXPAND_DIMS, IN(0), F32 | I16 | I8},
    {OP_EXPAND_DIMS, IN(1), I32},
    {OP_SQUEEZE, IN(0), NOT_STRING},
    {OP_BROADCAST_TO, IN(0), NOT_STRING},
    {OP_BROADCAST_TO, IN(1), I32 | I64},
    {OP_BROADCAST_ARGS, IN(0), I32 | I64},
    {OP_SHAPE, OUT(0), I32},
    {OP_GATHER, IN(0), F32 | I8},
    {OP_GATHER, IN(1), I32},
    {OP_GATHER_ND, IN(0), F32 | I8},
    {OP_GATHER_ND, IN(1), I32},
    {OP_EMBEDDING_LOOKUP, IN(0), I32},
    {OP_EMBEDDING_LOOKUP, IN(1), F32 | I8},
    {OP_ARG_MAX, IN(0), F32 | I8},
    {OP_ARG_MAX, IN(1), I32},
    {OP_ARG_MAX, OUT(0), I32},
    {OP_ARG_MIN, IN(0), F32 | I8},
    {OP_ARG_MIN, IN(1), I32},
    {OP_ARG_MIN, OUT(0), I32},
    {OP_CUMSUM, IN(0), F32 | I8},
    {OP_CUMSUM, IN(1), I32},
    {OP_DYNAMIC_UPDATE_SLICE, IN(0), F32 | I8 | I16 | I32},
    {OP_DYNAMIC_UPDATE_SLICE, IN(2), I32 | I64},
    {OP_REVERSE_V2, IN(0), I32 | F32 | U8 | I8 | I16 | I64 | BOOL},
    {OP_REVERSE_V2, IN(1), I32},
    {OP_RESIZE_BILINEAR, OUT(0), F32 | I8},
    {OP_RESIZE_BILINEAR, IN(1), I32},
    {OP_RESIZE_NEAREST_NEIGHBOR, OUT(0), F32 | I8 | I16},
    {OP_RESIZE_NEAREST_NEIGHBOR, IN(1), I32},
    {OP_MEAN, IN(0), F32 | I8 | I16},
    {OP_SUM, IN(0), F32 | I8 | I16},
    {OP_REDUCE_MAX, IN(0), F32 | I8},
    {OP_REDUCE_MIN, IN(0), F32 | I8},
    {OP_REDUCE_ALL, IN(0), BOOL},
    {OP_UNIDIRECTIONAL_SEQUENCE_LSTM, IN(0), F32 | I8 | I16},
};

/* Custom operators, by the name TFLM registers. */
typedef struct custom_rule {
    const char *name;
    uint8_t tensor;
    uint32_t types;
} custom_rule;

static const custom_rule custom_rules[] = {
    {"CIRCULAR_BUFFER", IN(0), I8},
    {"TFLite_Detection_PostProcess", IN(0), F32},
    {"TFLite_Detection_PostProcess", IN(1), F32},
};

void pl_tflm_refuse(pl_tflm_node *n, const char *fmt, ...)
{
    pl_tflm_program *p = n->p;
    if (p->refused)
        return;
    p->refused = true;
    va_list ap;
    va_start(ap, fmt);
    pl_fmt_v(p->refusal, sizeof p->refusal, fmt, ap);
    va_end(ap);
}

static void tensor(const pl_tflm_node *n, uint8_t slot, pl_tflm_tensor *t)
{
    int32_t index = slot >= OUT(0) ? pl_tflm_output(n, slot - OUT(0)) : pl_tflm_input(n, slot);
    pl_tflm_tensor_of(n, index, t);
}

static bool is(const pl_tflm_tensor *t, uint32_t types)
{
    return (uint32_t)t->type < 32 && (types & (1u << t->type)) != 0;
}

/* A rule: the tensor in slot is absent or of one of types. */
static void check(pl_tflm_node *n, uint8_t slot, uint32_t types)
{
    pl_tflm_tensor t;
    tensor(n, slot, &t);
    if (t.index < 0 || is(&t, types))
        return;
    pl_tflm_refuse(n, "%s %u is %s", slot >= OUT(0) ? "output" : "input",
                   (unsigned)(slot >= OUT(0) ? slot - OUT(0) : slot), pl_type_name(t.type));
}

/* --- rules over several tensors --- */

/* The weighted layers run float32 with float32 weights, int8 with int8 or int4, int16
** with int8 (TFLM: "Hybrid models are not supported"); the output's type is the input's. */
static bool weights_run(const pl_tflm_tensor *in, const pl_tflm_tensor *w)
{
    return (in->type == PL_FLOAT32 && w->type == PL_FLOAT32) ||
           (in->type == PL_INT8 && is(w, I8 | I4)) || (in->type == PL_INT16 && w->type == PL_INT8);
}

static void weighted(pl_tflm_node *n, uint8_t input, uint8_t weights, bool same_output)
{
    pl_tflm_tensor in, w, out;
    tensor(n, input, &in);
    tensor(n, weights, &w);
    tensor(n, OUT(0), &out);
    if (!weights_run(&in, &w))
        pl_tflm_refuse(n, "%s input with %s weights (hybrid, or no kernel for the type)",
                       pl_type_name(in.type), pl_type_name(w.type));
    else if (same_output && out.type != in.type)
        pl_tflm_refuse(n, "%s input, %s output", pl_type_name(in.type),
                       pl_type_name(out.type));
}

static void conv(pl_tflm_node *n)
{
    weighted(n, IN(0), IN(1), true);
}

/* DEPTHWISE_CONV_2D (its output's type is not checked); its prepare takes a third input as
** its bias and releases it unchecked: an absent one (index -1) is dereferenced. */
static void depthwise(pl_tflm_node *n)
{
    weighted(n, IN(0), IN(1), false);
    if (n->op.inputs.n == 3 && pl_tflm_input(n, 2) < 0)
        pl_tflm_refuse(n, "an absent bias given as input 2 (its prepare dereferences it)");
}

/* Per-channel weights only for an int8 or int16 input with int8 weights
** (CalculateOpDataFullyConnected: "Currently only Int8/Int16 are supported for per channel
** quantization"; a per-channel int4 filter fails AllocateTensors). */
static void fully_connected(pl_tflm_node *n)
{
    weighted(n, IN(0), IN(1), true);
    pl_tflm_tensor in, w;
    tensor(n, IN(0), &in);
    tensor(n, IN(1), &w);
    if (w.type == PL_INT4 && w.channels > 1 && in.type != PL_FLOAT32)
        pl_tflm_refuse(n, "per-channel int4 weights (TFLM's fully connected kernel takes "
                       "per-channel weights as int8 only)");
}

/* TRANSPOSE_CONV: (output shape, filter, input, bias); the filter's type is the input's, or
** int8 for an int16 input. */
static void transpose_conv(pl_tflm_node *n)
{
    pl_tflm_tensor in, w, out;
    tensor(n, IN(2), &in);
    tensor(n, IN(1), &w);
    tensor(n, OUT(0), &out);
    if (!is(&in, F32 | I8 | I16) || !(w.type == in.type || (in.type == PL_INT16 &&
                                                            w.type == PL_INT8)))
        pl_tflm_refuse(n, "%s input with %s weights", pl_type_name(in.type),
                       pl_type_name(w.type));
    else if (out.type != in.type)
        pl_tflm_refuse(n, "%s input, %s output", pl_type_name(in.type),
                       pl_type_name(out.type));
}

static bool near(float x, float want)
{
    float d = x - want;
    return d <= 0.001f * want && -d <= 0.001f * want;
}

/* SOFTMAX: float32 to float32; int8 to int8 (zero point -128, scale exactly 1/256) or to
** int16 (zero point -32768, scale 1/65536); int16 to int16 (zero points 0, scale 1/32768). */
static void softmax(pl_tflm_node *n)
{
    pl_tflm_tensor in, out;
    tensor(n, IN(0), &in);
    tensor(n, OUT(0), &out);
    bool ok;
    if (in.type == PL_INT8 && out.type == PL_INT8)
        ok = out.zero_point == -128 && out.scale == 1.0f / 256;
    else if (in.type == PL_INT8 && out.type == PL_INT16)
        ok = out.zero_point == -32768 && near(out.scale, 1.0f / 65536);
    else if (in.type == PL_INT16 && out.type == PL_INT16)
        ok = in.zero_point == 0 && out.zero_point == 0 && near(out.scale, 1.0f / 32768);
    else
        ok = in.type == PL_FLOAT32 && out.type == PL_FLOAT32;
    if (!ok)
        pl_tflm_refuse(n, "%s input, %s output of scale %g and zero point %d",
                       pl_type_name(in.type), pl_type_name(out.type), (double)out.scale,
                       (int)out.zero_point);
}

/* QUANTIZE's prepare and eval: the (input, output) pairs both accept. */
static void quantize(pl_tflm_node *n)
{
    static const uint32_t outputs[] = {
        [PL_FLOAT32] = I8 | I16, [PL_INT32] = I8 | I16, [PL_INT16] = I8 | I16 | I32,
        [PL_INT8] = I8 | U8 | I16 | I32, [PL_UINT8] = I8,
    };
    pl_tflm_tensor in, out;
    tensor(n, IN(0), &in);
    tensor(n, OUT(0), &out);
    uint32_t ok = (uint32_t)in.type < sizeof outputs / sizeof outputs[0] ? outputs[in.type] : 0;
    if (!is(&out, ok))
        pl_tflm_refuse(n, "%s input, %s output", pl_type_name(in.type),
                       pl_type_name(out.type));
}

/* LOGISTIC: float32, int16 or int8, the output's type the input's. */
static void logistic(pl_tflm_node *n)
{
    pl_tflm_tensor in, out;
    tensor(n, IN(0), &in);
    tensor(n, OUT(0), &out);
    if (!is(&in, F32 | I16 | I8) || out.type != in.type)
        pl_tflm_refuse(n, "%s input, %s output", pl_type_name(in.type),
                       pl_type_name(out.type));
}

/* EMBEDDING_LOOKUP: float32 rows to a float32 output, int8 rows to float32 or int8. */
static void embedding_lookup(pl_tflm_node *n)
{
    pl_tflm_tensor value, out;
    tensor(n, IN(1), &value);
    tensor(n, OUT(0), &out);
    if (!is(&out, value.type == PL_INT8 ? F32 | I8 : F32))
        pl_tflm_refuse(n, "%s rows, %s output", pl_type_name(value.type),
                       pl_type_name(out.type));
}

/* SVDF: (input, weights_feature, weights_time, bias, state); all float32, or int8 with int8
** feature weights, int8 or int16 time weights and state, an int8 output. */
static void svdf(pl_tflm_node *n)
{
    pl_tflm_tensor in, wf, wt, state, out;
    tensor(n, IN(0), &in);
    tensor(n, IN(1), &wf);
    tensor(n, IN(2), &wt);
    tensor(n, IN(4), &state);
    tensor(n, OUT(0), &out);
    bool ok = in.type == PL_FLOAT32
                  ? wf.type == PL_FLOAT32 && wt.type == PL_FLOAT32 &&
                        state.type == PL_FLOAT32 && out.type == PL_FLOAT32
                  : in.type == PL_INT8 && wf.type == PL_INT8 && is(&wt, I8 | I16) &&
                        is(&state, I8 | I16) && out.type == PL_INT8;
    if (!ok)
        pl_tflm_refuse(n, "%s input with %s feature weights, %s time weights, %s state",
                       pl_type_name(in.type), pl_type_name(wf.type), pl_type_name(wt.type),
                       pl_type_name(state.type));
}

/* CAST's output: the wheel's TFLM (later than the firmware's) casts to bool as well. */
static void cast(pl_tflm_node *n)
{
    check(n, OUT(0), I8 | I16 | I32 | U32 | F32 | (pl_tflm_wheel(n) ? BOOL : 0));
}

/* --- what TFLM's cmsis_nn kernels refuse on top --- */

static void zero_point_zero(pl_tflm_node *n, uint8_t slot)
{
    pl_tflm_tensor t;
    tensor(n, slot, &t);
    if (t.index >= 0 && t.type == PL_INT16 && t.zero_point != 0)
        pl_tflm_refuse(n, "CMSIS-NN's int16 kernel needs zero point 0 (%s %u has %d)",
                       slot >= OUT(0) ? "output" : "input",
                       (unsigned)(slot >= OUT(0) ? slot - OUT(0) : slot), (int)t.zero_point);
}

/* The int16 ADD, CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED take zero points of 0 only;
** FULLY_CONNECTED takes per-channel weights only for an int8 input with int8 weights; the
** int16 TRANSPOSE_CONV's prepare reads its bias's type unguarded (an absent bias fails). */
static void cmsis_nn(pl_tflm_node *n)
{
    int32_t b = n->builtin;
    if (b == OP_TRANSPOSE_CONV) {
        pl_tflm_tensor in;
        tensor(n, IN(2), &in);
        if (in.type == PL_INT16 && pl_tflm_input(n, 3) < 0)
            pl_tflm_refuse(n, "CMSIS-NN's int16 transpose convolution without a bias (its "
                           "prepare dereferences the absent bias)");
        return;
    }
    if (b != OP_ADD && b != OP_CONV_2D && b != OP_DEPTHWISE_CONV_2D && b != OP_FULLY_CONNECTED)
        return;
    zero_point_zero(n, IN(0));
    if (b == OP_ADD)
        zero_point_zero(n, IN(1));
    zero_point_zero(n, OUT(0));
    if (b == OP_FULLY_CONNECTED) {
        pl_tflm_tensor in, w;
        tensor(n, IN(0), &in);
        tensor(n, IN(1), &w);
        if (w.channels > 1 && in.type != PL_FLOAT32 &&
            !(in.type == PL_INT8 && w.type == PL_INT8))
            pl_tflm_refuse(n, "CMSIS-NN's fully connected kernel takes per-channel weights "
                           "for int8 input and int8 weights only (%s input, %s weights)",
                           pl_type_name(in.type), pl_type_name(w.type));
    }
}

/* After each prepare TFLM fails on an output with a dimension of 0 or less ("dynamic
** tensors are not supported"), except the legacy scalar shape [0]. */
static void empty_outputs(pl_tflm_node *n)
{
    for (uint32_t k = 0; k < n->op.outputs.n; k++) {
        pl_tflm_tensor t;
        tensor(n, OUT(k), &t);
        if (t.index < 0 || (t.ndims == 1 && t.dims[0] == 0))
            continue;
        for (int32_t d = 0; d < t.ndims; d++) {
            if (t.dims[d] <= 0) {
                pl_tflm_refuse(n, "output %u has a dimension of %d (TFLM: dynamic tensors "
                               "are not supported)", (unsigned)k, (int)t.dims[d]);
                return;
            }
        }
    }
}

typedef struct special {
    int32_t builtin;
    pl_tflm_kernel_fn fn;
} special;

static const special specials[] = {
    {OP_CONV_2D, conv},
    {OP_DEPTHWISE_CONV_2D, depthwise},
    {OP_FULLY_CONNECTED, fully_connected},
    {OP_TRANSPOSE_CONV, transpose_conv},
    {OP_SOFTMAX, softmax},
    {OP_QUANTIZE, quantize},
    {OP_LOGISTIC, logistic},
    {OP_EMBEDDING_LOOKUP, embedding_lookup},
    {OP_SVDF, svdf},
    {OP_CAST, cast},
};

void pl_tflm_accept(pl_tflm_node *n)
{
    if (n->builtin == PL_BUILTIN_CUSTOM) {
        for (size_t i = 0; i < sizeof custom_rules / sizeof custom_rules[0]; i++) {
            const custom_rule *r = &custom_rules[i];
            size_t len = strlen(r->name);
            if (n->custom.n == len && memcmp(n->custom.p, r->name, len) == 0)
                check(n, r->tensor, r->types);
        }
        return;
    }
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].builtin == n->builtin)
            check(n, rules[i].tensor, rules[i].types);
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        if (specials[i].builtin == n->builtin)
            specials[i].fn(n);
    if (pl_tflm_cmsis_nn(n))
        cmsis_nn(n);
    empty_outputs(n);
}
