/* state.h - the interpreter's records, shared by the runtime's files (not public).
**
** Everything here lives in the arena's tail. Records hold offsets and small integers, not
** pointers, so their size is the same on a 32-bit microcontroller and a 64-bit host. */
#ifndef PL_RUNTIME_STATE_H
#define PL_RUNTIME_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "memory/arena.h"
#include "model/model.h"
#include "picolite/pl_interp.h"

/* Where an eval tensor's bytes are. */
enum { PL_LOC_NONE = 0, PL_LOC_ARENA = 1, PL_LOC_MODEL = 2 };

/* Eval tensor flags. KNOWN: a value computed at prepare, in the tail (shapes.c, ctx->fold);
** OWN_SHAPE: shape is an arena offset (a shape changed by a resize), not a model one. */
enum { PL_EVAL_CONSTANT = 1, PL_EVAL_VARIABLE = 2, PL_EVAL_PLANNED = 4, PL_EVAL_KNOWN = 8,
       PL_EVAL_OWN_SHAPE = 16 };

#define PL_NO_OFFSET UINT32_MAX

/* 12 bytes per tensor (TFLM's TfLiteEvalTensor is 24 on a 64-bit host, 12 on 32-bit). */
typedef struct pl_eval_record {
    uint32_t data;  /* offset into the arena (PL_LOC_ARENA) or the model (PL_LOC_MODEL) */
    uint32_t shape; /* offset of the shape's first dim in the model (or arena: OWN_SHAPE) */
    uint8_t loc;
    uint8_t type;
    uint8_t ndims;
    uint8_t flags;
} pl_eval_record;

/* 8 bytes per node: the registration is found through the opcode's table slot. */
typedef struct pl_node_record {
    uint32_t op_data; /* arena offset of the kernel's op data, or PL_NO_OFFSET */
    uint16_t opcode;
    uint16_t reserved;
} pl_node_record;

/* A subgraph input's shape set by pl_interp_resize_input before allocate (shapes.c). */
typedef struct pl_input_request {
    uint32_t shape; /* arena offset of the dims */
    uint8_t ndims;
    uint8_t set;
    uint16_t reserved;
} pl_input_request;

typedef struct pl_scratch_record {
    uint32_t bytes;
    uint32_t offset; /* head offset, set by the plan */
    int32_t node;
} pl_scratch_record;

/* The recording counters, compact: the report widens them. */
typedef struct pl_counts {
    uint32_t cat[PL_CAT_COUNT][3]; /* used, requested, count */
    uint32_t lower_bound;
    uint32_t head_tensors;
    uint32_t head_scratch;
    uint8_t planner;
} pl_counts;

struct pl_interp {
    pl_model model;
    pl_subgraph sg;
    pl_arena *arena;
    pl_interp_options opt;
    pl_context ctx;
    pl_phase phase;
    bool allocated;
    bool failed;
    int32_t current_node;
    uint32_t tensor_count;
    uint32_t node_count;
    uint32_t opcode_count;
    pl_eval_record *tensors;
    pl_node_record *nodes;
    const pl_registration **regs; /* one slot per opcode, NULL until resolved */
    pl_scratch_record *scratch;   /* in the head during prepare, in the tail after */
    uint32_t scratch_count;
    pl_scratch_record *pending; /* the node being prepared's requests, in temp */
    uint32_t pending_count;
    uint32_t plan_count; /* planned tensors + scratch buffers */
    pl_input_request *requests; /* one per subgraph input once one is resized, or NULL */
    bool resized; /* an input's shape differs from the model's: shapes may change */
    const pl_profiler *profiler; /* the host's, or NULL */
    pl_counts rec;
    pl_error *err; /* the host's: messages cost the arena nothing */
};

/* --- context.c: the kernel callback table --- */

/* Fills it->ctx with the phase-checked callbacks. */
void pl_context_init(pl_interp *it);

/* Builds node index's kernel view from the model and its records. */
void pl_context_node(const pl_interp *it, uint32_t index, pl_node *out);

/* The eval view of tensor index (index must be valid). */
void pl_context_eval(const pl_interp *it, int32_t index, pl_tensor *out);

/* Records a failure of node index, prefixing the message with the node and op. */
pl_status pl_context_fail_node(pl_interp *it, uint32_t index, pl_status status,
                               const char *what);

/* "[1, 2, 3]" into buf (truncated to cap, always NUL-terminated when cap > 0). */
void pl_context_format_dims(int32_t ndims, const int32_t *dims, char *buf, size_t cap);

/* The op name of node index ("CONV_2D", or the registration's name) into buf. */
void pl_context_op_name(const pl_interp *it, uint32_t index, char *buf, size_t cap);

/* --- shapes.c: shapes that differ from the model's, values known at prepare --- */

/* ctx->set_shape after its phase and index checks: stores a shape that differs in the tail
** (only when the model was resized; otherwise the model's shape is wrong: PL_ERR_MODEL). */
pl_status pl_shapes_set(pl_interp *it, int32_t index, int32_t ndims, const int32_t *dims);

/* ctx->fold: see pl_kernel.h. */
pl_status pl_shapes_fold(pl_interp *it, pl_node *node);

/* After the eval records start: resized inputs take their requested shapes. */
void pl_shapes_apply_requests(pl_interp *it);

/* The shape pl_interp_resize_input gave tensor index (before allocate); false if none. */
bool pl_shapes_requested(const pl_interp *it, uint32_t index, int32_t *ndims, int32_t *dims);

/* --- allocator.c: the model allocation phases --- */

/* Eval tensor records and node records in the tail; constants point into the model. */
pl_status pl_alloc_start(pl_interp *it);

/* A tail allocation recorded under a category. */
pl_status pl_alloc_tail(pl_interp *it, pl_category cat, size_t bytes, size_t align,
                        void **out);

/* After a node's prepare: reset temp, move its scratch requests into the head. */
pl_status pl_alloc_finish_node(pl_interp *it);

/* Scratch records to the tail, the memory plan, the head resize, variable tensors. */
pl_status pl_alloc_finish(pl_interp *it);

/* Node-time lifetimes of tensor index as the planner saw them; false if not planned. */
bool pl_alloc_lifetime(const pl_interp *it, uint32_t index, int32_t *first, int32_t *last);

/* The offline plan's offset for tensor index, or -1 (none, or not in use). */
int32_t pl_alloc_offline_offset(const pl_interp *it, uint32_t index);

/* Whether tensor t is an input or output of subgraph 0. */
bool pl_alloc_is_io(const pl_interp *it, int32_t t);

/* Byte length of tensor index from its shape and type; 0 on overflow or unsized type. */
size_t pl_alloc_tensor_bytes(const pl_interp *it, uint32_t index);

/* The byte a variable tensor is filled with at allocation and reset: its zero point when
** int8 (as LiteRT's and TFLM's ResetVariableTensor), else 0. */
int pl_alloc_variable_fill(const pl_interp *it, uint32_t index);

#endif
