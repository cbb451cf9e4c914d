/* pl_kernel.h - the kernel API: what an operator implementation sees of the runtime.
**
** A kernel is a pl_registration {init, free, prepare, invoke, reset, user_data_size}. It
** reaches the runtime only through the pl_context callback table, whose functions check the
** interpreter's phase:
**   init    (PL_PHASE_INIT)     the runtime allocates user_data_size bytes of op data; init
**                               may allocate more (ctx->alloc_persistent)
**   prepare (PL_PHASE_PREPARE)  read full tensors (ctx->get_tensor), give every output the
**                               shape computed from the inputs (ctx->set_shape: inputs may
**                               have been resized), check types, precompute quantization,
**                               request scratch (ctx->request_scratch)
**   invoke  (PL_PHASE_INVOKE)   read eval tensors (ctx->get_eval), get scratch, compute
** A callback used in the wrong phase returns PL_ERR_STATE and records why. */
#ifndef PL_KERNEL_H
#define PL_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pl_status.h"
#include "pl_target.h"
#include "pl_types.h"
#include "pl_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* BuiltinOperator CUSTOM: the operator code of every custom operator, which resolvers
** match by its name. */
#define PL_BUILTIN_CUSTOM 32

/* The largest output ctx->fold computes at prepare. */
#define PL_FOLD_MAX_BYTES 256

/* At least this many scratch requests per node are accepted. */
#define PL_MAX_SCRATCH_PER_NODE 12

typedef enum pl_phase {
    PL_PHASE_CREATED = 0,
    PL_PHASE_INIT,
    PL_PHASE_PREPARE,
    PL_PHASE_PLANNING,
    PL_PHASE_INVOKE,
    PL_PHASE_INT_SIZED_ = INT32_MAX /* 4 bytes on arm-none-eabi too (short enums) */
} pl_phase;

/* Quantization of a tensor; count == 0 means not quantized. The arrays live in the
** arena's temp section (prepare) and are valid until the node's prepare returns. Zero points
** are int64 in the file; the runtime refuses any outside int32, as TFLite reads them. */
typedef struct pl_quant {
    uint32_t count;
    int32_t quantized_dimension;
    const float *scale;
    const int32_t *zero_point;
} pl_quant;

/* One tensor struct for every phase. get_eval fills data/bytes/type/dims (q is zeroed);
** get_tensor also fills q. data is NULL for an absent optional input, and during
** prepare for tensors whose memory is not planned yet (only constants have data then).
** is_constant: the value is fixed before invoke: a model constant, or an output an earlier
** kernel computed at prepare (ctx->fold). */
/* Kernels keep these on the stack; the copies ctx->get_tensor puts in the arena's temp
** section take PL_TENSOR_TEMP_BYTES on every target, so the arena is the same on 32 bits. */
typedef struct pl_tensor {
    void *data;
    size_t bytes;
    int32_t index; /* tensor index in the subgraph, -1 for absent */
    pl_type type;
    int32_t ndims;
    int32_t dims[PL_MAX_DIMS];
    bool is_constant;
    bool is_variable;
    pl_quant q;
} pl_tensor;

/* A node as a kernel sees it. Tensor lists are views of the model: use pl_node_input(). */
typedef struct pl_node {
    uint32_t index;        /* node index in the subgraph (execution order) */
    int32_t builtin_code;  /* BuiltinOperator value, PL_BUILTIN_CUSTOM for custom ops */
    int32_t version;       /* operator code version */
    pl_vec inputs;         /* int32 tensor indices, -1 = optional and absent */
    pl_vec outputs;
    pl_vec intermediates;
    uint8_t options_type;  /* BuiltinOptions union type (0 = none) */
    pl_table options;      /* the options table: read fields with pl_table_*() */
    pl_table options2;     /* builtin_options_2 (schema field 14), for newer ops */
    pl_bytes custom_options;
    void *user_data;       /* what init stored (persistent op data), or NULL */
    /* The registration running this node. A registration a host makes at run time (a
    ** custom operator written in the host's language) embeds its pl_registration as the
    ** first member of its own struct and casts this back to reach its host object. */
    const struct pl_registration *registration;
} pl_node;

typedef struct pl_context pl_context;
typedef struct pl_registration pl_registration;

/* The callback table. impl is the runtime's; kernels never look inside. */
struct pl_context {
    void *impl;
    /* Persistent bytes from the arena tail, 16-byte aligned, zeroed; init and prepare only. */
    pl_status (*alloc_persistent)(pl_context *ctx, size_t bytes, void **out);
    /* Asks for bytes of scratch in the head during invoke; prepare only. *index is the
    ** handle for get_scratch. At least PL_MAX_SCRATCH_PER_NODE per node. */
    pl_status (*request_scratch)(pl_context *ctx, size_t bytes, int32_t *index);
    /* The scratch buffer of a handle from request_scratch; invoke only (NULL otherwise). */
    void *(*get_scratch)(pl_context *ctx, int32_t index);
    /* A full tensor (with quantization) in temp, valid until this node's prepare returns;
    ** prepare only. index -1 gives PL_ERR_ARG (check pl_node_input() >= 0 first). */
    pl_status (*get_tensor)(pl_context *ctx, int32_t index, pl_tensor **out);
    /* Fills *out with the eval view of tensor index (no quantization); prepare and invoke.
    ** index -1 fills an absent tensor (data NULL, index -1) and returns PL_OK. */
    pl_status (*get_eval)(pl_context *ctx, int32_t index, pl_tensor *out);
    /* Records an error naming the current node and op; returns status. */
    pl_status (*fail)(pl_context *ctx, pl_status status, const char *fmt, ...);
    /* Gives output tensor index the shape the kernel computed from its inputs (as TFLite's
    ** Prepare resizes it); prepare only. Every kernel calls it for every output, so shapes
    ** follow resized inputs. A shape equal to the tensor's current one costs nothing; a
    ** different one is stored in the arena tail when the model's inputs were resized, and
    ** refused otherwise (the model declares another shape). PL_ERR_MODEL for that, a
    ** constant, a rank above PL_MAX_DIMS, a negative dim or a byte count past 32 bits. */
    pl_status (*set_shape)(pl_context *ctx, int32_t index, int32_t ndims, const int32_t *dims);
    /* Values known at prepare, for shape arithmetic (SHAPE -> STRIDED_SLICE -> PACK ->
    ** RESHAPE chains). The last call of prepare, after set_shape, by a kernel whose outputs
    ** may be small integer tensors. When the runtime wants such values (the model's inputs
    ** were resized), every input is known (is_constant; with shape_only, the outputs depend
    ** on the inputs' shapes alone, as SHAPE's do, and no input value is needed) and every
    ** output is INT32 or INT64 of at most PL_FOLD_MAX_BYTES, the outputs get memory in the
    ** arena tail and the kernel's invoke runs at once (it must need no scratch and, with
    ** shape_only, read no input data); later kernels then see the outputs as constants.
    ** Otherwise it does nothing. Invoke writes the same values again. */
    pl_status (*fold)(pl_context *ctx, pl_node *node, bool shape_only);

    /* The arithmetic to reproduce where the firmwares' kernels differ (pl_target.h): read
    ** at prepare, kept in the op data. */
    pl_arith arith;
    /* Float a * b + c as one fused multiply-add (fmaf) where the target's firmware fuses it
    ** (pl_target_fused_madd); the same at prepare and invoke. Not derived from arith, since
    ** picolite's own runtime does TFLM's arithmetic unfused. */
    bool fused_madd;

    /* --- control flow (IF, WHILE, CALL_ONCE): subgraphs by model index --- */
    /* WHILE iterations left in this invoke, every WHILE node and nested loop together
    ** (pl_interp_options.loop_budget at the start of each top-level call): a loop takes one
    ** per iteration and fails when none is left. */
    uint32_t loop_budget;
    /* The model's subgraph count (0 outside a runtime, as under a test harness). */
    uint32_t subgraph_count;
    /* Subgraph k's input (output false) or output count; prepare and invoke. */
    pl_status (*subgraph_io_count)(pl_context *ctx, int32_t subgraph, bool output,
                                   uint32_t *count);
    /* The eval view of subgraph k's input or output i; prepare and invoke (data is NULL
    ** during prepare for tensors not planned yet). */
    pl_status (*subgraph_io)(pl_context *ctx, int32_t subgraph, bool output, uint32_t i,
                             pl_tensor *out);
    /* Runs every node of subgraph k; invoke only. Nesting deeper than the runtime allows
    ** (a subgraph invoking itself) fails with PL_ERR_MODEL. */
    pl_status (*invoke_subgraph)(pl_context *ctx, int32_t subgraph);

    /* --- resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) --- */
    /* Binds RESOURCE tensor output to the variable named (container, shared_name), made
    ** when new (an absent container matches any, as TFLM's FindId); its data is then the
    ** int32 variable id. Prepare only. */
    pl_status (*var_handle)(pl_context *ctx, int32_t output, pl_bytes container,
                            pl_bytes shared_name);
    /* Gives variable id a buffer of value->bytes filled with value's int8 zero point (else
    ** 0) when it has none yet; prepare only. */
    pl_status (*var_allocate)(pl_context *ctx, int32_t id, const pl_tensor *value);
    /* Variable id's buffer; invoke only. PL_ERR_MODEL when none was allocated. */
    pl_status (*var_data)(pl_context *ctx, int32_t id, void **data, size_t *bytes);

    /* --- resize: shapes a caller gives its subgraphs, shapes the model fixes --- */
    /* Prepares subgraph k now, its inputs taking the shapes of the caller's tensors (indices
    ** in the current subgraph, one per subgraph input), as TFLite's IF and WHILE resize and
    ** allocate their subgraphs in Prepare; subgraph_io then gives the shapes its outputs
    ** took. Prepare only, before any get_tensor or request_scratch of the same prepare (the
    ** subgraph's nodes reuse the temp section). When no input of the model was resized and
    ** none has a dynamic dim, subgraphs keep the model's shapes and are prepared in order:
    ** nothing happens here. PL_ERR_MODEL for a count or type that differs, a subgraph that
    ** is being prepared (recursion) and one prepared before for other shapes (one memory
    ** plan holds one shape per tensor). */
    pl_status (*prepare_subgraph)(pl_context *ctx, int32_t subgraph, pl_vec inputs);
    /* Tensor index's shape_signature in the model (-1 for the dims the converter left
    ** unknown; its shape when the model has no signature): *ndims and up to PL_MAX_DIMS
    ** dims. Prepare and invoke. A kernel whose output TFLite keeps at a fully specified
    ** signature (SLICE) checks its computed shape against it. */
    pl_status (*shape_signature)(pl_context *ctx, int32_t index, int32_t *ndims,
                                 int32_t *dims);
    /* How many node inputs of the current subgraph name tensor index (a node naming it
    ** twice counts twice); -1 when its bytes must stay as written whoever reads them: every
    ** tensor preserved, a subgraph input or output, a tensor outside the memory plan. A
    ** kernel that writes a tensor whose readers all take its values elsewhere (fast paths:
    ** a folded DEQUANTIZE) may then skip writing it. Invoke (-1 before the memory plan, as
    ** during prepare); NULL: unknown (a build without the host fast paths). */
    int32_t (*reader_count)(pl_context *ctx, int32_t index);
    /* Tensor index's bytes as get_eval gives them in .data, without the rest of the view
    ** (what a prepared node's invoke needs of an input or output whose shape it planned):
    ** NULL for -1, a tensor with no bytes anywhere or one out of range. Invoke; NULL: not
    ** offered (a build without the host fast paths). */
    void *(*tensor_data)(pl_context *ctx, int32_t index);
};

struct pl_registration {
    const char *name;      /* "CONV_2D", ... : used in messages and profiles */
    int32_t builtin_code;
    /* Each may be NULL. init runs once per node, after the op data of user_data_size, and
    ** may replace *user_data with persistent data of its own. */
    pl_status (*init)(pl_context *ctx, pl_node *node, void **user_data);
    void (*free)(pl_context *ctx, pl_node *node);
    pl_status (*prepare)(pl_context *ctx, pl_node *node);
    pl_status (*invoke)(pl_context *ctx, pl_node *node);
    /* Resets kernel state kept outside variable tensors (reset_all_variables); may be NULL. */
    pl_status (*reset)(pl_context *ctx, pl_node *node);
    /* Bytes of per-node op data the runtime allocates (persistent, zeroed) where init runs,
    ** before init, and hands over in node->user_data; 0 for none. */
    size_t user_data_size;
};

/* An op resolver: maps an operator code to a registration, NULL when unsupported. */
typedef struct pl_resolver {
    const pl_registration *(*find)(const void *self, int32_t builtin_code,
                                   const char *custom_name, uint32_t custom_len,
                                   int32_t version);
    const void *self;
} pl_resolver;

/* A resolver made of a chosen kernel list, so that a firmware links only those kernels:
**   static const pl_kernel_entry kernels[] = {{3, NULL, pl_conv_registration}, ...};
**   static const pl_kernel_list list = {kernels, 1};
**   static const pl_resolver resolver = {pl_list_resolver_find, &list};
** custom_name is NULL for builtin operators; a custom operator (PL_BUILTIN_CUSTOM) is matched
** by name. `picolite export-c` writes such a list for one model. */
typedef struct pl_kernel_entry {
    int32_t builtin_code;
    const char *custom_name;
    const pl_registration *(*get)(void);
} pl_kernel_entry;

typedef struct pl_kernel_list {
    const pl_kernel_entry *entries;
    uint32_t count;
} pl_kernel_list;

/* The find function of a list resolver; self is the pl_kernel_list. */
const pl_registration *pl_list_resolver_find(const void *self, int32_t builtin_code,
                                             const char *custom_name, uint32_t custom_len,
                                             int32_t version);

/* The init step as the runtime runs it: user_data_size bytes of op data from
** ctx->alloc_persistent into *user_data and node->user_data, then init. */
static inline pl_status pl_registration_init(const pl_registration *reg, pl_context *ctx,
                                             pl_node *node, void **user_data)
{
    *user_data = NULL;
    if (reg->user_data_size > 0) {
        PL_TRY(ctx->alloc_persistent(ctx, reg->user_data_size, user_data));
        node->user_data = *user_data;
    }
    return reg->init != NULL ? reg->init(ctx, node, user_data) : PL_OK;
}

/* Tensor index of input/output i, or -1 when i is past the end or the input is absent. */
static inline int32_t pl_node_input(const pl_node *node, uint32_t i)
{
    return i < node->inputs.n ? pl_vec_i32(node->inputs, i) : -1;
}

static inline int32_t pl_node_output(const pl_node *node, uint32_t i)
{
    return i < node->outputs.n ? pl_vec_i32(node->outputs, i) : -1;
}

/* Element i of int64 data that may be only 4-byte aligned (constants in real models are):
** memcpy is one load on every target, and well defined where a cast would not be. */
static inline int64_t pl_load_i64(const void *data, size_t i)
{
    int64_t v;
    memcpy(&v, (const uint8_t *)data + 8u * i, sizeof v);
    return v;
}

/* Prepare: gives output out (from get_tensor) the shape the kernel computed through
** ctx->set_shape, then updates the caller's copy (dims and bytes), so the rest of prepare
** reads the computed shape. dims may alias out->dims. */
static inline pl_status pl_set_output_shape(pl_context *ctx, pl_tensor *out, int32_t ndims,
                                            const int32_t *dims)
{
    PL_TRY(ctx->set_shape(ctx, out->index, ndims, dims));
    size_t bytes = pl_type_size(out->type);
    for (int32_t i = 0; i < ndims; i++)
        bytes *= (size_t)dims[i];
    memmove(out->dims, dims, sizeof(int32_t) * (size_t)ndims);
    out->ndims = ndims;
    out->bytes = bytes;
    return PL_OK;
}

/* Prepare: the output takes the shape of tensor t (elementwise ops). */
static inline pl_status pl_set_output_like(pl_context *ctx, pl_tensor *out, const pl_tensor *t)
{
    return pl_set_output_shape(ctx, out, t->ndims, t->dims);
}

/* Number of elements of a tensor view (product of dims; 1 for a scalar). */
static inline size_t pl_tensor_count(const pl_tensor *t)
{
    size_t n = 1;
    for (int32_t i = 0; i < t->ndims; i++)
        n *= (size_t)t->dims[i];
    return n;
}

#ifdef __cplusplus
}
#endif

#endif
