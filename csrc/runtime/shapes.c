/* shapes.c - resized inputs, the shapes kernels compute from them, values known at prepare.
**
** A model that is never resized costs nothing here: every eval record points its shape into
** the model. pl_interp_resize_input records an input's new dims in the tail; at allocate
** the input's record points there, and each kernel's set_shape stores an output shape that
** differs the same way (TFLM keeps writable dims in persistent buffers too), recorded as
** 'Persistent buffer data'. Shape arithmetic that a converter emits for a dynamic batch
** (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE) is evaluated at prepare once a model is
** resized (ctx->fold), since a planned arena has no room for TFLite's dynamic tensors. */
#include "state.h"

#include <string.h>

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int b = 0; b < 4; b++)
        p[b] = (uint8_t)(v >> (8 * b));
}

/* ndims dims in the tail, little-endian as the model's; *offset is their arena offset. */
static pl_status store_dims(pl_interp *it, int32_t ndims, const int32_t *dims,
                            uint32_t *offset)
{
    uint8_t *p;
    *offset = 0;
    if (ndims == 0)
        return PL_OK;
    PL_TRY(pl_alloc_tail(it, PL_CAT_PERSISTENT_BUFFER, 4u * (size_t)ndims, 4, (void **)&p));
    for (int32_t i = 0; i < ndims; i++)
        put_le32(p + 4 * i, (uint32_t)dims[i]);
    *offset = pl_arena_offset(it->arena, p);
    return PL_OK;
}

/* Bytes of a type-t tensor of these dims; false past 32 bits. min_dim: 0 or 1. */
static bool sized(int32_t type, int32_t ndims, const int32_t *dims, int32_t min_dim,
                  int32_t *bad)
{
    uint64_t n = pl_type_size(type);
    *bad = -1;
    for (int32_t i = 0; i < ndims; i++) {
        if (dims[i] < min_dim) {
            *bad = i;
            return false;
        }
        n *= (uint64_t)dims[i];
        n = n > UINT32_MAX ? (uint64_t)UINT32_MAX + 1 : n;
    }
    return n <= UINT32_MAX;
}

pl_status pl_shapes_set(pl_interp *it, int32_t index, int32_t ndims, const int32_t *dims)
{
    pl_eval_record *r = &it->tensors[index];
    int32_t bad;
    char want[96], have[96];
    if (ndims < 0 || ndims > PL_MAX_DIMS)
        return PL_CTX_FAIL(it->ctx, PL_ERR_MODEL, "output tensor %d: rank %d (at most %d)",
                           (int)index, (int)ndims, PL_MAX_DIMS);
    pl_context_format_dims(ndims, dims, want, sizeof want);
    if (!sized(r->type, ndims, dims, 0, &bad))
        return PL_CTX_FAIL(it->ctx, PL_ERR_MODEL, "output tensor %d: shape %s %s", (int)index,
                           want, bad >= 0 ? "has a negative dim" : "needs more than 4 GiB");
    pl_tensor cur;
    pl_context_eval(it, index, &cur);
    bool same = cur.ndims == ndims;
    for (int32_t i = 0; same && i < ndims; i++)
        same = cur.dims[i] == dims[i];
    if (same)
        return PL_OK;
    pl_context_format_dims(cur.ndims, cur.dims, have, sizeof have);
    if (!pl_interp_resized(it) || (r->flags & PL_EVAL_CONSTANT))
        return PL_CTX_FAIL(it->ctx, PL_ERR_MODEL, "output tensor %d has shape %s, the "
                           "operator computes %s", (int)index, have, want);
    return pl_shapes_take(it, index, ndims, dims);
}

pl_status pl_shapes_take(pl_interp *it, int32_t index, int32_t ndims, const int32_t *dims)
{
    pl_eval_record *r = &it->tensors[index];
    uint32_t offset;
    PL_TRY(store_dims(it, ndims, dims, &offset));
    r->shape = offset;
    r->ndims = (uint8_t)ndims;
    r->flags |= PL_EVAL_OWN_SHAPE;
    return PL_OK;
}

/* Whether node's outputs are small integer tensors with no memory yet and its inputs are
** all known at prepare (shape_only: their shapes are enough, and those are). */
static bool foldable(const pl_interp *it, const pl_node *node, bool shape_only)
{
    for (uint32_t k = 0; k < node->inputs.n && !shape_only; k++) {
        int32_t t = pl_vec_i32(node->inputs, k);
        if (t >= 0 && !(it->tensors[t].flags & (PL_EVAL_CONSTANT | PL_EVAL_KNOWN)))
            return false;
    }
    for (uint32_t k = 0; k < node->outputs.n; k++) {
        int32_t t = pl_vec_i32(node->outputs, k);
        pl_tensor v;
        if (t < 0)
            return false;
        pl_context_eval(it, t, &v);
        if ((v.type != PL_INT32 && v.type != PL_INT64) || v.bytes == 0 ||
            v.bytes > PL_FOLD_MAX_BYTES || it->tensors[t].loc != PL_LOC_NONE ||
            (it->tensors[t].flags & PL_EVAL_VARIABLE))
            return false;
    }
    return node->outputs.n > 0;
}

pl_status pl_shapes_fold(pl_interp *it, pl_node *node, bool shape_only)
{
    if (!pl_interp_resized(it) || !foldable(it, node, shape_only))
        return PL_OK;
    for (uint32_t k = 0; k < node->outputs.n; k++) {
        int32_t t = pl_vec_i32(node->outputs, k);
        pl_tensor v;
        void *p;
        pl_context_eval(it, t, &v);
        PL_TRY(pl_alloc_tail(it, PL_CAT_PERSISTENT_BUFFER, v.bytes, 8, &p));
        it->tensors[t].loc = PL_LOC_ARENA;
        it->tensors[t].data = pl_arena_offset(it->arena, p);
        it->tensors[t].flags |= PL_EVAL_KNOWN;
    }
    const pl_registration *reg = it->regs[it->nodes[node->index].opcode].reg;
    it->phase = PL_PHASE_INVOKE;
    pl_status s = reg->invoke(it->ctx, node);
    it->phase = PL_PHASE_PREPARE;
    return s;
}

/* The resize requests, or NULL before the first. */
static pl_input_request *requests_of(const pl_interp *it)
{
#ifdef PL_NO_RESIZE
    (void)it;
    return NULL; /* pl_interp_resize_input refuses every request */
#endif
    if (it->requests == PL_NO_OFFSET)
        return NULL;
    return (pl_input_request *)(void *)(pl_arena_base(it->arena) + it->requests);
}

/* Whether input i's shape_signature has a -1: the converter then writes placeholder shapes
** for the tensors computed from it (LiteRT sizes them at run time), so the kernels' shapes and
** folded values must be taken as for a resized model. */
static bool dynamic_input(const pl_interp *it, uint32_t i)
{
    int32_t t = pl_vec_i32(it->sg.inputs, i);
    pl_tensor_view v;
    if (t < 0)
        return false;
    pl_model_tensor(&it->model, &it->sg, (uint32_t)t, &v);
    for (uint32_t k = 0; k < v.shape_signature.n; k++)
        if (pl_vec_i32(v.shape_signature, k) == -1)
            return true;
    return false;
}

/* Without resize (PL_NO_RESIZE) a dynamic dim is ignored and the model runs at its own
** (placeholder) shapes, as TFLM runs most Keras exports (batch -1); a kernel whose shape
** differs from the model's then fails its prepare, naming both. */
pl_status pl_shapes_apply_requests(pl_interp *it)
{
    for (uint32_t i = 0; i < it->sg.inputs.n && !it->resized; i++)
        it->resized = dynamic_input(it, i);
    const pl_input_request *req = requests_of(it);
    for (uint32_t i = 0; req != NULL && i < it->sg.inputs.n; i++) {
        int32_t t = pl_vec_i32(it->sg.inputs, i);
        if (!req[i].set || t < 0)
            continue;
        it->tensors[t].shape = req[i].shape;
        it->tensors[t].ndims = req[i].ndims;
        it->tensors[t].flags |= PL_EVAL_OWN_SHAPE;
        it->resized = true;
    }
    return PL_OK;
}

#ifndef PL_NO_RESIZE
/* LiteRT's ResizeInputTensorStrict rule: only dims the signature leaves -1 may change. */
static pl_status check_strict(pl_interp *it, uint32_t input, const pl_tensor_view *v,
                              int32_t ndims, const int32_t *dims)
{
    pl_vec sig = v->shape_signature.n > 0 ? v->shape_signature : v->shape;
    bool ok = sig.n == (uint32_t)ndims;
    for (int32_t i = 0; ok && i < ndims; i++) {
        int32_t s = pl_vec_i32(sig, (uint32_t)i);
        ok = s == -1 || s == dims[i];
    }
    if (ok)
        return PL_OK;
    char want[96], have[96];
    int32_t sd[PL_MAX_DIMS];
    uint32_t sn = sig.n < PL_MAX_DIMS ? sig.n : PL_MAX_DIMS;
    for (uint32_t i = 0; i < sn; i++)
        sd[i] = pl_vec_i32(sig, i);
    pl_context_format_dims(ndims, dims, want, sizeof want);
    pl_context_format_dims((int32_t)sn, sd, have, sizeof have);
    return pl_error_set(it->err, PL_ERR_ARG, "ResizeInputTensorStrict only allows mutating "
                        "unknown dimensions identified by -1. (input %u: shape_signature %s, "
                        "requested %s)", input, have, want);
}

static pl_status check_request(pl_interp *it, uint32_t input, int32_t ndims,
                               const int32_t *dims)
{
    if (it->phase != PL_PHASE_CREATED || it->allocated || it->failed)
        return pl_error_set(it->err, PL_ERR_STATE, "resize_input: only between create and "
                            "allocate (create a new interpreter to resize again)");
    if (input >= it->sg.inputs.n || pl_vec_i32(it->sg.inputs, input) < 0)
        return pl_error_set(it->err, PL_ERR_ARG, "resize_input: input %u of %u", input,
                            (unsigned)it->sg.inputs.n);
    if (ndims < 0 || ndims > PL_MAX_DIMS || (ndims > 0 && dims == NULL))
        return pl_error_set(it->err, PL_ERR_ARG, "resize_input: input %u: rank %d (0 to %d, "
                            "with dims)", input, (int)ndims, PL_MAX_DIMS);
    return PL_OK;
}

pl_status pl_interp_resize_input(pl_interp *it, uint32_t input, int32_t ndims,
                                 const int32_t *dims, bool strict)
{
    if (it == NULL)
        return PL_ERR_ARG;
    PL_TRY(check_request(it, input, ndims, dims));
    int32_t t = pl_vec_i32(it->sg.inputs, input), bad;
    pl_tensor_view v;
    pl_model_tensor(&it->model, &it->sg, (uint32_t)t, &v);
    char want[96];
    pl_context_format_dims(ndims, dims, want, sizeof want);
    if (!sized(v.type, ndims, dims, 0, &bad))
        return pl_error_set(it->err, PL_ERR_ARG, "resize_input: input %u: shape %s %s", input,
                            want, bad >= 0 ? "has a negative dim" : "needs more than 4 GiB");
    if (strict)
        PL_TRY(check_strict(it, input, &v, ndims, dims));
    bool same = v.shape.n == (uint32_t)ndims;
    for (int32_t i = 0; same && i < ndims; i++)
        same = pl_vec_i32(v.shape, (uint32_t)i) == dims[i];
    pl_input_request *req = requests_of(it);
    if (req == NULL && same)
        return PL_OK; /* nothing to remember: the model's own shape */
    if (req == NULL) {
        size_t bytes = it->sg.inputs.n * sizeof *req;
        PL_TRY(pl_alloc_tail(it, PL_CAT_PERSISTENT_BUFFER, bytes, _Alignof(pl_input_request),
                             (void **)&req));
        memset(req, 0, bytes);
        it->requests = pl_arena_offset(it->arena, req);
    }
    pl_input_request *q = &req[input];
    q->set = !same;
    q->ndims = (uint8_t)ndims;
    return same ? PL_OK : store_dims(it, ndims, dims, &q->shape);
}
#else
pl_status pl_interp_resize_input(pl_interp *it, uint32_t input, int32_t ndims,
                                 const int32_t *dims, bool strict)
{
    (void)input, (void)ndims, (void)dims, (void)strict;
    if (it == NULL)
        return PL_ERR_ARG;
    return pl_error_set(it->err, PL_ERR_UNSUPPORTED,
                        "resize_input: not in this build (PL_NO_RESIZE)");
}
#endif

bool pl_shapes_requested(const pl_interp *it, uint32_t index, int32_t *ndims, int32_t *dims)
{
    const pl_input_request *req = requests_of(it);
    for (uint32_t i = 0; req != NULL && i < it->sg.inputs.n; i++) {
        const pl_input_request *q = &req[i];
        if (!q->set || pl_vec_i32(it->sg.inputs, i) != (int32_t)index)
            continue;
        *ndims = q->ndims;
        for (uint32_t d = 0; d < q->ndims; d++)
            dims[d] = (int32_t)pl_le32(pl_arena_base(it->arena) + q->shape + 4u * d);
        return true;
    }
    return false;
}
