/* resolver.c - the fast resolver: wraps a base resolver's portable registrations and keeps
** each node's host block in a table found by the node's op data (unique in one arena). */
#include "picolite/pl_fast.h"

#include <string.h>

#include "fast/fast.h"
#include "fast/quant.h"
#include "kernels/activation/activations_fast.h"
#include "kernels/activation/gelu_fast.h"
#include "kernels/activation/logistic_tanh_fast.h"
#include "kernels/activation/prelu_fast.h"
#include "kernels/activation/softmax_fast.h"
#include "kernels/conv/batch_matmul_fast.h"
#include "kernels/conv/conv_fast.h"
#include "kernels/conv/depthwise_conv_fast.h"
#include "kernels/conv/fully_connected_fast.h"
#include "kernels/conv/transpose_conv_fast.h"
#include "kernels/elementwise/elementwise_fast.h"
#include "kernels/elementwise/math_fast.h"
#include "kernels/gather/arg_min_max_fast.h"
#include "kernels/gather/gather_fast.h"
#include "kernels/image/resize_fast.h"
#include "kernels/pool/pooling_fast.h"
#include "kernels/quant/dequantize_fast.h"
#include "kernels/recurrent/lstm_fast.h"
#include "kernels/recurrent/svdf.h"
#include "kernels/reduce/reduce_fast.h"
#include "kernels/shape/join_split_fast.h"
#include "kernels/shape/pad_fast.h"
#include "kernels/shape/slice_fast.h"
#include "kernels/shape/strided_slice_fast.h"
#include "kernels/shape/transpose_fast.h"

typedef struct fast_op {
    const pl_registration *(*portable)(void);
    pl_status (*prepare)(pl_context *ctx, pl_node *node);
    pl_status (*invoke)(pl_context *ctx, pl_node *node);
} fast_op;

static const fast_op fast_ops[PL_FAST_OP_COUNT] = {
    [PL_FAST_CONV_2D] = {pl_conv_registration, pl_fast_conv_prepare, pl_fast_conv_invoke},
    [PL_FAST_FULLY_CONNECTED] = {pl_fully_connected_registration,
                                 pl_fast_fully_connected_prepare,
                                 pl_fast_fully_connected_invoke},
    [PL_FAST_DEPTHWISE_CONV_2D] = {pl_depthwise_conv_registration, pl_fast_depthwise_prepare,
                                   pl_fast_depthwise_invoke},
    [PL_FAST_ADD] = {pl_add_registration, pl_fast_elementwise_prepare,
                     pl_fast_elementwise_invoke},
    [PL_FAST_SUB] = {pl_sub_registration, pl_fast_elementwise_prepare,
                     pl_fast_elementwise_invoke},
    [PL_FAST_MUL] = {pl_mul_registration, pl_fast_elementwise_prepare,
                     pl_fast_elementwise_invoke},
    [PL_FAST_AVERAGE_POOL_2D] = {pl_pooling_avg_registration, pl_fast_avg_pool_prepare,
                                 pl_fast_pool_invoke},
    [PL_FAST_MAX_POOL_2D] = {pl_pooling_max_registration, pl_fast_max_pool_prepare,
                             pl_fast_pool_invoke},
    [PL_FAST_SOFTMAX] = {pl_softmax_registration, pl_fast_softmax_prepare,
                         pl_fast_softmax_invoke},
    [PL_FAST_BATCH_MATMUL] = {pl_batch_matmul_registration, pl_fast_batch_matmul_prepare,
                              pl_fast_batch_matmul_invoke},
    [PL_FAST_TRANSPOSE_CONV] = {pl_transpose_conv_registration,
                                pl_fast_transpose_conv_prepare,
                                pl_fast_transpose_conv_invoke},
    [PL_FAST_HARD_SWISH] = {pl_hard_swish_registration, pl_fast_lut8_prepare,
                            pl_fast_lut8_invoke},
    [PL_FAST_LEAKY_RELU] = {pl_leaky_relu_registration, pl_fast_lut8_prepare,
                            pl_fast_lut8_invoke},
    [PL_FAST_RELU] = {pl_relu_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_RELU6] = {pl_relu6_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_RELU_N1_TO_1] = {pl_relu_n1_to_1_registration, pl_fast_lut8_prepare,
                              pl_fast_lut8_invoke},
    [PL_FAST_UNIDIRECTIONAL_SEQUENCE_LSTM] = {pl_unidirectional_sequence_lstm_registration,
                                              pl_fast_lstm_prepare, pl_fast_lstm_invoke},
    [PL_FAST_LOGISTIC] = {pl_logistic_registration, pl_fast_logistic_prepare,
                          pl_fast_logistic_tanh_invoke},
    [PL_FAST_TANH] = {pl_tanh_registration, pl_fast_tanh_prepare, pl_fast_logistic_tanh_invoke},
    [PL_FAST_GELU] = {pl_gelu_registration, pl_fast_gelu_prepare, pl_fast_logistic_tanh_invoke},
    [PL_FAST_DEQUANTIZE] = {pl_dequantize_registration, pl_fast_dequantize_prepare,
                            pl_fast_dequantize_invoke},
    [PL_FAST_PRELU] = {pl_prelu_registration, pl_fast_prelu_prepare, pl_fast_prelu_invoke},
    [PL_FAST_STRIDED_SLICE] = {pl_strided_slice_registration, pl_fast_strided_slice_prepare,
                               pl_fast_strided_slice_invoke},
    [PL_FAST_SLICE] = {pl_slice_registration, pl_fast_slice_prepare, pl_fast_slice_invoke},
    [PL_FAST_PAD] = {pl_pad_registration, pl_fast_pad_prepare, pl_fast_pad_invoke},
    [PL_FAST_PADV2] = {pl_padv2_registration, pl_fast_pad_prepare, pl_fast_pad_invoke},
    [PL_FAST_TRANSPOSE] = {pl_transpose_registration, pl_fast_transpose_prepare,
                           pl_fast_transpose_invoke},
    [PL_FAST_GATHER] = {pl_gather_registration, pl_fast_gather_prepare, pl_fast_gather_invoke},
    /* the copies along an axis: join_split.c */
    [PL_FAST_CONCATENATION] = {pl_concatenation_registration, pl_fast_join_split_prepare,
                               pl_fast_join_split_invoke},
    [PL_FAST_PACK] = {pl_pack_registration, pl_fast_join_split_prepare,
                      pl_fast_join_split_invoke},
    [PL_FAST_UNPACK] = {pl_unpack_registration, pl_fast_join_split_prepare,
                        pl_fast_join_split_invoke},
    [PL_FAST_SPLIT] = {pl_split_registration, pl_fast_join_split_prepare,
                       pl_fast_join_split_invoke},
    [PL_FAST_SPLIT_V] = {pl_split_v_registration, pl_fast_join_split_prepare,
                         pl_fast_join_split_invoke},
    [PL_FAST_RESIZE_BILINEAR] = {pl_resize_bilinear_registration,
                                 pl_fast_resize_bilinear_prepare, pl_fast_resize_invoke},
    [PL_FAST_RESIZE_NEAREST_NEIGHBOR] = {pl_resize_nearest_neighbor_registration,
                                         pl_fast_resize_nearest_prepare,
                                         pl_fast_resize_invoke},
    [PL_FAST_MEAN] = {pl_reduce_mean_registration, pl_fast_mean_prepare, pl_fast_mean_invoke},
    /* float unary math: lut8.c's float loops */
    [PL_FAST_FLOOR] = {pl_floor_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_CEIL] = {pl_ceil_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_NEG] = {pl_neg_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_SQRT] = {pl_sqrt_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_RSQRT] = {pl_rsqrt_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_SQUARE] = {pl_square_registration, pl_fast_lut8_prepare, pl_fast_lut8_invoke},
    [PL_FAST_SUM] = {pl_reduce_sum_registration, pl_fast_mean_prepare, pl_fast_mean_invoke},
    [PL_FAST_REDUCE_MAX] = {pl_reduce_max_registration, pl_fast_reduce_extreme_prepare,
                            pl_fast_reduce_extreme_invoke},
    [PL_FAST_REDUCE_MIN] = {pl_reduce_min_registration, pl_fast_reduce_extreme_prepare,
                            pl_fast_reduce_extreme_invoke},
    [PL_FAST_QUANTIZE] = {pl_quantize_registration, pl_fast_quantize_prepare,
                          pl_fast_quantize_invoke},
    [PL_FAST_ARG_MAX] = {pl_arg_max_registration, pl_fast_arg_max_prepare,
                         pl_fast_arg_max_invoke},
    [PL_FAST_ARG_MIN] = {pl_arg_min_registration, pl_fast_arg_max_prepare,
                         pl_fast_arg_max_invoke},
    /* float only: elementwise.c's loops */
    [PL_FAST_DIV] = {pl_div_registration, pl_fast_elementwise_prepare,
                     pl_fast_elementwise_invoke},
    [PL_FAST_SQUARED_DIFFERENCE] = {pl_squared_difference_registration,
                                    pl_fast_elementwise_prepare, pl_fast_elementwise_invoke},
    /* no op data: a block found by the node's index */
    [PL_FAST_MAXIMUM] = {pl_maximum_registration, pl_fast_minmax_prepare,
                         pl_fast_elementwise_invoke},
    [PL_FAST_MINIMUM] = {pl_minimum_registration, pl_fast_minmax_prepare,
                         pl_fast_elementwise_invoke},
    [PL_FAST_SVDF] = {pl_svdf_registration, pl_fast_svdf_prepare, pl_fast_svdf_invoke},
};

static const pl_registration *find(const void *self, int32_t builtin_code,
                                   const char *custom_name, uint32_t custom_len,
                                   int32_t version)
{
    const pl_fast_resolver *r = self;
    const pl_registration *reg =
        r->base->find(r->base->self, builtin_code, custom_name, custom_len, version);
    if (reg == NULL || r->isa == PL_ISA_PORTABLE)
        return reg;
    for (int i = 0; i < PL_FAST_OP_COUNT; i++)
        if (reg == fast_ops[i].portable())
            return &r->regs[i].reg;
    return reg;
}

/* Every fast prepare starts without the node's block. Blocks are found by op data, so after
** a re-allocation a node's op data may sit where another node's did, and a resized model's
** portable prepare may fold the node (running its invoke) before the fast plan is made:
** that invoke must not find the other node's block. */
static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_fast_block_drop(node);
    return pl_fast_reg_of(node)->prepare(ctx, node);
}

pl_status pl_fast_resolver_init(pl_fast_resolver *r, const pl_resolver *base,
                                const pl_host_memory *mem, pl_isa isa)
{
    if (r == NULL || base == NULL || mem == NULL || mem->alloc == NULL || mem->release == NULL ||
        !pl_fast_isa_available(isa))
        return PL_ERR_ARG;
    memset(r, 0, sizeof *r);
    r->resolver.find = find;
    r->resolver.self = r;
    r->base = base;
    r->mem = *mem;
    r->isa = isa;
    r->thread_count = 1;
    r->parallel_min_work = PL_FAST_PARALLEL_WORK;
    for (int i = 0; i < PL_FAST_OP_COUNT; i++) {
        const pl_registration *portable = fast_ops[i].portable();
        pl_fast_registration *f = &r->regs[i];
        f->reg = *portable;
        f->reg.prepare = prepare;
        f->prepare = fast_ops[i].prepare;
        f->reg.invoke = fast_ops[i].invoke;
        f->base = portable;
        f->owner = r;
    }
    return PL_OK;
}

static size_t hash(const void *key, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (capacity - 1);
}

static pl_fast_slot *lookup(const pl_fast_resolver *r, const void *key)
{
    if (r->capacity == 0)
        return NULL;
    for (size_t i = hash(key, r->capacity);; i = (i + 1) & (r->capacity - 1)) {
        pl_fast_slot *s = &r->slots[i];
        if (s->key == key || s->key == NULL)
            return s;
    }
}

/* Keeps the table at most half full: doubles it (rehashing) when needed. */
static bool reserve(pl_fast_resolver *r)
{
    if (2 * (r->used + 1) <= r->capacity)
        return true;
    size_t capacity = r->capacity ? 2 * r->capacity : 64;
    pl_fast_slot *slots = r->mem.alloc(r->mem.self, capacity * sizeof *slots);
    if (slots == NULL)
        return false;
    memset(slots, 0, capacity * sizeof *slots);
    pl_fast_slot *old = r->slots;
    size_t old_capacity = r->capacity;
    r->slots = slots;
    r->capacity = capacity;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].key != NULL)
            *lookup(r, old[i].key) = old[i];
    if (old != NULL)
        r->mem.release(r->mem.self, old);
    r->host_bytes += (capacity - old_capacity) * sizeof *slots;
    return true;
}

static void clear(pl_fast_resolver *r, pl_fast_slot *s)
{
    if (s->raw != NULL)
        r->mem.release(r->mem.self, s->raw);
    r->host_bytes -= s->bytes;
    s->raw = s->block = NULL;
    s->bytes = 0;
    s->claims = 0;
}

/* A new 64-byte-aligned block of bytes under key, in place of any it had; NULL when the
** host gives no memory (the key then has none). */
static void *slot_new(pl_fast_resolver *r, const void *key, size_t bytes)
{
    if (key == NULL || !reserve(r))
        return NULL;
    pl_fast_slot *s = lookup(r, key);
    if (s->key == NULL) {
        s->key = key;
        r->used++;
    }
    clear(r, s);
    void *raw = bytes <= SIZE_MAX - 64 ? r->mem.alloc(r->mem.self, bytes + 64) : NULL;
    if (raw == NULL)
        return NULL;
    s->raw = raw;
    s->block = (void *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    s->bytes = bytes + 64;
    r->host_bytes += s->bytes;
    return s->block;
}

void *pl_fast_block_new(const pl_node *node, size_t bytes)
{
    return slot_new(pl_fast_reg_of(node)->owner, node->user_data, bytes);
}

/* A folded tensor's key: odd, so never a node's op data (16-byte aligned). */
static const void *fold_key(int32_t index)
{
    return (const void *)(uintptr_t)(2u * (uint32_t)index + 1u);
}

void *pl_fast_fold_new(const pl_node *node, int32_t index, size_t bytes)
{
    return index >= 0 ? slot_new(pl_fast_reg_of(node)->owner, fold_key(index), bytes) : NULL;
}

/* The slot of a tensor's key (NULL: none, or no block), and its dropping. */
static pl_fast_slot *tensor_slot(const pl_node *node, const void *key)
{
    pl_fast_slot *s = lookup(pl_fast_reg_of(node)->owner, key);
    return s != NULL && s->key != NULL && s->block != NULL ? s : NULL;
}

static void tensor_slot_drop(const pl_node *node, const void *key)
{
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    pl_fast_slot *s = lookup(r, key);
    if (s != NULL && s->key != NULL)
        clear(r, s);
}

void pl_fast_fold_drop(const pl_node *node, int32_t index)
{
    if (index >= 0)
        tensor_slot_drop(node, fold_key(index));
}

/* Tensor index's folded values' slot, or NULL when it has none. */
static pl_fast_slot *fold_slot(const pl_node *node, int32_t index)
{
    return index >= 0 ? tensor_slot(node, fold_key(index)) : NULL;
}

const void *pl_fast_fold(const pl_node *node, int32_t index, size_t bytes)
{
    const pl_fast_slot *s = fold_slot(node, index);
    return s != NULL && s->bytes == bytes + 64 ? s->block : NULL;
}

void pl_fast_fold_claim(const pl_node *node, int32_t index)
{
    pl_fast_slot *s = fold_slot(node, index);
    if (s != NULL)
        s->claims++;
}

uint32_t pl_fast_fold_claims(const pl_node *node, int32_t index)
{
    const pl_fast_slot *s = fold_slot(node, index);
    return s != NULL ? s->claims : 0;
}

/* A looked-up tensor's key: 4 mod 8 (op data is 16-byte aligned, a node's index key 2 mod
** 4, a folded tensor's odd). */
static const void *table_key(int32_t index)
{
    return (const void *)(uintptr_t)(8u * (uint32_t)index + 4u);
}

/* What a lookup's output is of its input: a table of bytes, or a float function. */
typedef struct table_note {
    int32_t in;
    pl_fast_lanes_fn *fn; /* NULL: the table */
    uint8_t table[256];
} table_note;

static table_note *note_new(const pl_context *ctx, const pl_node *node, int32_t out,
                            int32_t in)
{
    if (ctx->subgraph_count > 1 || out < 0 || in < 0)
        return NULL;
    table_note *t = slot_new(pl_fast_reg_of(node)->owner, table_key(out), sizeof *t);
    if (t != NULL)
        *t = (table_note){.in = in};
    return t;
}

bool pl_fast_table_note(const pl_context *ctx, const pl_node *node, int32_t out, int32_t in,
                        const uint8_t table[256])
{
    table_note *t = note_new(ctx, node, out, in);
    if (t != NULL)
        memcpy(t->table, table, sizeof t->table);
    return t != NULL;
}

bool pl_fast_lanes_note(const pl_context *ctx, const pl_node *node, int32_t out, int32_t in,
                        pl_fast_lanes_fn *fn)
{
    table_note *t = note_new(ctx, node, out, in);
    if (t != NULL)
        t->fn = fn;
    return t != NULL;
}

void pl_fast_table_drop(const pl_node *node, int32_t out)
{
    if (out >= 0)
        tensor_slot_drop(node, table_key(out));
}

/* Tensor index's table note's slot, or NULL when it has none. */
static pl_fast_slot *table_slot(const pl_node *node, int32_t index)
{
    return index >= 0 ? tensor_slot(node, table_key(index)) : NULL;
}

/* Tensor index's note (NULL: none), *in its input. */
static const table_note *note_of(const pl_node *node, int32_t index, int32_t *in)
{
    const pl_fast_slot *s = table_slot(node, index);
    const table_note *t = s != NULL ? s->block : NULL;
    if (t != NULL)
        *in = t->in;
    return t;
}

const uint8_t *pl_fast_table_of(const pl_node *node, int32_t index, int32_t *in)
{
    const table_note *t = note_of(node, index, in);
    return t != NULL && t->fn == NULL ? t->table : NULL;
}

pl_fast_lanes_fn *pl_fast_lanes_of(const pl_node *node, int32_t index, int32_t *in)
{
    const table_note *t = note_of(node, index, in);
    return t != NULL ? t->fn : NULL;
}

void pl_fast_table_claim(const pl_node *node, int32_t index)
{
    pl_fast_slot *s = table_slot(node, index);
    if (s != NULL)
        s->claims++;
}

bool pl_fast_every_reader_claimed(pl_context *ctx, uint32_t claims, int32_t index)
{
    int32_t readers = ctx->reader_count != NULL ? ctx->reader_count(ctx, index) : -1;
    return readers > 0 && claims == (uint32_t)readers;
}

/* Asked at the first invoke after prepare: the readers' prepares come after the lookup's. */
bool pl_fast_table_unread(pl_context *ctx, const pl_node *node, uint8_t *state, int32_t out,
                          void *data, size_t bytes)
{
    if (*state == 0) {
        const pl_fast_slot *s = table_slot(node, out);
        *state = s != NULL && pl_fast_every_reader_claimed(ctx, s->claims, out) ? 1 : 2;
    }
    if (*state != 1)
        return false;
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    r->unread_tables++;
    if (r->poison_unread) /* tests: a reader of the arena's bytes would see these */
        memset(data, 0xFF, bytes);
    return true;
}

/* A node without op data: its index, 2 mod 4 (op data is 16-byte aligned, a folded tensor's
** key odd); unique in a one-subgraph model. */
static const void *node_key(const pl_node *node)
{
    return (const void *)(uintptr_t)(4u * node->index + 2u);
}

void *pl_fast_node_block_new(const pl_context *ctx, const pl_node *node, size_t bytes)
{
    if (ctx->subgraph_count > 1)
        return NULL;
    return slot_new(pl_fast_reg_of(node)->owner, node_key(node), bytes);
}

void pl_fast_node_block_drop(const pl_node *node)
{
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    pl_fast_slot *s = lookup(r, node_key(node));
    if (s != NULL && s->key != NULL)
        clear(r, s);
}

void *pl_fast_node_block(const pl_node *node)
{
    const pl_fast_slot *s = lookup(pl_fast_reg_of(node)->owner, node_key(node));
    return s != NULL && s->key != NULL ? s->block : NULL;
}

void pl_fast_block_drop(const pl_node *node)
{
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    pl_fast_slot *s = lookup(r, node->user_data);
    if (s != NULL && s->key != NULL)
        clear(r, s);
}

void *pl_fast_block(const pl_node *node)
{
    const pl_fast_slot *s = lookup(pl_fast_reg_of(node)->owner, node->user_data);
    return s != NULL && s->key != NULL ? s->block : NULL;
}

bool pl_fast_scratch_reserve(const pl_node *node, size_t bytes)
{
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    if (bytes < 64)
        bytes = 64; /* a node that asks for none still gets a pointer to offset from */
    if (bytes <= r->scratch_bytes)
        return true;
    void *raw = bytes <= SIZE_MAX - 64 ? r->mem.alloc(r->mem.self, bytes + 64) : NULL;
    if (raw == NULL)
        return false;
    if (r->scratch_raw != NULL) {
        r->mem.release(r->mem.self, r->scratch_raw);
        r->host_bytes -= r->scratch_bytes + 64;
    }
    r->scratch_raw = raw;
    r->scratch = (void *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    r->scratch_bytes = bytes;
    r->host_bytes += bytes + 64;
    return true;
}

void *pl_fast_scratch(const pl_node *node)
{
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    if (r->poison_scratch) { /* as if another node had just run: what it reads must be its own */
        static uint32_t state = 0x2545F491u;
        uint8_t *b = r->scratch;
        for (size_t i = 0; i < r->scratch_bytes; i++) {
            state = state * 1664525u + 1013904223u;
            b[i] = (uint8_t)(state >> 24);
        }
    }
    return r->scratch;
}

void pl_fast_resolver_release(pl_fast_resolver *r)
{
    for (size_t i = 0; i < r->capacity; i++)
        if (r->slots[i].key != NULL)
            clear(r, &r->slots[i]);
    if (r->slots != NULL)
        r->mem.release(r->mem.self, r->slots);
    r->slots = NULL;
    r->capacity = r->used = 0;
    if (r->scratch_raw != NULL)
        r->mem.release(r->mem.self, r->scratch_raw);
    r->scratch_raw = r->scratch = NULL;
    r->scratch_bytes = 0;
    r->host_bytes = 0;
}
