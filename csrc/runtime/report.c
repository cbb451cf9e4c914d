/* report.c - what the interpreter tells its host: structure, tensors, memory, plan. */
#include "state.h"

#include <string.h>

uint32_t pl_interp_tensor_count(const pl_interp *it)
{
    return it->tensor_count;
}

uint32_t pl_interp_node_count(const pl_interp *it)
{
    return it->node_count;
}

uint32_t pl_interp_input_count(const pl_interp *it)
{
    return it->sg.inputs.n;
}

uint32_t pl_interp_output_count(const pl_interp *it)
{
    return it->sg.outputs.n;
}

int32_t pl_interp_input_index(const pl_interp *it, uint32_t i)
{
    return i < it->sg.inputs.n ? pl_vec_i32(it->sg.inputs, i) : -1;
}

int32_t pl_interp_output_index(const pl_interp *it, uint32_t i)
{
    return i < it->sg.outputs.n ? pl_vec_i32(it->sg.outputs, i) : -1;
}

static void copy_dims(pl_vec v, int32_t *ndims, int32_t *dims)
{
    *ndims = (int32_t)v.n;
    for (uint32_t i = 0; i < v.n; i++)
        dims[i] = pl_vec_i32(v, i);
}

/* A planned tensor shares its bytes unless every tensor is preserved or it is a subgraph
** input or output (those stay valid between invokes, as in TFLM). */
static bool is_shared(const pl_interp *it, uint32_t index)
{
    return (it->tensors[index].flags & PL_EVAL_PLANNED) && !it->preserve_all_tensors &&
           !pl_alloc_is_io(it, (int32_t)index);
}

pl_status pl_interp_tensor(const pl_interp *it, uint32_t index, pl_tensor_info *out)
{
    if (index >= it->tensor_count)
        return PL_ERR_ARG;
    pl_tensor_view v;
    pl_model_tensor(&it->model, &it->sg, index, &v);
    memset(out, 0, sizeof *out);
    out->name = (const char *)v.name.p;
    out->name_len = v.name.n;
    out->type = v.type;
    copy_dims(v.shape, &out->ndims, out->dims);
    copy_dims(v.shape_signature.n > 0 ? v.shape_signature : v.shape, &out->ndims_signature,
              out->dims_signature);
    out->bytes = pl_alloc_tensor_bytes(it, index);
    out->is_variable = v.is_variable;
    out->scale = v.scale;
    out->zero_point = v.zero_point;
    out->quantized_dimension = v.quantized_dimension;
    if (it->tensors == NULL) { /* before allocation: structure, and a requested input shape */
        pl_shapes_requested(it, index, &out->ndims, out->dims);
        return PL_OK;
    }
    pl_tensor t;
    pl_context_eval(it, (int32_t)index, &t);
    out->ndims = t.ndims; /* the current shape: a resize may have changed it */
    memcpy(out->dims, t.dims, sizeof out->dims);
    out->is_constant = t.is_constant;
    out->shared = is_shared(it, index);
    out->data = it->allocated || t.is_constant ? t.data : NULL;
    return PL_OK;
}

pl_status pl_interp_node(const pl_interp *it, uint32_t index, pl_node_info *out)
{
    if (index >= it->node_count)
        return PL_ERR_ARG;
    pl_op_view op;
    pl_opcode_view oc;
    pl_model_operator(&it->model, &it->sg, index, &op);
    pl_model_opcode(&it->model, op.opcode_index, &oc);
    const pl_registration *reg = it->regs != NULL ? it->regs[op.opcode_index].reg : NULL;
    out->op_name = reg != NULL ? reg->name : pl_model_builtin_name(oc.builtin_code);
    out->builtin_code = oc.builtin_code;
    out->version = oc.version;
    out->inputs = op.inputs;
    out->outputs = op.outputs;
    out->intermediates = op.intermediates;
    return PL_OK;
}

pl_status pl_interp_recording(const pl_interp *it, pl_recording *out)
{
    if (!it->allocated)
        return PL_ERR_STATE;
    memset(out, 0, sizeof *out);
    out->head = pl_arena_head_size(it->arena);
    out->tail = pl_arena_tail_size(it->arena);
    out->total = out->head + out->tail;
    out->temp_high_water = pl_arena_temp_high_water(it->arena);
    out->peak = pl_arena_peak(it->arena);
    out->head_tensors = it->rec.head_tensors;
    out->head_scratch = it->rec.head_scratch;
    out->lower_bound = it->rec.lower_bound;
    out->planner = (pl_planner)it->rec.planner;
    for (int c = 0; c < PL_CAT_COUNT; c++) {
        out->cat[c].used = it->rec.cat[c][0];
        out->cat[c].requested = it->rec.cat[c][1];
        out->cat[c].count = it->rec.cat[c][2];
    }
    return PL_OK;
}

uint32_t pl_interp_plan_count(const pl_interp *it)
{
    return it->allocated ? it->plan_count : 0;
}

/* Scratch buffer s: its subgraph is the one whose nodes hold its node's global index. */
static uint32_t scratch_buffer(const pl_interp *it, uint32_t s, pl_plan_buffer *out)
{
    const pl_scratch_record *r = &it->scratch[s];
    out->size = (r->bytes + 15u) & ~15u;
    pl_life_of(it, it->all_tensors + s, &out->first, &out->last);
    out->offset = r->offset;
    uint32_t k = 0;
    for (uint32_t j = 1; j < it->subgraph_count; j++)
        if (pl_subgraph_rec(it, j).node_base <= (uint32_t)r->node)
            k = j;
    return k;
}

/* Planned tensor i (in plan order: subgraph by subgraph) of the current subgraph, if any. */
static bool planned_tensor(pl_interp *it, uint32_t *seen, uint32_t i, pl_plan_buffer *out,
                           int32_t *tensor_index)
{
    for (uint32_t t = 0; t < it->tensor_count; t++) {
        if (!(it->tensors[t].flags & PL_EVAL_PLANNED) || (*seen)++ != i)
            continue;
        pl_alloc_lifetime(it, t, &out->first, &out->last);
        out->size = (uint32_t)((pl_alloc_tensor_bytes(it, t) + 15u) & ~(size_t)15u);
        out->offset = it->tensors[t].data;
        out->offline_offset = pl_alloc_offline_offset(it, t);
        *tensor_index = (int32_t)t;
        return true;
    }
    return false;
}

pl_status pl_interp_plan_buffer(pl_interp *it, uint32_t i, pl_plan_buffer *out,
                                int32_t *tensor_index, uint32_t *subgraph)
{
    if (i >= pl_interp_plan_count(it))
        return pl_error_set(it->err, PL_ERR_ARG, "plan buffer %u of %u", (unsigned)i,
                            (unsigned)pl_interp_plan_count(it));
    if (it->depth > 0)
        return pl_error_set(it->err, PL_ERR_STATE, "the plan is not readable during invoke");
    memset(out, 0, sizeof *out);
    out->offline_offset = -1;
    uint32_t seen = 0, current = it->current_subgraph, k = 0;
    bool found = false;
    for (; k < it->subgraph_count && !found; k++) {
        pl_subgraph_select(it, k);
        found = planned_tensor(it, &seen, i, out, tensor_index);
    }
    pl_subgraph_select(it, current);
    if (found)
        k--;
    else {
        k = scratch_buffer(it, i - seen, out);
        *tensor_index = -1;
    }
    if (subgraph != NULL)
        *subgraph = k;
    return PL_OK;
}

const char *pl_interp_subgraph_name(const pl_interp *it, uint32_t k, uint32_t *len)
{
    pl_bytes name = k < it->subgraph_count ? pl_model_subgraph_name(&it->model, k)
                                           : (pl_bytes){NULL, 0};
    *len = name.n;
    return name.p != NULL ? (const char *)name.p : "";
}

uint32_t pl_interp_signature_count(const pl_interp *it)
{
    return pl_model_signature_count(&it->model);
}

pl_status pl_interp_signature(const pl_interp *it, uint32_t s, pl_signature_info *out)
{
    pl_signature_view v;
    if (s >= pl_model_signature_count(&it->model))
        return PL_ERR_ARG;
    pl_model_signature(&it->model, s, &v);
    out->key = v.key.p != NULL ? (const char *)v.key.p : "";
    out->key_len = v.key.n;
    out->subgraph = v.subgraph;
    out->input_count = v.inputs.n;
    out->output_count = v.outputs.n;
    return PL_OK;
}

pl_status pl_interp_signature_io(const pl_interp *it, uint32_t s, bool output, uint32_t i,
                                 const char **name, uint32_t *name_len, int32_t *tensor)
{
    pl_signature_view v;
    if (s >= pl_model_signature_count(&it->model))
        return PL_ERR_ARG;
    pl_model_signature(&it->model, s, &v);
    pl_vec maps = output ? v.outputs : v.inputs;
    if (i >= maps.n)
        return PL_ERR_ARG;
    pl_bytes n;
    uint32_t t;
    pl_model_tensor_map(&it->model, maps, i, &n, &t);
    *name = (const char *)n.p;
    *name_len = n.n;
    *tensor = (int32_t)t;
    return PL_OK;
}
