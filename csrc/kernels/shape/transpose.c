/* transpose.c - TRANSPOSE (TFLite transpose.cc) for any fixed-size element type, up to 6-D.
**
** Output axis i is input axis perm[i]; perm must be a constant INT32/INT64 permutation.
** Invoke walks the output in order and gathers from the input with precomputed strides.
** Under the CMSIS-NN targets int8 follows arm_transpose_s8 (cmsis_int8_perm). */
#include "transpose.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_TRANSPOSE = 39 };

typedef pl_transpose_op opdata;

void pl_transpose_copy(int32_t ndims, const int32_t *out_dims, const size_t *in_step,
                       size_t esize, const void *in, void *out)
{
    size_t total = 1, src = 0;
    for (int32_t a = 0; a < ndims; a++)
        total *= (size_t)out_dims[a];
    int32_t at[PL_TRANSPOSE_MAX_DIMS] = {0};
    uint8_t *dst = out;
    for (size_t i = 0; i < total; i++) {
        memcpy(dst + i * esize, (const uint8_t *)in + src * esize, esize);
        for (int32_t a = ndims - 1; a >= 0; a--) {
            src += in_step[a];
            if (++at[a] < out_dims[a])
                break;
            src -= in_step[a] * (size_t)out_dims[a];
            at[a] = 0;
        }
    }
}

static pl_status read_perm(pl_context *ctx, const pl_tensor *p, int32_t ndims, int32_t *perm)
{
    if (p->type != PL_INT32 && p->type != PL_INT64)
        return ctx->fail(ctx, PL_ERR_MODEL, "perm must be INT32 or INT64, not %s",
                         pl_type_name(p->type));
    if (!p->is_constant || p->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "perm tensor %d is not constant",
                         (int)p->index);
    if (p->ndims != 1 || p->dims[0] != ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "perm must have %d entries", (int)ndims);
    bool seen[PL_TRANSPOSE_MAX_DIMS] = {false};
    const uint8_t *b = p->data;
    for (int32_t i = 0; i < ndims; i++) {
        int64_t v = p->type == PL_INT64 ? (int64_t)pl_le64(b + 8 * i)
                                        : (int32_t)pl_le32(b + 4 * i);
        if (v < 0 || v >= ndims || seen[v])
            return ctx->fail(ctx, PL_ERR_MODEL, "perm is not a permutation of %d axes",
                             (int)ndims);
        seen[v] = true;
        perm[i] = (int32_t)v;
    }
    return PL_OK;
}

/* The permutation TFLM + CMSIS-NN's int8 transpose (arm_transpose_s8) carries out for perm:
** a 2-D one is always the 2-D transpose, even for the identity; Helium's kernel treats any
** 4-D permutation that keeps the first two axes as the swap of the last two. Returns false
** for ranks above 4, which TFLM's wrapper refuses with an error its caller drops: the
** output is left as it was. */
static bool cmsis_int8_perm(pl_arith arith, int32_t ndims, int32_t *perm)
{
    if (ndims > 4)
        return false;
    if (ndims == 2) {
        perm[0] = 1;
        perm[1] = 0;
    } else if (ndims == 4 && arith == PL_ARITH_CMSIS_NN_MVE && perm[0] == 0 && perm[1] == 1) {
        perm[2] = 3;
        perm[3] = 2;
    }
    return true;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor *in, *p, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &p, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (in->ndims > PL_TRANSPOSE_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "rank %d (at most %d)", (int)in->ndims,
                         PL_TRANSPOSE_MAX_DIMS);
    int32_t perm[PL_TRANSPOSE_MAX_DIMS], shape[PL_TRANSPOSE_MAX_DIMS];
    PL_TRY(read_perm(ctx, p, in->ndims, perm));
    for (int32_t i = 0; i < in->ndims; i++)
        shape[i] = in->dims[perm[i]];
    d->ndims = in->ndims;
    if (pl_arith_cmsis_nn(ctx->arith) && in->type == PL_INT8 &&
        !cmsis_int8_perm(ctx->arith, in->ndims, perm))
        d->ndims = -1;
    size_t step[PL_TRANSPOSE_MAX_DIMS], s = 1;
    for (int32_t a = in->ndims - 1; a >= 0; a--) {
        step[a] = s;
        s *= (size_t)in->dims[a];
    }
    for (int32_t i = 0; i < in->ndims; i++) { /* the walk: perm as the kernel runs it */
        d->out_dims[i] = in->dims[perm[i]];
        d->in_step[i] = step[perm[i]];
    }
    return pl_set_output_shape(ctx, out, in->ndims, shape); /* TFLite's Prepare */
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    if (d->ndims < 0)
        return PL_OK;
    pl_transpose_copy(d->ndims, d->out_dims, d->in_step, pl_type_size(in.type), in.data,
                      out.data);
    return PL_OK;
}

const pl_registration *pl_transpose_registration(void)
{
    static const pl_registration r = {.name = "TRANSPOSE", .builtin_code = OP_TRANSPOSE,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
