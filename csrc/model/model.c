/* model.c - zero-copy accessors of a verified TFLite model.
**
** Every accessor reads only objects pl_verify_model() checked, through fb.h's plain readers:
** a handful of constant-time field lookups per view, no scans. */
#include "model/model.h"

#include <string.h>

#include "model/fb.h"
#include "model/schema.h"
#include "model/verify.h"

static pl_fb fb_of(const pl_model *m)
{
    return (pl_fb){m->buf, m->size};
}

static pl_table root_of(const pl_model *m)
{
    return pl_fb_table(fb_of(m), pl_le32(m->buf));
}

pl_status pl_model_open(pl_model *m, const void *data, size_t size, pl_error *err)
{
    memset(m, 0, sizeof *m);
    if (data == NULL)
        return pl_error_set(err, PL_ERR_ARG, "model: no data");
    if (size > UINT32_MAX)
        return pl_error_set(err, PL_ERR_MODEL, "model: %zu bytes; picolite reads up to 4 GiB",
                            size);
    PL_TRY(pl_verify_model(data, (uint32_t)size, err));
    m->buf = data;
    m->size = (uint32_t)size;
    pl_table root = root_of(m);
    m->opcodes = pl_fb_vec(&root, PL_F_MODEL_OPERATOR_CODES);
    m->subgraphs = pl_fb_vec(&root, PL_F_MODEL_SUBGRAPHS);
    m->buffers = pl_fb_vec(&root, PL_F_MODEL_BUFFERS);
    m->metadata = pl_fb_vec(&root, PL_F_MODEL_METADATA);
    return PL_OK;
}

uint32_t pl_model_version(const pl_model *m)
{
    pl_table root = root_of(m);
    return pl_fb_u32(&root, PL_F_MODEL_VERSION, 0);
}

uint32_t pl_model_signature_count(const pl_model *m)
{
    pl_table root = root_of(m);
    return pl_fb_vec(&root, PL_F_MODEL_SIGNATURE_DEFS).n;
}

void pl_model_signature(const pl_model *m, uint32_t index, pl_signature_view *out)
{
    pl_table root = root_of(m);
    pl_table t = pl_fb_table_elem(fb_of(m), pl_fb_vec(&root, PL_F_MODEL_SIGNATURE_DEFS), index);
    out->key = pl_fb_str(&t, PL_F_SIGNATURE_KEY);
    out->subgraph = pl_fb_u32(&t, PL_F_SIGNATURE_SUBGRAPH, 0);
    out->inputs = pl_fb_vec(&t, PL_F_SIGNATURE_INPUTS);
    out->outputs = pl_fb_vec(&t, PL_F_SIGNATURE_OUTPUTS);
}

void pl_model_tensor_map(const pl_model *m, pl_vec maps, uint32_t i, pl_bytes *name,
                         uint32_t *tensor)
{
    pl_table t = pl_fb_table_elem(fb_of(m), maps, i);
    *name = pl_fb_str(&t, PL_F_TENSORMAP_NAME);
    *tensor = pl_fb_u32(&t, PL_F_TENSORMAP_TENSOR, 0);
}

pl_bytes pl_model_subgraph_name(const pl_model *m, uint32_t index)
{
    pl_table t = pl_fb_table_elem(fb_of(m), m->subgraphs, index);
    return pl_fb_str(&t, PL_F_SUBGRAPH_NAME);
}

uint32_t pl_model_subgraph_count(const pl_model *m)
{
    return m->subgraphs.n;
}

void pl_model_subgraph(const pl_model *m, uint32_t index, pl_subgraph *out)
{
    pl_table t = pl_fb_table_elem(fb_of(m), m->subgraphs, index);
    out->tensors = pl_fb_vec(&t, PL_F_SUBGRAPH_TENSORS);
    out->inputs = pl_fb_vec(&t, PL_F_SUBGRAPH_INPUTS);
    out->outputs = pl_fb_vec(&t, PL_F_SUBGRAPH_OUTPUTS);
    out->operators = pl_fb_vec(&t, PL_F_SUBGRAPH_OPERATORS);
}

void pl_model_tensor(const pl_model *m, const pl_subgraph *sg, uint32_t index,
                     pl_tensor_view *out)
{
    pl_table t = pl_fb_table_elem(fb_of(m), sg->tensors, index);
    pl_table q = pl_fb_subtable(&t, PL_F_TENSOR_QUANTIZATION);
    out->type = (pl_type)pl_table_i8(&t, PL_F_TENSOR_TYPE, PL_FLOAT32);
    out->buffer = pl_fb_u32(&t, PL_F_TENSOR_BUFFER, 0);
    out->shape = pl_fb_vec(&t, PL_F_TENSOR_SHAPE);
    out->shape_signature = pl_fb_vec(&t, PL_F_TENSOR_SHAPE_SIGNATURE);
    out->name = pl_fb_str(&t, PL_F_TENSOR_NAME);
    out->scale = pl_fb_vec(&q, PL_F_QUANT_SCALE);
    out->zero_point = pl_fb_vec(&q, PL_F_QUANT_ZERO_POINT);
    out->quantized_dimension = pl_table_i32(&q, PL_F_QUANT_QUANTIZED_DIMENSION, 0);
    out->is_variable = pl_table_bool(&t, PL_F_TENSOR_IS_VARIABLE, false);
}

/* Custom options inline, or (for models > 2 GB) at an offset from the start of the file. */
static pl_bytes custom_options(const pl_model *m, const pl_table *op)
{
    pl_vec v = pl_fb_vec(op, PL_F_OP_CUSTOM_OPTIONS);
    uint64_t offset = pl_fb_u64(op, PL_F_OP_LARGE_CUSTOM_OFFSET, 0);
    if (v.n == 0 && offset >= PL_EXTERNAL_OFFSET_MIN) {
        uint64_t size = pl_fb_u64(op, PL_F_OP_LARGE_CUSTOM_SIZE, 0);
        return (pl_bytes){m->buf + offset, (uint32_t)size};
    }
    return (pl_bytes){v.p, v.n};
}

void pl_model_operator(const pl_model *m, const pl_subgraph *sg, uint32_t index,
                       pl_op_view *out)
{
    static const pl_table absent = {NULL, 0, 0, 0, 0};
    pl_table t = pl_fb_table_elem(fb_of(m), sg->operators, index);
    out->opcode_index = pl_fb_u32(&t, PL_F_OP_OPCODE_INDEX, 0);
    out->inputs = pl_fb_vec(&t, PL_F_OP_INPUTS);
    out->outputs = pl_fb_vec(&t, PL_F_OP_OUTPUTS);
    out->intermediates = pl_fb_vec(&t, PL_F_OP_INTERMEDIATES);
    out->options_type = (uint8_t)pl_table_u8(&t, PL_F_OP_OPTIONS_TYPE, 0);
    out->options = out->options_type ? pl_fb_subtable(&t, PL_F_OP_OPTIONS) : absent;
    out->options2_type = (uint8_t)pl_table_u8(&t, PL_F_OP_OPTIONS2_TYPE, 0);
    out->options2 = out->options2_type ? pl_fb_subtable(&t, PL_F_OP_OPTIONS2) : absent;
    out->custom_options = custom_options(m, &t);
}

uint32_t pl_model_opcode_count(const pl_model *m)
{
    return m->opcodes.n;
}

void pl_model_opcode(const pl_model *m, uint32_t index, pl_opcode_view *out)
{
    pl_table t = pl_fb_table_elem(fb_of(m), m->opcodes, index);
    int32_t dep = pl_table_i8(&t, PL_F_OPCODE_DEPRECATED_BUILTIN, 0);
    int32_t code = pl_table_i32(&t, PL_F_OPCODE_BUILTIN, 0);
    /* Files before schema v3a keep the code only in the deprecated byte field. */
    out->builtin_code = dep > code ? dep : code;
    out->custom_code = pl_fb_str(&t, PL_F_OPCODE_CUSTOM_CODE);
    out->version = pl_table_i32(&t, PL_F_OPCODE_VERSION, 1);
}

uint32_t pl_model_buffer_count(const pl_model *m)
{
    return m->buffers.n;
}

void pl_model_buffer(const pl_model *m, uint32_t index, pl_buffer_view *out)
{
    pl_table t = pl_fb_table_elem(fb_of(m), m->buffers, index);
    pl_vec v = pl_fb_vec(&t, PL_F_BUFFER_DATA);
    uint64_t offset = pl_fb_u64(&t, PL_F_BUFFER_OFFSET, 0);
    out->data = (pl_bytes){v.p, v.n};
    if (v.n == 0 && offset >= PL_EXTERNAL_OFFSET_MIN) {
        uint64_t size = pl_fb_u64(&t, PL_F_BUFFER_SIZE, 0);
        out->data = (pl_bytes){m->buf + offset, (uint32_t)size};
    }
}

uint32_t pl_model_metadata_count(const pl_model *m)
{
    return m->metadata.n;
}

void pl_model_metadata(const pl_model *m, uint32_t index, pl_metadata_view *out)
{
    pl_table t = pl_fb_table_elem(fb_of(m), m->metadata, index);
    out->name = pl_fb_str(&t, PL_F_METADATA_NAME);
    out->buffer = pl_fb_u32(&t, PL_F_METADATA_BUFFER, 0);
}

pl_bytes pl_model_metadata_find(const pl_model *m, const char *name)
{
    size_t len = strlen(name);
    pl_metadata_view md;
    pl_buffer_view b;
    for (uint32_t i = 0; i < m->metadata.n; i++) {
        pl_model_metadata(m, i, &md);
        if (md.buffer < m->buffers.n && md.name.n == len &&
            (len == 0 || memcmp(md.name.p, name, len) == 0)) {
            pl_model_buffer(m, md.buffer, &b);
            return b.data;
        }
    }
    return (pl_bytes){NULL, 0};
}
