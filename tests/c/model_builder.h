/* model_builder.h - a tiny flatbuffer writer for tests: builds small TFLite models from a
** spec, and reports where each object landed so tests can corrupt exactly one thing.
**
** Written back to front like the real flatbuffers builder: children first, offsets point
** forward. A "ref" is the number of bytes written when the object was finished; its final
** position is total - ref. Test-only code: it uses malloc and assumes a little-endian host. */
#ifndef PL_TEST_MODEL_BUILDER_H
#define PL_TEST_MODEL_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MB_CAP (1u << 20)
#define MB_MAX_FIELDS 24

typedef struct mb {
    uint8_t *buf;
    uint32_t used; /* bytes written, at the end of buf */
    uint32_t minalign;
    int nfields;
    struct {
        uint32_t id, size, is_ref;
        uint64_t val;
    } fields[MB_MAX_FIELDS];
    uint32_t start;
} mb;

static inline void mb_init(mb *b)
{
    memset(b, 0, sizeof *b);
    b->buf = calloc(1, MB_CAP);
    b->minalign = 1;
}

static inline void mb_put(mb *b, const void *p, uint32_t n)
{
    b->used += n;
    memcpy(b->buf + MB_CAP - b->used, p, n);
}

static inline void mb_le(mb *b, uint64_t v, uint32_t n)
{
    mb_put(b, &v, n); /* little-endian host */
}

/* Pads so that after len more bytes the written size is a multiple of align. */
static inline void mb_prealign(mb *b, uint32_t len, uint32_t align)
{
    if (align > b->minalign)
        b->minalign = align;
    while ((b->used + len) % align != 0)
        mb_le(b, 0, 1);
}

static inline uint32_t mb_vec(mb *b, const void *elems, uint32_t n, uint32_t elem, uint32_t align)
{
    mb_prealign(b, n * elem, 4);
    mb_prealign(b, n * elem, align > elem ? align : elem);
    if (n > 0)
        mb_put(b, elems, n * elem);
    mb_le(b, n, 4);
    return b->used;
}

static inline uint32_t mb_vec_i32(mb *b, const int32_t *v, uint32_t n)
{
    return mb_vec(b, v, n, 4, 4);
}

static inline uint32_t mb_string(mb *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    mb_prealign(b, n + 1, 4);
    mb_le(b, 0, 1);
    mb_put(b, s, n);
    mb_le(b, n, 4);
    return b->used;
}

static inline uint32_t mb_vec_refs(mb *b, const uint32_t *refs, uint32_t n)
{
    mb_prealign(b, n * 4, 4);
    for (uint32_t i = n; i-- > 0;)
        mb_le(b, b->used + 4 - refs[i], 4);
    mb_le(b, n, 4);
    return b->used;
}

static inline void mb_start(mb *b)
{
    b->nfields = 0;
    b->start = b->used;
}

static inline void mb_scalar(mb *b, uint32_t id, uint64_t val, uint32_t size)
{
    b->fields[b->nfields].id = id;
    b->fields[b->nfields].size = size;
    b->fields[b->nfields].is_ref = 0;
    b->fields[b->nfields++].val = val;
}

static inline void mb_ref(mb *b, uint32_t id, uint32_t ref)
{
    if (ref == 0)
        return; /* absent */
    mb_scalar(b, id, ref, 4);
    b->fields[b->nfields - 1].is_ref = 1;
}

static inline uint32_t mb_end(mb *b)
{
    uint32_t field_used[MB_MAX_FIELDS] = {0}, nids = 0;
    for (uint32_t size = 8; size >= 1; size /= 2) {
        for (int i = 0; i < b->nfields; i++) {
            if (b->fields[i].size != size)
                continue;
            mb_prealign(b, size, size);
            uint64_t v = b->fields[i].is_ref ? b->used + 4 - b->fields[i].val : b->fields[i].val;
            mb_le(b, v, size);
            field_used[b->fields[i].id] = b->used;
            if (b->fields[i].id + 1 > nids)
                nids = b->fields[i].id + 1;
        }
    }
    mb_prealign(b, 4, 4);
    mb_le(b, 0, 4);
    uint32_t table = b->used;
    uint16_t vt[2 + MB_MAX_FIELDS];
    vt[0] = (uint16_t)(4 + 2 * nids);
    vt[1] = (uint16_t)(table - b->start);
    for (uint32_t id = 0; id < nids; id++)
        vt[2 + id] = (uint16_t)(field_used[id] ? table - field_used[id] : 0);
    mb_put(b, vt, vt[0]);
    int32_t soff = (int32_t)(b->used - table);
    memcpy(b->buf + MB_CAP - table, &soff, 4);
    return table;
}

/* Writes the identifier and root offset; the model is buf + MB_CAP - used, used bytes. */
static inline void mb_finish(mb *b, uint32_t root, const char *ident)
{
    mb_prealign(b, 8, b->minalign);
    mb_put(b, ident, 4);
    mb_le(b, b->used + 4 - root, 4);
}

static inline uint32_t mb_pos(const mb *b, uint32_t ref)
{
    return b->used - ref;
}

/* ---- TFLite models from a spec ---- */

typedef struct mb_tensor {
    int rank;
    int32_t shape[12];
    int8_t type;
    uint32_t buffer;
    const char *name;
    int has_quant, nscale, nzp;
    float scale[8];
    int64_t zp[8];
    int32_t qdim;
    uint8_t details_type;
    int sig_rank;
    int32_t sig[12];
    int is_variable;
} mb_tensor;

typedef struct mb_op {
    uint32_t opcode;
    int nin, nout, ninter;
    int32_t in[8], out[4], inter[4];
    uint8_t opt_type, opt2_type;
    int has_opt, has_opt2;
    int32_t opt_field0;            /* written as an int32 at options field 0 (when >= 0 ...) */
    int nvec;                      /* > 0: options field 0 is this [int] instead */
    int32_t vec[8];
    int ncustom;
    uint8_t custom[16];
    uint64_t large_offset, large_size;
} mb_op;

typedef struct mb_opcode {
    int8_t deprecated;
    int32_t code;
    const char *custom;
    int32_t version; /* 0: absent (reads as 1) */
} mb_opcode;

typedef struct mb_buffer {
    uint32_t n;
    const uint8_t *data;
    uint64_t offset, size;
} mb_buffer;

typedef struct mb_spec {
    const char *ident;
    uint32_t version;
    int nopcodes, nsubgraphs, ntensors, nin, nout, nops, nbuffers, nmeta, nsig;
    mb_opcode opcodes[4];
    mb_tensor tensors[8];
    int32_t in[4], out[4];
    mb_op ops[4];
    mb_buffer buffers[6];
    struct {
        const char *name;
        uint32_t buffer;
    } meta[2];
    const char *sg_name;
    const char *sig_key, *sig_in_name;
    uint32_t sig_subgraph, sig_in_tensor;
    int sig_no_key, sig_no_name; /* leave the signature's key / its map's name out */
    int sig_outputs;             /* an outputs map too, of one entry: sig_out_tensor */
    uint32_t sig_out_tensor;
    uint32_t pad_after; /* bytes appended after the flatbuffer (external data) */
} mb_spec;

/* Final positions of the objects, for corruption tests. */
typedef struct mb_where {
    uint32_t root, subgraph, tensor[8], tensor_name[8], shape[8], op[4], op_inputs[4],
        opcode[4], buffer[6], buffer_data[6], tensors_vec, quant[8];
} mb_where;

/* The default: out = a + b, float32 [1,4], b constant (buffer 1 holds 16 bytes). */
static inline void mb_default(mb_spec *s)
{
    static const uint8_t sixteen[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};
    memset(s, 0, sizeof *s);
    s->ident = "TFL3";
    s->version = 3;
    s->nopcodes = 1;
    s->opcodes[0] = (mb_opcode){0, 0, NULL, 1}; /* ADD */
    s->nsubgraphs = 1;
    s->ntensors = 3;
    const char *names[3] = {"a", "b", "out"};
    for (int i = 0; i < 3; i++) {
        s->tensors[i].rank = 2;
        s->tensors[i].shape[0] = 1;
        s->tensors[i].shape[1] = 4;
        s->tensors[i].name = names[i];
    }
    s->tensors[1].buffer = 1;
    s->nin = 1;
    s->in[0] = 0;
    s->nout = 1;
    s->out[0] = 2;
    s->nops = 1;
    s->ops[0].nin = 2;
    s->ops[0].in[0] = 0;
    s->ops[0].in[1] = 1;
    s->ops[0].nout = 1;
    s->ops[0].out[0] = 2;
    s->ops[0].has_opt = 1;
    s->ops[0].opt_type = 11; /* AddOptions */
    s->ops[0].opt_field0 = 1; /* fused_activation_function RELU */
    s->nbuffers = 2;
    s->buffers[1].n = 16;
    s->buffers[1].data = sixteen;
    s->sg_name = "main";
}

static inline uint32_t mb_build_tensor(mb *b, const mb_tensor *t, uint32_t *name_ref,
                                       uint32_t *shape_ref, uint32_t *quant_ref)
{
    uint32_t shape = mb_vec_i32(b, t->shape, (uint32_t)t->rank);
    uint32_t name = t->name ? mb_string(b, t->name) : 0;
    uint32_t sig = t->sig_rank ? mb_vec_i32(b, t->sig, (uint32_t)t->sig_rank) : 0;
    uint32_t quant = 0;
    if (t->has_quant) {
        uint32_t scale = mb_vec(b, t->scale, (uint32_t)t->nscale, 4, 4);
        uint32_t zp = mb_vec(b, t->zp, (uint32_t)t->nzp, 8, 8);
        mb_start(b);
        mb_ref(b, 2, scale);
        mb_ref(b, 3, zp);
        mb_scalar(b, 6, (uint32_t)t->qdim, 4);
        if (t->details_type)
            mb_scalar(b, 4, t->details_type, 1);
        quant = mb_end(b);
    }
    mb_start(b);
    mb_ref(b, 0, shape);
    mb_scalar(b, 1, (uint8_t)t->type, 1);
    mb_scalar(b, 2, t->buffer, 4);
    mb_ref(b, 3, name);
    mb_ref(b, 4, quant);
    if (t->is_variable)
        mb_scalar(b, 5, 1, 1);
    mb_ref(b, 7, sig);
    *name_ref = name;
    *shape_ref = shape;
    *quant_ref = quant;
    return mb_end(b);
}

static inline uint32_t mb_build_op(mb *b, const mb_op *o, uint32_t *inputs_ref)
{
    uint32_t in = mb_vec_i32(b, o->in, (uint32_t)o->nin);
    uint32_t out = mb_vec_i32(b, o->out, (uint32_t)o->nout);
    uint32_t inter = o->ninter ? mb_vec_i32(b, o->inter, (uint32_t)o->ninter) : 0;
    uint32_t custom = o->ncustom ? mb_vec(b, o->custom, (uint32_t)o->ncustom, 1, 1) : 0;
    uint32_t opt = 0, opt2 = 0;
    if (o->has_opt) {
        uint32_t vec = o->nvec ? mb_vec_i32(b, o->vec, (uint32_t)o->nvec) : 0;
        mb_start(b);
        if (vec)
            mb_ref(b, 0, vec);
        else
            mb_scalar(b, 0, (uint32_t)o->opt_field0, 4);
        opt = mb_end(b);
    }
    if (o->has_opt2) {
        mb_start(b);
        mb_scalar(b, 0, 7, 4);
        opt2 = mb_end(b);
    }
    mb_start(b);
    mb_scalar(b, 0, o->opcode, 4);
    mb_ref(b, 1, in);
    mb_ref(b, 2, out);
    if (o->opt_type)
        mb_scalar(b, 3, o->opt_type, 1);
    mb_ref(b, 4, opt);
    mb_ref(b, 5, custom);
    mb_ref(b, 8, inter);
    if (o->large_offset) {
        mb_scalar(b, 9, o->large_offset, 8);
        mb_scalar(b, 10, o->large_size, 8);
    }
    if (o->opt2_type)
        mb_scalar(b, 11, o->opt2_type, 1);
    mb_ref(b, 12, opt2);
    *inputs_ref = in;
    return mb_end(b);
}

static inline uint32_t mb_build_opcode(mb *b, const mb_opcode *c)
{
    uint32_t custom = c->custom ? mb_string(b, c->custom) : 0;
    mb_start(b);
    mb_scalar(b, 0, (uint8_t)c->deprecated, 1);
    mb_ref(b, 1, custom);
    if (c->version)
        mb_scalar(b, 2, (uint32_t)c->version, 4);
    mb_scalar(b, 3, (uint32_t)c->code, 4);
    return mb_end(b);
}

static inline uint32_t mb_build_buffer(mb *b, const mb_buffer *x, uint32_t *data_ref)
{
    uint32_t data = x->n ? mb_vec(b, x->data, x->n, 1, 16) : 0;
    mb_start(b);
    mb_ref(b, 0, data);
    if (x->offset) {
        mb_scalar(b, 1, x->offset, 8);
        mb_scalar(b, 2, x->size, 8);
    }
    *data_ref = data;
    return mb_end(b);
}

static inline uint32_t mb_build_signature(mb *b, const mb_spec *s)
{
    uint32_t name = s->sig_no_name ? 0 : mb_string(b, s->sig_in_name ? s->sig_in_name : "x");
    mb_start(b);
    mb_ref(b, 0, name);
    mb_scalar(b, 1, s->sig_in_tensor, 4);
    uint32_t map = mb_end(b);
    uint32_t maps = mb_vec_refs(b, &map, 1);
    uint32_t outs = 0;
    if (s->sig_outputs) {
        uint32_t out_name = mb_string(b, "y");
        mb_start(b);
        mb_ref(b, 0, out_name);
        mb_scalar(b, 1, s->sig_out_tensor, 4);
        uint32_t out_map = mb_end(b);
        outs = mb_vec_refs(b, &out_map, 1);
    }
    uint32_t key = s->sig_no_key ? 0 : mb_string(b, s->sig_key ? s->sig_key : "serving_default");
    mb_start(b);
    mb_ref(b, 0, maps);
    mb_ref(b, 1, outs);
    mb_ref(b, 2, key);
    mb_scalar(b, 4, s->sig_subgraph, 4);
    uint32_t sig = mb_end(b);
    return mb_vec_refs(b, &sig, 1);
}

static inline uint32_t mb_build_subgraph(mb *b, const mb_spec *s, mb_where *w, uint32_t r[32])
{
    uint32_t tensors[8], ops[4], names[8], shapes[8], quants[8], inputs[4];
    for (int i = 0; i < s->ntensors; i++)
        tensors[i] = mb_build_tensor(b, &s->tensors[i], &names[i], &shapes[i], &quants[i]);
    for (int i = 0; i < s->nops; i++)
        ops[i] = mb_build_op(b, &s->ops[i], &inputs[i]);
    uint32_t tv = mb_vec_refs(b, tensors, (uint32_t)s->ntensors);
    uint32_t in = mb_vec_i32(b, s->in, (uint32_t)s->nin);
    uint32_t out = mb_vec_i32(b, s->out, (uint32_t)s->nout);
    uint32_t ov = mb_vec_refs(b, ops, (uint32_t)s->nops);
    uint32_t name = s->sg_name ? mb_string(b, s->sg_name) : 0;
    mb_start(b);
    mb_ref(b, 0, tv);
    mb_ref(b, 1, in);
    mb_ref(b, 2, out);
    mb_ref(b, 3, ov);
    mb_ref(b, 4, name);
    uint32_t sg = mb_end(b);
    /* Refs are converted to positions once the total size is known. */
    for (int i = 0; i < s->ntensors; i++) {
        r[i] = tensors[i];
        r[8 + i] = names[i];
        r[16 + i] = shapes[i];
        r[24 + i] = quants[i];
    }
    for (int i = 0; i < s->nops; i++) {
        w->op[i] = ops[i];
        w->op_inputs[i] = inputs[i];
    }
    w->tensors_vec = tv;
    return sg;
}

/* Builds the spec; returns a malloc'ed copy of the model (free it) and its size in *size. */
static inline uint8_t *mb_build(const mb_spec *s, size_t *size, mb_where *w)
{
    mb b;
    mb_where local;
    uint32_t r[32] = {0}, sgs[2], codes[4], bufs[6], datas[6], metas[2];
    if (w == NULL)
        w = &local;
    memset(w, 0, sizeof *w);
    mb_init(&b);
    for (int i = 0; i < s->nbuffers; i++)
        bufs[i] = mb_build_buffer(&b, &s->buffers[i], &datas[i]);
    for (int i = 0; i < s->nopcodes; i++)
        codes[i] = mb_build_opcode(&b, &s->opcodes[i]);
    sgs[0] = mb_build_subgraph(&b, s, w, r);
    sgs[1] = sgs[0]; /* a second subgraph shares the first */
    for (int i = 0; i < s->nmeta; i++) {
        uint32_t name = mb_string(&b, s->meta[i].name);
        mb_start(&b);
        mb_ref(&b, 0, name);
        mb_scalar(&b, 1, s->meta[i].buffer, 4);
        metas[i] = mb_end(&b);
    }
    uint32_t sig = s->nsig ? mb_build_signature(&b, s) : 0;
    uint32_t bv = mb_vec_refs(&b, bufs, (uint32_t)s->nbuffers);
    uint32_t cv = mb_vec_refs(&b, codes, (uint32_t)s->nopcodes);
    uint32_t sv = mb_vec_refs(&b, sgs, (uint32_t)s->nsubgraphs);
    uint32_t mv = s->nmeta ? mb_vec_refs(&b, metas, (uint32_t)s->nmeta) : 0;
    mb_start(&b);
    mb_scalar(&b, 0, s->version, 4);
    mb_ref(&b, 1, cv);
    mb_ref(&b, 2, sv);
    mb_ref(&b, 4, bv);
    mb_ref(&b, 6, mv);
    mb_ref(&b, 7, sig);
    uint32_t root = mb_end(&b);
    mb_finish(&b, root, s->ident);

    w->root = mb_pos(&b, root);
    w->subgraph = mb_pos(&b, sgs[0]);
    w->tensors_vec = mb_pos(&b, w->tensors_vec);
    for (int i = 0; i < s->ntensors; i++) {
        w->tensor[i] = mb_pos(&b, r[i]);
        w->tensor_name[i] = r[8 + i] ? mb_pos(&b, r[8 + i]) : 0;
        w->shape[i] = mb_pos(&b, r[16 + i]);
        w->quant[i] = r[24 + i] ? mb_pos(&b, r[24 + i]) : 0;
    }
    for (int i = 0; i < s->nops; i++) {
        w->op[i] = mb_pos(&b, w->op[i]);
        w->op_inputs[i] = mb_pos(&b, w->op_inputs[i]);
    }
    for (int i = 0; i < s->nopcodes; i++)
        w->opcode[i] = mb_pos(&b, codes[i]);
    for (int i = 0; i < s->nbuffers; i++) {
        w->buffer[i] = mb_pos(&b, bufs[i]);
        w->buffer_data[i] = datas[i] ? mb_pos(&b, datas[i]) : 0;
    }
    *size = b.used + s->pad_after;
    uint8_t *out = calloc(1, *size + 1);
    memcpy(out, b.buf + MB_CAP - b.used, b.used);
    free(b.buf);
    return out;
}

#endif
