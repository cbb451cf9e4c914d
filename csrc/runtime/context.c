/* context.c - the kernel callback table: the only way kernels reach the runtime.
**
** Every callback checks the interpreter's phase first, so a kernel calling in the wrong
** phase gets PL_ERR_STATE and a message, never undefined behaviour. */
#include "state.h"

#include <float.h>
#include <stdarg.h>
#include <string.h>

#include "base/fmt.h"

static pl_status fail(pl_context *ctx, pl_status status, const char *fmt, ...);

/* A pl_tensor's size on a 64-bit host: what a temp copy takes on every target, so a
** 32-bit build keeps small tensor views on the stack and the same arena figure. */
#define PL_TENSOR_TEMP_BYTES 88
_Static_assert(sizeof(pl_tensor) <= PL_TENSOR_TEMP_BYTES && _Alignof(pl_tensor) <= 8,
               "a temp tensor copy must fit its fixed size");

static pl_interp *interp_of(pl_context *ctx)
{
    return (pl_interp *)ctx->impl;
}

static const char *op_name_of(const pl_interp *it, uint32_t node)
{
    const pl_registration *reg = it->regs[it->nodes[node].opcode].reg;
    if (reg != NULL)
        return reg->name;
    pl_opcode_view oc;
    pl_model_opcode(&it->model, it->nodes[node].opcode, &oc);
    return pl_model_builtin_name(oc.builtin_code);
}

pl_status(pl_context_phase_error)(pl_interp *it, const char *call, const char *allowed)
{
    return pl_error_set(it->err, PL_ERR_STATE, "node %d: %s is only allowed during %s",
                        (int)it->current_node, call, allowed);
}


static pl_status alloc_persistent(pl_context *ctx, size_t bytes, void **out)
{
    pl_interp *it = interp_of(ctx);
    *out = NULL;
    if (it->phase != PL_PHASE_INIT && it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "alloc_persistent", "init and prepare");
    PL_TRY(pl_alloc_tail(it, PL_CAT_OP_DATA, bytes, PL_ARENA_ALIGN, out));
    memset(*out, 0, bytes);
    return PL_OK;
}

static pl_status request_scratch(pl_context *ctx, size_t bytes, int32_t *index)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "request_scratch", "prepare");
    if (it->pending == NULL)
        PL_TRY(pl_arena_alloc_temp(it->arena, PL_MAX_SCRATCH_PER_NODE * sizeof *it->pending,
                                   _Alignof(pl_scratch_record), (void **)&it->pending,
                                   it->err));
    if (it->pending_count >= PL_MAX_SCRATCH_PER_NODE)
        return pl_error_set(it->err, PL_ERR_ARG, "node %d: more than %d scratch requests",
                            (int)it->current_node, PL_MAX_SCRATCH_PER_NODE);
    if (bytes > UINT32_MAX - PL_ARENA_ALIGN)
        return pl_error_set(it->err, PL_ERR_ARG, "node %d: scratch request of %zu bytes",
                            (int)it->current_node, bytes);
    pl_scratch_record *r = &it->pending[it->pending_count];
    r->bytes = (uint32_t)bytes;
    r->offset = 0;
    r->node = (int32_t)(pl_subgraph_rec(it, it->current_subgraph).node_base +
                        (uint32_t)it->current_node);
    *index = (int32_t)(it->scratch_count + it->pending_count++);
    return PL_OK;
}

static void *get_scratch(pl_context *ctx, int32_t index)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_INVOKE || index < 0 || (uint32_t)index >= it->scratch_count) {
        pl_context_phase_error(it, "get_scratch with a valid handle", "invoke");
        return NULL;
    }
    return pl_arena_base(it->arena) + it->scratch[index].offset;
}

/* The full tensor: the eval view plus quantization arrays copied into temp. */
static pl_status get_tensor(pl_context *ctx, int32_t index, pl_tensor **out)
{
    pl_interp *it = interp_of(ctx);
    *out = NULL;
    if (it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "get_tensor", "prepare");
    if (index < 0 || (uint32_t)index >= it->tensor_count)
        return pl_error_set(it->err, PL_ERR_ARG, "node %d: get_tensor(%d): no such tensor",
                            (int)it->current_node, (int)index);
    pl_tensor *t;
    PL_TRY(pl_arena_alloc_temp(it->arena, PL_TENSOR_TEMP_BYTES, 8, (void **)&t, it->err));
    pl_context_eval(it, index, t);
    pl_tensor_view v;
    pl_model_tensor(&it->model, &it->sg, (uint32_t)index, &v);
    uint32_t n = v.scale.n;
    if (n == 0)
        goto done;
    float *scale;
    int32_t *zero_point;
    PL_TRY(pl_arena_alloc_temp(it->arena, n * sizeof *scale, _Alignof(float), (void **)&scale,
                               it->err));
    PL_TRY(pl_arena_alloc_temp(it->arena, n * sizeof *zero_point, _Alignof(int32_t),
                               (void **)&zero_point, it->err));
    for (uint32_t i = 0; i < n; i++) {
        /* as TFLM: one zero point may serve every scale */
        uint32_t zi = v.zero_point.n == n ? i : 0;
        int64_t zp = v.zero_point.n > 0 ? pl_vec_i64(v.zero_point, zi) : 0;
        float s = pl_vec_f32(v.scale, i);
        if (zp < INT32_MIN || zp > INT32_MAX)
            return pl_error_set(it->err, PL_ERR_MODEL, "tensor %d: zero point %lld (channel "
                                "%u) is outside int32", (int)index, (long long)zp, i);
        /* Multipliers are scale ratios: a zero, negative, infinite or NaN scale has none.
        ** But a constant's zero scale is a pruned channel's (all-zero weights and bias in
        ** 16x8 models): as numerators they give multiplier 0, as in TFLite. */
        if (!(s > 0.0f && s <= FLT_MAX) && !(s == 0.0f && t->is_constant))
            return pl_error_set(it->err, PL_ERR_MODEL, "tensor %d: scale %g (channel %u) is "
                                "not a positive finite number", (int)index, (double)s, i);
        scale[i] = s;
        zero_point[i] = (int32_t)zp;
    }
    t->q.count = n;
    t->q.scale = scale;
    t->q.zero_point = zero_point;
    t->q.quantized_dimension = v.quantized_dimension;
done:
    *out = t;
    return PL_OK;
}

static pl_status get_eval(pl_context *ctx, int32_t index, pl_tensor *out)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_PREPARE && it->phase != PL_PHASE_INVOKE)
        return pl_context_phase_error(it, "get_eval", "prepare and invoke");
    if (index >= 0 && (uint32_t)index >= it->tensor_count)
        return pl_error_set(it->err, PL_ERR_ARG, "node %d: get_eval(%d): no such tensor",
                            (int)it->current_node, (int)index);
    pl_context_eval(it, index, out);
    return PL_OK;
}

/* A shape that differs from the tensor's current one is stored (resized models) or refused
** with both shapes named (shapes.c). */
static pl_status set_shape(pl_context *ctx, int32_t index, int32_t ndims, const int32_t *dims)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "set_shape", "prepare");
    if (index < 0 || (uint32_t)index >= it->tensor_count || (ndims > 0 && dims == NULL))
        return pl_error_set(it->err, PL_ERR_ARG, "node %d: set_shape(%d): no such tensor",
                            (int)it->current_node, (int)index);
    return pl_shapes_set(it, index, ndims, dims);
}

static pl_status fold(pl_context *ctx, pl_node *node, bool shape_only)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "fold", "prepare");
    return pl_shapes_fold(it, node, shape_only);
}

static pl_status shape_signature(pl_context *ctx, int32_t index, int32_t *ndims,
                                 int32_t *dims)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_PREPARE && it->phase != PL_PHASE_INVOKE)
        return pl_context_phase_error(it, "shape_signature", "prepare and invoke");
    if (index < 0 || (uint32_t)index >= it->tensor_count)
        return pl_error_set(it->err, PL_ERR_ARG, "node %d: shape_signature(%d): no such "
                            "tensor", (int)it->current_node, (int)index);
    pl_tensor_view v;
    pl_model_tensor(&it->model, &it->sg, (uint32_t)index, &v);
    pl_vec sig = v.shape_signature.n > 0 ? v.shape_signature : v.shape;
    *ndims = sig.n < PL_MAX_DIMS ? (int32_t)sig.n : PL_MAX_DIMS; /* PL_NO_VERIFIER builds */
    for (int32_t i = 0; i < *ndims; i++)
        dims[i] = pl_vec_i32(sig, (uint32_t)i);
    return PL_OK;
}

void(pl_context_format_dims)(int32_t ndims, const int32_t *dims, char *buf, size_t cap)
{
    size_t n = pl_fmt(buf, cap, "[");
    for (int32_t i = 0; i < ndims && i < PL_MAX_DIMS && n < cap; i++)
        n += pl_fmt(buf + n, cap - n, i == 0 ? "%d" : ", %d", (int)dims[i]);
    if (n < cap)
        pl_fmt(buf + n, cap - n, "]");
}

static pl_status fail(pl_context *ctx, pl_status status, const char *fmt, ...)
{
    pl_interp *it = interp_of(ctx);
    char what[PL_ERROR_CAPACITY];
    va_list ap;
    va_start(ap, fmt);
    pl_fmt_v(what, sizeof what, fmt, ap);
    va_end(ap);
    if (it->current_node < 0)
        return pl_error_set(it->err, status, "%s", what);
    return pl_context_fail_node(it, (uint32_t)it->current_node, status, what);
}

/* Where a tensor's bytes lie (NULL: nowhere yet). */
static void *record_data(const pl_interp *it, const pl_eval_record *r)
{
    if (r->loc == PL_LOC_ARENA)
        return pl_arena_base(it->arena) + r->data;
    if (r->loc == PL_LOC_RESOURCE) /* the id; kernels only read it */
        return (void *)(uintptr_t)&r->data;
    if (r->loc == PL_LOC_MODEL) /* kernels never write constants */
        return (void *)(uintptr_t)(it->model.buf + r->data);
    return NULL;
}

#ifdef PL_FAST_HOOKS
static int32_t reader_count(pl_context *ctx, int32_t index)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_INVOKE || index < 0 ||
        (uint32_t)index >= it->tensor_count || it->preserve_all_tensors ||
        pl_alloc_is_io(it, index) || !(it->tensors[index].flags & PL_EVAL_PLANNED))
        return -1;
    int32_t readers = 0;
    for (uint32_t i = 0; i < it->node_count; i++) {
        pl_op_view op;
        pl_model_operator(&it->model, &it->sg, i, &op);
        for (uint32_t k = 0; k < op.inputs.n; k++)
            readers += pl_vec_i32(op.inputs, k) == index;
    }
    return readers;
}

/* get_eval's data without the rest of the view (an empty tensor's too: a valid pointer). */
static void *tensor_data(pl_context *ctx, int32_t index)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_INVOKE || index < 0 || (uint32_t)index >= it->tensor_count)
        return NULL;
    void *data = record_data(it, &it->tensors[index]);
    if (data == NULL) { /* no memory of its own: whatever the view says */
        pl_tensor t;
        pl_context_eval(it, index, &t);
        data = t.data;
    }
    return data;
}
#endif

static void fill(pl_interp *it, pl_context *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->impl = it;
    ctx->alloc_persistent = alloc_persistent;
    ctx->request_scratch = request_scratch;
    ctx->get_scratch = get_scratch;
    ctx->get_tensor = get_tensor;
    ctx->get_eval = get_eval;
    ctx->fail = fail;
    ctx->set_shape = set_shape;
    ctx->fold = fold;
    ctx->shape_signature = shape_signature;
#ifdef PL_FAST_HOOKS
    ctx->reader_count = reader_count;
    ctx->tensor_data = tensor_data;
#endif
    ctx->loop_budget = it->opt.loop_budget;
    ctx->subgraph_count = pl_interp_subgraph_count(it);
    ctx->arith = (pl_arith)it->opt.arith;
    ctx->fused_madd = it->opt.fused_madd;
    pl_subgraph_init_context(ctx);
    pl_resource_init_context(ctx);
}

pl_status pl_context_bind(pl_interp *it, pl_status (*fn)(pl_interp *it))
{
    if (it->ctx != NULL)
        return fn(it);
    pl_context ctx;
    fill(it, &ctx);
    it->ctx = &ctx;
    pl_status s = fn(it);
    it->ctx = NULL;
    return s;
}

pl_status pl_context_fail_node(pl_interp *it, uint32_t index, pl_status status,
                               const char *what)
{
    if (it->current_subgraph != 0)
        pl_error_set(it->err, status, "subgraph %u node %u (%s): %s",
                     (unsigned)it->current_subgraph, index, op_name_of(it, index), what);
    else
        pl_error_set(it->err, status, "node %u (%s): %s", index, op_name_of(it, index), what);
    it->err->node = (int32_t)index;
    pl_context_op_name(it, index, it->err->op_name, sizeof it->err->op_name);
    return status;
}

void pl_context_op_name(const pl_interp *it, uint32_t index, char *buf, size_t cap)
{
    pl_fmt(buf, cap, "%s", op_name_of(it, index));
}

void pl_context_node(const pl_interp *it, uint32_t index, pl_node *out)
{
    pl_op_view op;
    pl_opcode_view oc;
    const pl_node_record *rec = &it->nodes[index];
    pl_model_operator(&it->model, &it->sg, index, &op);
    pl_model_opcode(&it->model, rec->opcode, &oc);
    out->index = index;
    out->builtin_code = oc.builtin_code;
    out->version = oc.version;
    out->inputs = op.inputs;
    out->outputs = op.outputs;
    out->intermediates = op.intermediates;
    out->options_type = op.options_type;
    out->options = op.options;
    out->options2 = op.options2;
    out->custom_options = op.custom_options;
    out->user_data = rec->op_data == PL_NO_OFFSET ? NULL
                                                  : pl_arena_base(it->arena) + rec->op_data;
    out->registration = it->regs != NULL ? it->regs[rec->opcode].reg : NULL;
}

void pl_context_eval(const pl_interp *it, int32_t index, pl_tensor *out)
{
    memset(out, 0, sizeof *out);
    out->index = index;
    if (index < 0)
        return;
    const pl_eval_record *r = &it->tensors[index];
    const uint8_t *shape = (r->flags & PL_EVAL_OWN_SHAPE) ? pl_arena_base(it->arena)
                                                          : it->model.buf;
    out->type = (pl_type)r->type;
    out->ndims = r->ndims;
    size_t count = 1;
    for (uint32_t i = 0; i < r->ndims; i++) {
        out->dims[i] = (int32_t)pl_le32(shape + r->shape + 4u * i);
        count *= (size_t)out->dims[i];
    }
    out->bytes = (size_t)pl_type_bytes(r->type, count);
    if (r->type == PL_STRING && r->loc == PL_LOC_MODEL) /* its last offset (verified) */
        out->bytes = pl_le32(it->model.buf + r->data + 4u * (count + 1u));
    out->is_constant = (r->flags & (PL_EVAL_CONSTANT | PL_EVAL_KNOWN)) != 0;
    out->is_variable = (r->flags & PL_EVAL_VARIABLE) != 0;
    out->data = record_data(it, r);
    if (r->loc == PL_LOC_RESOURCE)
        out->bytes = sizeof r->data;
    else if (out->data == NULL && out->bytes == 0 && it->allocated)
        out->data = pl_arena_base(it->arena); /* empty: a valid pointer never dereferenced */
}
