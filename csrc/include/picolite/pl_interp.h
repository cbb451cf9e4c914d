/* pl_interp.h - the interpreter: model bytes + resolver + one caller arena.
**
**   pl_interp *it; pl_error err;
**   pl_interp_options opt = pl_interp_defaults();        // greedy planner
**   opt.resolver = pl_builtin_resolver();                 // or a list of chosen kernels
**   pl_interp_create(model, model_size, &opt, arena, arena_size, &it, &err);
**   pl_interp_allocate(it);                  // init -> prepare -> plan -> head resize
**   memcpy(pl_interp_input(it, 0)->data, ...); pl_interp_invoke(it);
**
** The interpreter and all its bookkeeping live in the arena's tail: nothing is allocated
** elsewhere and there is no global state. The model bytes and the arena must outlive it.
** After a failure of allocate, only pl_interp_error() and report calls are meaningful. */
#ifndef PL_INTERP_H
#define PL_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl_kernel.h"
#include "pl_plan.h"
#include "pl_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pl_interp pl_interp;

/* A host clock for per-node profiling: returns monotonic nanoseconds. */
typedef uint64_t (*pl_timer_fn)(void *timer_ctx);

typedef struct pl_interp_options {
    pl_planner planner;
    bool preserve_all_tensors; /* linear plan: every tensor readable after invoke */
    const pl_resolver *resolver; /* required: pl_builtin_resolver() or a list resolver */
} pl_interp_options;

pl_interp_options pl_interp_defaults(void);

/* Verifies the model and bootstraps the interpreter in the arena's tail.
** err receives create's errors and, after success, every later error of this interpreter:
** it must outlive the interpreter (the host keeps the message buffer, not the arena).
** Errors: PL_ERR_MODEL (verification), PL_ERR_ARENA (err->required/available),
** PL_ERR_ARG (NULL pointers, no resolver, unknown planner). */
pl_status pl_interp_create(const void *model, size_t model_size, const pl_interp_options *opt,
                           void *arena, size_t arena_size, pl_interp **out, pl_error *err);

/* Runs the phases: eval tensors and node records in the tail, every kernel's init, every
** kernel's prepare (temp reset after each), memory planning, head resize, variable tensors.
** Errors: PL_ERR_UNSUPPORTED (op, code, version, node), PL_ERR_ARENA, PL_ERR_MODEL,
** PL_ERR_STATE (called twice). */
pl_status pl_interp_allocate(pl_interp *it);

/* Runs every node of subgraph 0 in order. PL_ERR_STATE before a successful allocate. */
pl_status pl_interp_invoke(pl_interp *it);

/* Zeroes variable tensors and calls kernels' reset. PL_ERR_STATE before allocate. */
pl_status pl_interp_reset(pl_interp *it);

/* Calls every kernel's free; the arena may be reused afterwards. */
void pl_interp_destroy(pl_interp *it);

/* The last error recorded by the interpreter or a kernel. */
const pl_error *pl_interp_error(const pl_interp *it);

/* Per-node profiling, owned by the host: invoke stores node i's duration in node_ns[i]
** for i < node_count. The struct must outlive its use; NULL turns profiling off. */
typedef struct pl_profiler {
    pl_timer_fn timer;
    void *timer_ctx;
    uint64_t *node_ns;
    uint32_t node_count;
} pl_profiler;

pl_status pl_interp_set_profiler(pl_interp *it, const pl_profiler *profiler);

/* --- model structure (valid after create) --- */
uint32_t pl_interp_tensor_count(const pl_interp *it);
uint32_t pl_interp_node_count(const pl_interp *it);
uint32_t pl_interp_input_count(const pl_interp *it);
uint32_t pl_interp_output_count(const pl_interp *it);
/* Tensor index of subgraph input/output i, or -1 when out of range. */
int32_t pl_interp_input_index(const pl_interp *it, uint32_t i);
int32_t pl_interp_output_index(const pl_interp *it, uint32_t i);

/* Everything about one tensor. data is NULL when it has no memory (before allocate, or an
** intermediate whose memory is shared and not preserved: then shared is true). */
typedef struct pl_tensor_info {
    const char *name; /* not NUL-terminated: name_len bytes */
    uint32_t name_len;
    pl_type type;
    int32_t ndims;
    int32_t dims[PL_MAX_DIMS];
    int32_t ndims_signature;
    int32_t dims_signature[PL_MAX_DIMS];
    void *data;
    size_t bytes;
    bool is_constant;
    bool is_variable;
    bool shared; /* planned in the head, may be overwritten by a later node */
    pl_vec scale;      /* float32 view */
    pl_vec zero_point; /* int64 view */
    int32_t quantized_dimension;
} pl_tensor_info;

pl_status pl_interp_tensor(const pl_interp *it, uint32_t index, pl_tensor_info *out);

/* Node i: its registration name, builtin code, version, and tensor lists. */
typedef struct pl_node_info {
    const char *op_name;
    int32_t builtin_code;
    int32_t version;
    pl_vec inputs;
    pl_vec outputs;
    pl_vec intermediates;
} pl_node_info;

pl_status pl_interp_node(const pl_interp *it, uint32_t index, pl_node_info *out);

/* --- memory report (after allocate) --- */

typedef enum pl_category {
    PL_CAT_EVAL_TENSOR = 0,    /* 'TfLiteEvalTensor data' */
    PL_CAT_TENSOR,             /* 'Persistent TfLiteTensor data' */
    PL_CAT_TENSOR_QUANT,       /* 'Persistent TfLiteTensor quantization data' */
    PL_CAT_PERSISTENT_BUFFER,  /* 'Persistent buffer data' */
    PL_CAT_VARIABLE,           /* 'TfLiteTensor variable buffer data' */
    PL_CAT_NODE,               /* 'NodeAndRegistration struct' */
    PL_CAT_OP_DATA,            /* 'Operator runtime data' */
    PL_CAT_COUNT
} pl_category;

typedef struct pl_recording_entry {
    size_t used;      /* with alignment overhead */
    size_t requested;
    uint32_t count;
} pl_recording_entry;

typedef struct pl_recording {
    size_t total;           /* head + tail */
    size_t head;            /* planned tensors + scratch */
    size_t head_tensors;    /* bytes of the head plan that hold tensors (lower bound basis) */
    size_t head_scratch;    /* bytes of scratch buffers requested by kernels */
    size_t tail;
    size_t temp_high_water; /* largest temp section seen (prepare, planning) */
    size_t peak;            /* the exact arena bytes needed: pl_required_arena_size's answer */
    uint64_t lower_bound;   /* live-bytes lower bound of the head */
    pl_planner planner;
    pl_recording_entry cat[PL_CAT_COUNT];
} pl_recording;

/* TFLM's name for a category ("TfLiteEvalTensor data", ...). */
const char *pl_category_name(pl_category cat);

pl_status pl_interp_recording(const pl_interp *it, pl_recording *out);

/* Writes TFLM's RecordingMicroAllocator text into buf (always NUL-terminated when cap > 0);
** returns the length the full text needs (like snprintf). */
size_t pl_recording_format(const pl_recording *rec, char *buf, size_t cap);

/* The planned buffers: count, then each with its tensor index (-1 for scratch). */
uint32_t pl_interp_plan_count(const pl_interp *it);
pl_status pl_interp_plan_buffer(const pl_interp *it, uint32_t i, pl_plan_buffer *out,
                                int32_t *tensor_index);

/* --- sizing --- */

/* The exact minimum arena (for a 16-byte-aligned buffer) for this model and options:
** allocation succeeds with exactly *required bytes and fails with one byte less.
** work is a scratch buffer the calculation runs in; when it is too small the call fails
** with PL_ERR_ARENA and err->required at least what is needed to get further. */
pl_status pl_required_arena_size(const void *model, size_t model_size,
                                 const pl_interp_options *opt, void *work, size_t work_size,
                                 size_t *required, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
