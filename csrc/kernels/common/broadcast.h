/* broadcast.h - NumPy-style shape broadcasting for binary elementwise kernels.
**
** Follows TFLite's NdArrayDesc rules: both inputs are right-aligned against the output
** (missing leading dims are 1) and a dim of 1 repeats (stride 0). The walk visits the
** output in row-major order, so results do not depend on how the loops are nested. */
#ifndef PL_KERNELS_BROADCAST_H
#define PL_KERNELS_BROADCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Ranks up to this are broadcast (TFLite's reference goes to 6 in its newest kernels). */
#define PL_BCAST_MAX_DIMS 6

typedef struct pl_bcast {
    int32_t dims[PL_BCAST_MAX_DIMS];    /* output shape, left-padded with 1 */
    size_t stride1[PL_BCAST_MAX_DIMS];  /* element strides of input 1; 0 where repeated */
    size_t stride2[PL_BCAST_MAX_DIMS];
    size_t count;                       /* output elements */
} pl_bcast;

/* A cursor over the output: i1/i2 are the current input element indices. */
typedef struct pl_bcast_iter {
    int32_t at[PL_BCAST_MAX_DIMS];
    size_t i1;
    size_t i2;
} pl_bcast_iter;

/* Dim d (counted from the left of a PL_BCAST_MAX_DIMS shape) of t, or 1 when t has fewer. */
static inline int32_t pl_bcast_dim(const pl_tensor *t, int32_t d)
{
    int32_t k = d - (PL_BCAST_MAX_DIMS - t->ndims);
    return k < 0 ? 1 : t->dims[k];
}

/* The shape a op b broadcasts to; false when a dim pair is neither equal nor has a 1. */
static inline bool pl_bcast_shape(const pl_tensor *a, const pl_tensor *b, int32_t *ndims,
                                  int32_t dims[PL_BCAST_MAX_DIMS])
{
    if (a->ndims > PL_BCAST_MAX_DIMS || b->ndims > PL_BCAST_MAX_DIMS)
        return false;
    *ndims = a->ndims > b->ndims ? a->ndims : b->ndims;
    for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++) {
        int32_t x = pl_bcast_dim(a, d), y = pl_bcast_dim(b, d);
        if (x != y && x != 1 && y != 1)
            return false;
        dims[d] = x == 1 ? y : x;
    }
    return true;
}

/* Prepare: out takes the shape a op b broadcast to, as TFLite's binary kernels resize their
** output: a's shape when both are equal (any rank), else the broadcast (rank <= 6). */
static inline pl_status pl_bcast_set_output(pl_context *ctx, const pl_tensor *a,
                                            const pl_tensor *b, pl_tensor *out)
{
    bool same = a->ndims == b->ndims;
    for (int32_t i = 0; same && i < a->ndims; i++)
        same = a->dims[i] == b->dims[i];
    if (same)
        return pl_set_output_like(ctx, out, a);
    int32_t ndims, dims[PL_BCAST_MAX_DIMS];
    if (a->ndims > PL_BCAST_MAX_DIMS || b->ndims > PL_BCAST_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "broadcasting above rank %d is not supported",
                         PL_BCAST_MAX_DIMS);
    if (!pl_bcast_shape(a, b, &ndims, dims))
        return ctx->fail(ctx, PL_ERR_MODEL, "input shapes of tensors %d and %d do not "
                         "broadcast", (int)a->index, (int)b->index);
    return pl_set_output_shape(ctx, out, ndims, dims + PL_BCAST_MAX_DIMS - ndims);
}

/* True when out's shape is exactly what a and b broadcast to. */
static inline bool pl_bcast_matches(const pl_tensor *a, const pl_tensor *b,
                                    const pl_tensor *out)
{
    int32_t ndims, dims[PL_BCAST_MAX_DIMS];
    if (!pl_bcast_shape(a, b, &ndims, dims) || out->ndims != ndims)
        return false;
    for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++) {
        if (pl_bcast_dim(out, d) != dims[d])
            return false;
    }
    return true;
}

static inline void pl_bcast_strides(const pl_tensor *t, const int32_t *out_dims, size_t *s)
{
    size_t step = 1;
    for (int32_t d = PL_BCAST_MAX_DIMS - 1; d >= 0; d--) {
        int32_t n = pl_bcast_dim(t, d);
        s[d] = n == 1 && out_dims[d] != 1 ? 0 : step;
        step *= (size_t)n;
    }
}

/* Sets up the walk for out = a op b; call pl_bcast_matches() first (prepare). */
static inline void pl_bcast_init(pl_bcast *bc, const pl_tensor *a, const pl_tensor *b,
                                 const pl_tensor *out)
{
    bc->count = 1;
    for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++) {
        bc->dims[d] = pl_bcast_dim(out, d);
        bc->count *= (size_t)bc->dims[d];
    }
    pl_bcast_strides(a, bc->dims, bc->stride1);
    pl_bcast_strides(b, bc->dims, bc->stride2);
}

static inline void pl_bcast_begin(pl_bcast_iter *it)
{
    for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++)
        it->at[d] = 0;
    it->i1 = 0;
    it->i2 = 0;
}

/* Advances to the next output element (row-major, last dim fastest). */
static inline void pl_bcast_next(const pl_bcast *bc, pl_bcast_iter *it)
{
    for (int32_t d = PL_BCAST_MAX_DIMS - 1; d >= 0; d--) {
        it->i1 += bc->stride1[d];
        it->i2 += bc->stride2[d];
        if (++it->at[d] < bc->dims[d])
            return;
        it->i1 -= bc->stride1[d] * (size_t)bc->dims[d];
        it->i2 -= bc->stride2[d] * (size_t)bc->dims[d];
        it->at[d] = 0;
    }
}

/* What pl_bcast_setup() found. */
typedef enum pl_bcast_result {
    PL_BCAST_OK = 0,
    PL_BCAST_RANK,  /* an input has more than PL_BCAST_MAX_DIMS dims and shapes differ */
    PL_BCAST_SHAPE  /* out is not the broadcast of a and b */
} pl_bcast_result;

static inline bool pl_bcast_same_dims(const pl_tensor *a, const pl_tensor *b)
{
    if (a->ndims != b->ndims)
        return false;
    for (int32_t i = 0; i < a->ndims; i++) {
        if (a->dims[i] != b->dims[i])
            return false;
    }
    return true;
}

/* Checks shapes and sets up the walk (prepare). Equal shapes of any rank walk flat. */
static inline pl_bcast_result pl_bcast_setup(pl_bcast *bc, const pl_tensor *a,
                                             const pl_tensor *b, const pl_tensor *out)
{
    size_t n = pl_tensor_count(out);
    if (pl_bcast_same_dims(a, b) && pl_bcast_same_dims(a, out) && n <= INT32_MAX) {
        for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++) {
            bc->dims[d] = d == PL_BCAST_MAX_DIMS - 1 ? (int32_t)n : 1;
            bc->stride1[d] = bc->stride2[d] = d == PL_BCAST_MAX_DIMS - 1 ? 1 : 0;
        }
        bc->count = n;
        return PL_BCAST_OK;
    }
    if (a->ndims > PL_BCAST_MAX_DIMS || b->ndims > PL_BCAST_MAX_DIMS)
        return PL_BCAST_RANK;
    if (!pl_bcast_matches(a, b, out))
        return PL_BCAST_SHAPE;
    pl_bcast_init(bc, a, b, out);
    return PL_BCAST_OK;
}

#endif
