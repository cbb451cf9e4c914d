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
/* PL_LOC_RESOURCE: a RESOURCE tensor bound by VAR_HANDLE; data is the variable id and the
** tensor's bytes are the record's data field (TFLM points it at VAR_HANDLE's op data). */
enum { PL_LOC_NONE = 0, PL_LOC_ARENA = 1, PL_LOC_MODEL = 2, PL_LOC_RESOURCE = 3 };

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

/* Where a subgraph's prepare stands: a resized model prepares a subgraph that control flow
** invokes from its caller's prepare, with the caller's shapes (subgraph.c). */
enum { PL_PREPARE_NOT_YET = 0, PL_PREPARE_UNDER_WAY = 1, PL_PREPARE_DONE = 2,
       PL_PREPARE_BY_CALLER = 3 /* a callee of control flow: its caller prepares it */ };

/* 16 bytes per subgraph: where its records start in the shared arrays. */
typedef struct pl_subgraph_record {
    uint32_t tensor_base;
    uint32_t node_base;
    uint32_t prepared; /* PL_PREPARE_* */
    uint32_t reached;  /* 1 when control flow from subgraph 0 reaches it */
} pl_subgraph_record;

/* A resource variable (TFLM's MicroResourceVariable), 20 bytes: named by container and
** shared_name (model offsets of flatbuffer strings), its buffer made by the first
** ASSIGN_VARIABLE prepare that sees it. */
typedef struct pl_resource_record {
    uint32_t container;   /* PL_NO_OFFSET when the model gives none */
    uint32_t shared_name;
    uint32_t data;        /* arena offset, PL_NO_OFFSET until allocated */
    uint32_t bytes;
    int32_t fill;         /* the byte it starts from and is reset to (an int8 zero point) */
} pl_resource_record;

typedef struct pl_scratch_record {
    uint32_t bytes;
    uint32_t offset; /* head offset, set by the plan */
    int32_t node;    /* global: its subgraph's node_base + the node's index */
} pl_scratch_record;

/* The recording counters, compact: the report widens them. */
typedef struct pl_counts {
    uint32_t cat[PL_CAT_COUNT][3]; /* used, requested, count */
    uint32_t lower_bound;
    uint32_t head_tensors;
    uint32_t head_scratch;
    uint8_t planner;
} pl_counts;

/* An opcode's registration: 8 bytes on every target. */
typedef struct pl_reg_slot {
    PL_SLOT(const pl_registration *, reg);
} pl_reg_slot;

/* Deepest nesting of control flow (a subgraph invoking a subgraph ...). */
#define PL_MAX_SUBGRAPH_DEPTH 16

/* The options kept after create (create consumes the input shapes; preserve_all_tensors
** is a flag of the interpreter). */
typedef struct pl_interp_kept {
    PL_SLOT(const pl_resolver *, resolver);
    uint8_t planner; /* pl_planner */
    uint8_t arith;   /* pl_arith: the target's, for every kernel's context */
    bool fused_madd; /* the target's float multiply-adds are fused (pl_target.h) */
    uint32_t loop_budget;
} pl_interp_kept;

/* The model and current subgraph views (pointer + count pairs) at their 64-bit size. */
#define PL_MODEL_RECORD 80
#define PL_SUBGRAPH_RECORD 64
_Static_assert(sizeof(pl_model) <= PL_MODEL_RECORD && sizeof(pl_subgraph) <= PL_SUBGRAPH_RECORD,
               "model views fit their records");

struct pl_interp {
    /* slots first, then 32-bit fields, then flags: no padding holes; the same layout on
    ** 32-bit targets and 64-bit hosts (the static assert below) */
    PL_SLOT(pl_arena *, arena);
    PL_SLOT(pl_context *, ctx); /* the running call's callback table (pl_context_bind), or NULL */
    PL_SLOT(pl_eval_record *, tensors); /* the current subgraph's (pl_subgraph_select) */
    PL_SLOT(pl_node_record *, nodes);
    PL_SLOT(pl_subgraph_record *, subgraphs); /* NULL for a one-subgraph model */
    PL_SLOT(pl_eval_record *, tensor_records); /* every subgraph's, in subgraph order */
    PL_SLOT(pl_node_record *, node_records);
    PL_SLOT(pl_resource_record *, resources);
    PL_SLOT(pl_reg_slot *, regs); /* one slot per opcode, NULL until resolved */
    PL_SLOT(pl_scratch_record *, scratch); /* in the head during prepare, in the tail after */
    PL_SLOT(pl_scratch_record *, pending); /* the node being prepared's requests, in temp */
    PL_SLOT(const pl_profiler *, profiler); /* the host's, or NULL */
    /* the host's record of this interpreter, its last error and the seal of these records
    ** (integrity.c): they cost the arena nothing */
    PL_SLOT(pl_error *, err);
    union {
        pl_model model;
        PL_ALIGN8 uint8_t model_record_[PL_MODEL_RECORD];
    };
    union { /* the current subgraph: tensors, nodes and the counts below are its */
        pl_subgraph sg;
        PL_ALIGN8 uint8_t sg_record_[PL_SUBGRAPH_RECORD];
    };
    pl_interp_kept opt;
    pl_phase phase;
    int32_t current_node;
    uint32_t tensor_count;
    uint32_t node_count;
    uint32_t opcode_count;
    uint32_t current_subgraph;
    uint32_t subgraph_count;
    uint32_t depth; /* nested invoke_subgraph calls under way */
    uint32_t all_tensors; /* of every subgraph */
    uint32_t all_nodes;
    uint32_t resource_count;
    uint32_t resource_capacity; /* the model's VAR_HANDLE count bounds the variables */
    uint32_t scratch_count;
    uint32_t pending_count;
    uint32_t plan_count; /* planned tensors + scratch buffers */
    uint32_t requests; /* arena offset of one pl_input_request per subgraph input once one
                       ** is resized, or PL_NO_OFFSET */
    pl_counts rec;
    bool allocated;
    bool failed;
    bool resized; /* an input was resized or has a dynamic dim: shapes may change */
    bool preserve_all_tensors; /* linear plan, every tensor kept (no offline plan) */
    bool sizing; /* pl_required_arena_size's run: no tensor is ever read, the head not zeroed */
};
/* A new field changes this figure: keep the slots first and the 32-bit build equal to the
** host's (tests/test_arena32.py). */
_Static_assert(sizeof(pl_interp) == PL_INTERP_RECORD_BYTES,
               "the interpreter record is 448 bytes on every target");
_Static_assert(_Alignof(pl_interp) <= _Alignof(pl_interp_storage),
               "pl_interp_storage holds the record at its alignment");

/* Subgraph k's record. A one-subgraph model keeps none in the arena (it would hold bases 0,
** reached 1), so single-subgraph figures stay what they were. */
static inline pl_subgraph_record pl_subgraph_rec(const pl_interp *it, uint32_t k)
{
    pl_subgraph_record only = {0, 0, 0, 1};
    return it->subgraphs != NULL ? it->subgraphs[k] : only;
}

/* --- subgraph.c: the current subgraph and running one --- */

/* Makes subgraph k current (k < subgraph_count; records must exist for k > 0). */
void pl_subgraph_select(pl_interp *it, uint32_t k);

/* Tensor and node counts of subgraph k, from the model. */
uint32_t pl_subgraph_tensor_count(const pl_interp *it, uint32_t k);
uint32_t pl_subgraph_node_count(const pl_interp *it, uint32_t k);

/* Runs every node of subgraph k (the current one is restored after). PL_ERR_MODEL when
** the nesting passes PL_MAX_SUBGRAPH_DEPTH (a subgraph that invokes itself). */
pl_status pl_subgraph_invoke(pl_interp *it, uint32_t k);

/* The subgraphs node n of sg may invoke (IF, WHILE, CALL_ONCE), as TFLM's
** AllocationInfoBuilder reads them: *count of 0, 1 or 2 written to out. */
void pl_subgraph_callees(const pl_model *m, const pl_subgraph *sg, uint32_t n, int32_t out[2],
                         uint32_t *count);

/* Resized models: every subgraph control flow may invoke (but 0) waits for its caller. */
void pl_subgraph_mark_callees(pl_interp *it);

/* --- interp.c --- */

/* The host's poll (pl_interp_set_poll) before node n of the current subgraph: PL_ERR_STATE
** "invoke interrupted" when it asks to stop. */
pl_status pl_interp_poll(pl_interp *it, uint32_t n);

/* Runs node n of the current subgraph, after the host's poll; a failure names the node.
** PL_ABORTED passes through unrecorded: the kernel ended the invocation early (not an
** error). */
pl_status pl_interp_run_node(pl_interp *it, uint32_t n);

/* Prepares every node of the current subgraph, unless it was prepared already (its record's
** prepared state says so: control flow prepares a callee from its caller's prepare). */
pl_status pl_interp_prepare_nodes(pl_interp *it);

/* --- lifetimes.c: TFLM's allocation-scope clock over every subgraph --- */

/* first/last of every tensor (global record index) and, after them, every scratch buffer;
** -1 when unused. on_path is one scratch byte per subgraph. Refuses control flow that
** reenters a subgraph on its own call path (PL_ERR_MODEL). Subgraphs unreached from 0 are
** walked after it, each from a scope of its own, so that each can be invoked alone
** (signatures); each subgraph record's reached flag says which were. */
pl_status pl_life_mark(pl_interp *it, int32_t *first, int32_t *last, uint8_t *on_path);

/* first/last of one tensor (global index) or scratch buffer (all_tensors + s), recomputed
** without memory (reports; after a successful allocation). */
void pl_life_of(const pl_interp *it, uint32_t global, int32_t *first, int32_t *last);

/* --- resource.c: resource variables --- */

/* The table of resource variables in the tail, when the model has VAR_HANDLE ops. */
pl_status pl_resource_start(pl_interp *it);

/* Every variable back to its initial bytes (TFLM's ResetAll). */
void pl_resource_reset(pl_interp *it);

/* Fills the resource callbacks of it->ctx. */
void pl_resource_init_context(pl_context *ctx);

/* Fills the control-flow callbacks of it->ctx. */
void pl_subgraph_init_context(pl_context *ctx);

/* --- integrity.c: the seal of the arena records, kept in the host's error record --- */

#ifdef PL_NO_INTEGRITY
/* Firmware without the seal: nothing taken, nothing checked (pl_integrity_check says so). */
static inline void pl_integrity_seal(pl_interp *it) { (void)it; }
static inline void pl_integrity_reseal(pl_interp *it) { (void)it; }
static inline pl_status pl_integrity_guard(const pl_interp *it) { (void)it; return PL_OK; }
#else
/* Seals the arena records as they are now (after allocate, invoke, reset, set_profiler). */
void pl_integrity_seal(pl_interp *it);

/* After invoke or reset: the seal taken again for what they may change (kernel state). */
void pl_integrity_reseal(pl_interp *it);

/* Before a top-level invoke or reset: the seal checked, damage by status alone (it->err may
** be what was damaged). */
static inline pl_status pl_integrity_guard(const pl_interp *it)
{
    return pl_integrity_check(it, NULL);
}
#endif

/* --- context.c: the kernel callback table --- */

/* Runs fn with the kernel callback table on this call's stack (it costs the arena nothing);
** a nested call (a subgraph's invoke) keeps the outer table. */
pl_status pl_context_bind(pl_interp *it, pl_status (*fn)(pl_interp *it));

/* Builds node index's kernel view from the model and its records. */
void pl_context_node(const pl_interp *it, uint32_t index, pl_node *out);

/* The eval view of tensor index (index must be valid). */
void pl_context_eval(const pl_interp *it, int32_t index, pl_tensor *out);

/* PL_ERR_STATE naming the callback and the phases it is allowed in. */
pl_status pl_context_phase_error(pl_interp *it, const char *call, const char *allowed);

/* ctx->fail from the runtime's own callbacks. A PL_NO_MESSAGES build passes no text, as
** pl_error_set (pl_status.h): the arguments are not evaluated and the strings take no flash. */
#ifdef PL_NO_MESSAGES
#define pl_context_phase_error(it, call, allowed) \
    ((void)sizeof(pl_error_unused((call), (allowed))), pl_error_status((it)->err, PL_ERR_STATE))
#define PL_CTX_FAIL(ctx, status, ...) \
    ((void)sizeof(pl_error_unused(__VA_ARGS__)), (ctx)->fail((ctx), (status), ""))
#else
#define PL_CTX_FAIL(ctx, status, ...) (ctx)->fail((ctx), (status), __VA_ARGS__)
#endif

/* Records a failure of node index, prefixing the message with the node and op. */
pl_status pl_context_fail_node(pl_interp *it, uint32_t index, pl_status status,
                               const char *what);

/* "[1, 2, 3]" into buf (truncated to cap, always NUL-terminated when cap > 0); empty
** without a call in a PL_NO_MESSAGES build, whose messages never show it. */
void pl_context_format_dims(int32_t ndims, const int32_t *dims, char *buf, size_t cap);
#ifdef PL_NO_MESSAGES
#define pl_context_format_dims(ndims, dims, buf, cap) \
    ((void)(ndims), (void)(dims), (void)(cap), (buf)[0] = '\0')
#endif

/* The op name of node index ("CONV_2D", or the registration's name) into buf. */
void pl_context_op_name(const pl_interp *it, uint32_t index, char *buf, size_t cap);

/* --- shapes.c: shapes that differ from the model's, values known at prepare --- */

/* Whether shapes may differ from the model's (an input resized or dynamic). Never in a build
** with PL_NO_RESIZE, so the compiler drops what only a resized model runs. */
static inline bool pl_interp_resized(const pl_interp *it)
{
#ifdef PL_NO_RESIZE
    (void)it;
    return false;
#else
    return it->resized;
#endif
}

/* ctx->set_shape after its phase and index checks: stores a shape that differs in the tail
** (only when the model was resized; otherwise the model's shape is wrong: PL_ERR_MODEL). */
pl_status pl_shapes_set(pl_interp *it, int32_t index, int32_t ndims, const int32_t *dims);

/* Tensor index of the current subgraph takes these dims (stored in the tail): a resized
** model's output shapes, and the shapes control flow gives a subgraph's inputs. */
pl_status pl_shapes_take(pl_interp *it, int32_t index, int32_t ndims, const int32_t *dims);

/* ctx->fold: see pl_kernel.h. */
pl_status pl_shapes_fold(pl_interp *it, pl_node *node, bool shape_only);

/* After the eval records start: resized inputs take their requested shapes. */
pl_status pl_shapes_apply_requests(pl_interp *it);

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

/* Whether tensor t is an input or output of the current subgraph. */
bool pl_alloc_is_io(const pl_interp *it, int32_t t);

/* Byte length of tensor index from its shape and type; 0 on overflow or unsized type. */
size_t pl_alloc_tensor_bytes(const pl_interp *it, uint32_t index);

/* The byte a variable tensor is filled with at allocation and reset: its zero point when
** int8 (as LiteRT's and TFLM's ResetVariableTensor), else 0. */
int pl_alloc_variable_fill(const pl_interp *it, uint32_t index);

#endif
