/* arg_max.c - ARG_MAX's and ARG_MIN's fast path (float32, int8, uint8, int16, int32 input):
** typed loops of the portable kernel's comparator (TFLite's: the first extreme wins ties; for
** floats a NaN never wins and any number beats a NaN), where the portable kernel reads each
** element through a type switch and a double. A last-axis reduction scans each row; another
** keeps LANES columns' running extremes side by side. Every output is the index the portable
** kernel's scan finds: its bytes. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/gather/arg_min_max_fast.h"

enum { LANES = 16 };

typedef struct arg_plan {
    pl_type type;
    bool is_max, wide; /* wide: INT64 output */
} arg_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK ||
        (in.type != PL_FLOAT32 && in.type != PL_INT8 && in.type != PL_UINT8 &&
         in.type != PL_INT16 && in.type != PL_INT32) ||
        (out.type != PL_INT32 && out.type != PL_INT64))
        return false;
    arg_plan ap = {in.type, pl_fast_reg_of(node)->base == pl_arg_max_registration(),
                   out.type == PL_INT64};
    return pl_fast_block_put(node, &ap, sizeof ap);
}

pl_status pl_fast_arg_max_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

static void store(bool wide, void *out, size_t k, size_t at)
{
    if (wide) {
        int64_t v = (int64_t)at;
        memcpy((uint8_t *)out + 8 * k, &v, sizeof v);
    } else {
        ((int32_t *)out)[k] = (int32_t)at;
    }
}

/* Does c beat the running extreme m? */
#define FLOAT_MAX(c, m) ((c) == (c) && ((m) != (m) || (c) > (m)))
#define FLOAT_MIN(c, m) ((c) == (c) && ((m) != (m) || (c) < (m)))
#define INT_MAX_(c, m) ((c) > (m))
#define INT_MIN_(c, m) ((c) < (m))

#define SCAN(NAME, T, BEATS)                                                               \
    static void NAME(const pl_arg_min_max_op *d, const void *in, bool wide, void *out)     \
    {                                                                                      \
        const T *x = in;                                                                   \
        const size_t n = d->axis_size, inner = d->inner;                                   \
        for (size_t o = 0; o < d->outer; o++, x += n * inner) {                            \
            if (inner == 1) {                                                              \
                T m = x[0];                                                                \
                size_t at = 0;                                                             \
                for (size_t j = 1; j < n; j++)                                             \
                    if (BEATS(x[j], m))                                                    \
                        m = x[j], at = j;                                                  \
                store(wide, out, o, at);                                                   \
                continue;                                                                  \
            }                                                                              \
            for (size_t c = 0; c < inner; c += LANES) {                                    \
                const size_t w = inner - c < LANES ? inner - c : LANES;                    \
                T m[LANES];                                                                \
                size_t at[LANES] = {0};                                                    \
                memcpy(m, x + c, w * sizeof(T));                                           \
                for (size_t j = 1; j < n; j++)                                             \
                    for (size_t l = 0; l < w; l++) {                                       \
                        T v = x[j * inner + c + l];                                        \
                        if (BEATS(v, m[l]))                                                \
                            m[l] = v, at[l] = j;                                           \
                    }                                                                      \
                for (size_t l = 0; l < w; l++)                                             \
                    store(wide, out, o * inner + c + l, at[l]);                            \
            }                                                                              \
        }                                                                                  \
    }

SCAN(max_f32, float, FLOAT_MAX)
SCAN(min_f32, float, FLOAT_MIN)
SCAN(max_s8, int8_t, INT_MAX_)
SCAN(min_s8, int8_t, INT_MIN_)
SCAN(max_u8, uint8_t, INT_MAX_)
SCAN(min_u8, uint8_t, INT_MIN_)
SCAN(max_s16, int16_t, INT_MAX_)
SCAN(min_s16, int16_t, INT_MIN_)
SCAN(max_s32, int32_t, INT_MAX_)
SCAN(min_s32, int32_t, INT_MIN_)

pl_status pl_fast_arg_max_invoke(pl_context *ctx, pl_node *node)
{
    const arg_plan *ap = pl_fast_block(node);
    if (ap == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_arg_min_max_op *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    switch (ap->type) {
    case PL_FLOAT32: (ap->is_max ? max_f32 : min_f32)(d, in.data, ap->wide, out.data); break;
    case PL_INT8: (ap->is_max ? max_s8 : min_s8)(d, in.data, ap->wide, out.data); break;
    case PL_UINT8: (ap->is_max ? max_u8 : min_u8)(d, in.data, ap->wide, out.data); break;
    case PL_INT16: (ap->is_max ? max_s16 : min_s16)(d, in.data, ap->wide, out.data); break;
    default: (ap->is_max ? max_s32 : min_s32)(d, in.data, ap->wide, out.data); break;
    }
    return PL_OK;
}
