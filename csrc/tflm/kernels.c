/* kernels.c - the kernel table's lookup and what a kernel's footprint is written with. */
#include "tflm/kernels.h"

#include <string.h>

#include "runtime/state.h"

/* The reference kernels, family by family. */
static const pl_tflm_kernel_set *const reference[] = {
    &pl_tflm_kernels_math, &pl_tflm_kernels_nn, &pl_tflm_kernels_shape,
    &pl_tflm_kernels_state, &pl_tflm_kernels_custom, &pl_tflm_kernels_signal,
};

static bool same_name(const char *name, pl_bytes custom)
{
    return strlen(name) == custom.n && memcmp(name, custom.p, custom.n) == 0;
}

static const pl_tflm_kernel *find_in(const pl_tflm_kernel_set *set, int32_t builtin,
                                     pl_bytes custom)
{
    for (uint32_t i = 0; i < set->count; i++) {
        const pl_tflm_kernel *k = &set->entries[i];
        if (k->builtin != builtin)
            continue;
        if (builtin != PL_BUILTIN_CUSTOM || (k->custom != NULL && same_name(k->custom, custom)))
            return k;
    }
    return NULL;
}

const pl_tflm_kernel *pl_tflm_kernel_find(const pl_tflm_program *p, int32_t builtin,
                                          pl_bytes custom)
{
    const pl_tflm_kernel *k = NULL;
    if (p->kernels != PL_TFLM_REFERENCE)
        k = find_in(&pl_tflm_kernels_cmsis_nn, builtin, custom);
    for (size_t s = 0; k == NULL && s < sizeof reference / sizeof reference[0]; s++)
        k = find_in(reference[s], builtin, custom);
    return k;
}

static int32_t at(pl_vec v, uint32_t k)
{
    return k < v.n ? pl_vec_i32(v, k) : -1;
}

int32_t pl_tflm_input(const pl_tflm_node *n, uint32_t k)
{
    return at(n->op.inputs, k);
}

int32_t pl_tflm_output(const pl_tflm_node *n, uint32_t k)
{
    return at(n->op.outputs, k);
}

/* TfLiteTypeSizeOf: an int4 element takes a byte; strings and variants have no size. */
static uint32_t type_size(pl_type type)
{
    switch (type) {
    case PL_FLOAT64: case PL_INT64: case PL_UINT64: case PL_COMPLEX64: return 8;
    case PL_COMPLEX128: return 16;
    case PL_FLOAT32: case PL_INT32: case PL_UINT32: case PL_RESOURCE: return 4;
    case PL_FLOAT16: case PL_BFLOAT16: case PL_INT16: case PL_UINT16: return 2;
    case PL_UINT8: case PL_INT8: case PL_BOOL: case PL_INT4: return 1;
    default: return 0;
    }
}

/* Whether the model gives the tensor a whole shape (no -1). */
static bool whole_shape(const pl_tensor_view *v)
{
    for (uint32_t i = 0; i < v->shape.n; i++)
        if (pl_vec_i32(v->shape, i) < 0)
            return false;
    return true;
}

/* The shape TFLM plans: the model's, which its kernels keep (a branch that computes a larger
** shape, as IF's unequal branches do, writes past it); picolite's where the user resized an
** input (the figures are then for the model exported at that shape) or the model leaves a
** dim -1. */
static void resolved_dims(const pl_tflm_node *n, int32_t index, const pl_tensor_view *v,
                          pl_tflm_tensor *out)
{
    const pl_interp *it = n->p->it;
    const pl_eval_record *r =
        &it->tensor_records[pl_subgraph_rec(it, n->subgraph).tensor_base + (uint32_t)index];
    const uint8_t *shape = it->model.buf + r->shape;
    uint32_t ndims = r->ndims;
    if ((r->flags & PL_EVAL_OWN_SHAPE) && it->requests == PL_NO_OFFSET && whole_shape(v) &&
        v->shape.n <= PL_MAX_DIMS) {
        shape = v->shape.p;
        ndims = v->shape.n;
    } else if (r->flags & PL_EVAL_OWN_SHAPE) {
        shape = pl_arena_base(it->arena) + r->shape;
    }
    out->ndims = (int32_t)ndims;
    out->elements = 1;
    for (uint32_t i = 0; i < ndims; i++) {
        out->dims[i] = (int32_t)pl_le32(shape + 4u * i);
        out->elements *= (uint64_t)(out->dims[i] < 0 ? 0 : out->dims[i]);
    }
}

void pl_tflm_tensor_of(const pl_tflm_node *n, int32_t index, pl_tflm_tensor *out)
{
    pl_tensor_view v;
    pl_buffer_view b;
    memset(out, 0, sizeof *out);
    out->index = index;
    if (index < 0 || (uint32_t)index >= n->sg.tensors.n) {
        out->index = -1;
        return;
    }
    pl_model_tensor(n->model, &n->sg, (uint32_t)index, &v);
    pl_model_buffer(n->model, v.buffer, &b);
    out->type = v.type;
    resolved_dims(n, index, &v, out);
    out->bytes = out->elements * type_size(v.type);
    if (v.scale.n > 0 && v.zero_point.n > 0) {
        out->channels = v.scale.n;
        out->scale = pl_vec_f32(v.scale, 0);
        out->zero_point = (int32_t)pl_vec_i64(v.zero_point, 0);
    }
    out->data = b.data.n > 0 ? b.data.p : NULL;
    out->variable = v.is_variable;
    for (uint32_t i = 0; i < v.shape.n; i++)
        out->unknown_dim |= pl_vec_i32(v.shape, i) == -1;
}

static int32_t temp_tensor(pl_tflm_node *n, int32_t index, bool zero_points_read)
{
    const pl_tflm_abi *a = n->p->abi;
    pl_tflm_tensor t;
    if (index < 0)
        return -1;
    pl_tflm_tensor_of(n, index, &t);
    pl_tflm_program_temp(n->p, a->tensor.size, a->tensor.align, a->tensor_read);
    if (t.channels > 0) {
        uint32_t zero_points = 4u + 4u * t.channels;
        pl_tflm_program_temp(n->p, a->quant.size, a->quant.align, 2u * a->word);
        pl_tflm_program_temp(n->p, zero_points, 4, zero_points_read ? zero_points : 0);
    }
    return index;
}

int32_t pl_tflm_temp_tensor(pl_tflm_node *n, int32_t index)
{
    return temp_tensor(n, index, false);
}

int32_t pl_tflm_temp_tensor_zero_points_read(pl_tflm_node *n, int32_t index)
{
    return temp_tensor(n, index, true);
}

int32_t pl_tflm_temp_input(pl_tflm_node *n, uint32_t k)
{
    return pl_tflm_temp_tensor(n, pl_tflm_input(n, k));
}

int32_t pl_tflm_temp_output(pl_tflm_node *n, uint32_t k)
{
    return pl_tflm_temp_tensor(n, pl_tflm_output(n, k));
}

void pl_tflm_free_tensor(pl_tflm_node *n, int32_t index)
{
    pl_tflm_tensor t;
    if (index < 0)
        return;
    pl_tflm_tensor_of(n, index, &t);
    pl_tflm_program_emit(n->p, PL_TFLM_FREE, 0, 0, PL_TFLM_CAT_NONE, t.channels > 0 ? 3 : 1);
}

void pl_tflm_persistent(pl_tflm_node *n, uint32_t bytes)
{
    pl_tflm_program_emit(n->p, PL_TFLM_TAIL, bytes, PL_TFLM_ALIGN, PL_CAT_PERSISTENT_BUFFER, 1);
}

void pl_tflm_scratch(pl_tflm_node *n, uint32_t bytes)
{
    pl_tflm_program_request(n->p, bytes);
}

void pl_tflm_dims_copy(pl_tflm_node *n, int32_t index)
{
    pl_tflm_tensor t;
    pl_tflm_tensor_of(n, index, &t);
    pl_tflm_persistent(n, 4u + 4u * (uint32_t)t.ndims);
}

void pl_tflm_temps_io(pl_tflm_node *n, uint32_t ins, uint32_t outs)
{
    int32_t t[2 * PL_MAX_DIMS];
    uint32_t count = 0;
    for (uint32_t k = 0; k < ins && count < 2 * PL_MAX_DIMS; k++)
        t[count++] = pl_tflm_temp_input(n, k);
    for (uint32_t k = 0; k < outs && count < 2 * PL_MAX_DIMS; k++)
        t[count++] = pl_tflm_temp_output(n, k);
    for (uint32_t k = 0; k < count; k++)
        pl_tflm_free_tensor(n, t[k]);
}
