/* resource.c - resource variables, TFLM's MicroResourceVariables.
**
** A variable is named by container and shared_name (VarHandleOptions); every VAR_HANDLE
** naming the same pair gets the same id. The table holds one record per VAR_HANDLE in the
** model (the most distinct variables it can name) and is made only when there is one;
** the first ASSIGN_VARIABLE prepare that sees a variable gives it a buffer in the tail,
** filled with the value's int8 zero point (else 0), the bytes reset() restores. */
#include "state.h"

#include <string.h>

enum { OP_VAR_HANDLE = 142 };

static uint32_t count_handles(pl_interp *it)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        pl_subgraph sg;
        pl_model_subgraph(&it->model, k, &sg);
        for (uint32_t i = 0; i < sg.operators.n; i++) {
            pl_op_view op;
            pl_opcode_view oc;
            pl_model_operator(&it->model, &sg, i, &op);
            pl_model_opcode(&it->model, op.opcode_index, &oc);
            n += oc.builtin_code == OP_VAR_HANDLE;
        }
    }
    return n;
}

pl_status pl_resource_start(pl_interp *it)
{
    uint32_t n = count_handles(it);
    it->resource_count = 0;
    it->resource_capacity = n;
    if (n == 0)
        return PL_OK;
#ifdef PL_NO_RESOURCE_VARIABLES
    return pl_error_set(it->err, PL_ERR_UNSUPPORTED, "the model has %u VAR_HANDLE operators: "
                        "resource variables are not in this build (PL_NO_RESOURCE_VARIABLES)",
                        (unsigned)n);
#endif
    PL_TRY(pl_alloc_tail(it, PL_CAT_RESOURCE, n * sizeof *it->resources,
                         _Alignof(pl_resource_record), (void **)&it->resources));
    it->rec.cat[PL_CAT_RESOURCE][2] = 0; /* counted per variable as they are made */
    return PL_OK;
}

void pl_resource_reset(pl_interp *it)
{
    for (uint32_t i = 0; i < it->resource_count; i++) {
        const pl_resource_record *r = &it->resources[i];
        if (r->data != PL_NO_OFFSET)
            memset(pl_arena_base(it->arena) + r->data, r->fill, r->bytes);
    }
}

/* --- the callbacks --- */

#ifdef PL_NO_RESOURCE_VARIABLES
/* pl_resource_start refused every model that would call them. */
void pl_resource_init_context(pl_context *ctx)
{
    ctx->var_handle = NULL;
    ctx->var_allocate = NULL;
    ctx->var_data = NULL;
}
#else

static pl_interp *interp_of(pl_context *ctx)
{
    return (pl_interp *)ctx->impl;
}

static uint32_t offset_of(const pl_interp *it, pl_bytes s)
{
    return s.p == NULL ? PL_NO_OFFSET : (uint32_t)(s.p - it->model.buf);
}

/* A stored name as bytes: flatbuffer strings keep their length just before them. */
static pl_bytes name_at(const pl_interp *it, uint32_t offset)
{
    if (offset == PL_NO_OFFSET)
        return (pl_bytes){NULL, 0};
    return (pl_bytes){it->model.buf + offset, pl_le32(it->model.buf + offset - 4)};
}

static bool same(pl_bytes a, pl_bytes b)
{
    return a.p != NULL && b.p != NULL && a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* TFLM's FindId: an absent container matches any. */
static int32_t find(const pl_interp *it, pl_bytes container, pl_bytes shared_name)
{
    for (uint32_t i = 0; i < it->resource_count; i++) {
        const pl_resource_record *r = &it->resources[i];
        if ((container.p == NULL || same(container, name_at(it, r->container))) &&
            same(shared_name, name_at(it, r->shared_name)))
            return (int32_t)i;
    }
    return -1;
}

static pl_status var_handle(pl_context *ctx, int32_t output, pl_bytes container,
                            pl_bytes shared_name)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "var_handle", "prepare");
    if (output < 0 || (uint32_t)output >= it->tensor_count ||
        it->tensors[output].type != PL_RESOURCE || it->tensors[output].loc == PL_LOC_MODEL)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "output tensor %d is not a RESOURCE tensor",
                           (int)output);
    if (shared_name.p == NULL)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "the variable has no shared_name");
    int32_t id = find(it, container, shared_name);
    if (id < 0) {
        if (it->resource_count >= it->resource_capacity)
            return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "more than %u resource variables",
                               (unsigned)it->resource_capacity);
        id = (int32_t)it->resource_count++;
        it->resources[id] = (pl_resource_record){offset_of(it, container),
                                                 offset_of(it, shared_name), PL_NO_OFFSET,
                                                 0, 0};
        it->rec.cat[PL_CAT_RESOURCE][2]++;
    }
    it->tensors[output].loc = PL_LOC_RESOURCE;
    it->tensors[output].data = (uint32_t)id;
    return PL_OK;
}

static pl_status check_id(pl_interp *it, int32_t id)
{
    if (id < 0 || (uint32_t)id >= it->resource_count)
        return PL_CTX_FAIL(it->ctx, PL_ERR_MODEL, "resource variable %d does not exist "
                           "(%u variables)", (int)id, (unsigned)it->resource_count);
    return PL_OK;
}

static pl_status var_allocate(pl_context *ctx, int32_t id, const pl_tensor *value)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "var_allocate", "prepare");
    PL_TRY(check_id(it, id));
    pl_resource_record *r = &it->resources[id];
    if (r->data != PL_NO_OFFSET)
        return PL_OK;
    if (value->bytes > UINT32_MAX)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "resource variable %d: %zu bytes", (int)id,
                           value->bytes);
    void *p;
    PL_TRY(pl_alloc_tail(it, PL_CAT_RESOURCE, value->bytes, PL_ARENA_ALIGN, &p));
    it->rec.cat[PL_CAT_RESOURCE][2]--; /* the category counts variables, not allocations */
    /* TFLM memsets the first zero point, cast to int8, whatever the type */
    r->fill = value->q.count > 0 ? (int32_t)(uint8_t)(int8_t)value->q.zero_point[0] : 0;
    r->bytes = (uint32_t)value->bytes;
    r->data = pl_arena_offset(it->arena, p);
    memset(p, r->fill, r->bytes);
    return PL_OK;
}

static pl_status var_data(pl_context *ctx, int32_t id, void **data, size_t *bytes)
{
    pl_interp *it = interp_of(ctx);
    *data = NULL;
    *bytes = 0;
    if (it->phase != PL_PHASE_INVOKE)
        return pl_context_phase_error(it, "var_data", "invoke");
    PL_TRY(check_id(it, id));
    const pl_resource_record *r = &it->resources[id];
    if (r->data == PL_NO_OFFSET)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "resource variable %d is read before any "
                           "ASSIGN_VARIABLE gave it a buffer", (int)id);
    *data = pl_arena_base(it->arena) + r->data;
    *bytes = r->bytes;
    return PL_OK;
}

void pl_resource_init_context(pl_context *ctx)
{
    ctx->var_handle = var_handle;
    ctx->var_allocate = var_allocate;
    ctx->var_data = var_data;
}
#endif
