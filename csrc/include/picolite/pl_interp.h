/* pl_interp.h - the interpreter: model bytes + resolver + one caller arena.
**
**   static pl_interp_storage record;                      // the interpreter's own record
**   pl_interp *it; pl_error err;
**   pl_interp_options opt = pl_interp_defaults();        // greedy planner
**   opt.resolver = pl_builtin_resolver();                 // or a list of chosen kernels
**   opt.storage = &record;                                // NULL: it takes the arena's tail
**   pl_interp_create(model, model_size, &opt, arena, arena_size, &it, &err);
**   pl_interp_allocate(it);                  // init -> prepare -> plan -> head resize
**   memcpy(pl_interp_input(it, 0)->data, ...); pl_interp_invoke(it);
**
** The interpreter's record lives in opt.storage (as TFLM's MicroInterpreter is the caller's
** object), or without one in the arena's tail; all its other bookkeeping lives in the
** arena's tail: nothing is allocated elsewhere and there is no global state. The model
** bytes, the arena and the storage must outlive it. After a failure of allocate, only
** pl_interp_error() and report calls are meaningful. */
#ifndef PL_INTERP_H
#define PL_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl_kernel.h"
#include "pl_plan.h"
#include "pl_status.h"
#include "pl_target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pl_interp pl_interp;

/* Room for the interpreter's record outside the arena (a static, a member of the caller's
** object): the same size on every target, so an arena figure does not depend on it. */
#define PL_INTERP_RECORD_BYTES 448
typedef struct pl_interp_storage {
    PL_ALIGN8 unsigned char bytes[PL_INTERP_RECORD_BYTES]; /* the record's 8-byte slots */
} pl_interp_storage;

/* A host clock for per-node profiling: returns monotonic nanoseconds. */
typedef uint64_t (*pl_timer_fn)(void *timer_ctx);

/* A new shape for subgraph input `input` (pl_interp_resize_input's arguments). */
typedef struct pl_input_shape {
    uint32_t input;
    int32_t ndims;
    const int32_t *dims;
} pl_input_shape;

/* WHILE iterations one invoke may run, every WHILE node and nested loop together, before it
** fails (a hostile model must not hang the validator). */
#define PL_DEFAULT_LOOP_BUDGET 1000000u

typedef struct pl_interp_options {
    pl_planner planner;
    bool preserve_all_tensors; /* linear plan: every tensor readable after invoke */
    const pl_resolver *resolver; /* required: pl_builtin_resolver() or a list resolver */
    /* Shapes create gives the inputs through pl_interp_resize_input (not strict), read during
    ** create only; so pl_required_arena_size sizes a resized model. NULL: the model's. */
    const pl_input_shape *input_shapes;
    uint32_t input_shape_count;
    uint32_t loop_budget; /* WHILE iterations per invoke, all loops together */
    /* The firmware whose arithmetic the kernels reproduce (pl_target.h); the arena is
    ** always picolite's own. Default PL_TARGET_PICOLITE (TFLM's integer arithmetic). */
    pl_target target;
    /* Where the interpreter's record lives: the caller's storage, which then must outlive
    ** the interpreter and hold no other live one; NULL puts it in the arena's tail, which
    ** then needs PL_INTERP_RECORD_BYTES more (pl_required_arena_size counts it the same
    ** way, so size the arena with the options it will be created with). */
    pl_interp_storage *storage;
    /* A faster hash for the seal of the arena's tail (a host's vector one: pl_fast.h's
    ** pl_fast_seal_feed_for), taking four 64-bit lanes of state and n bytes; NULL: the
    ** portable one. Any function that changes a lane whenever one byte changes will do: the
    ** seal is only ever checked by the function that took it. */
    void (*seal_feed)(uint64_t lane[4], const unsigned char *bytes, size_t n);
} pl_interp_options;

pl_interp_options pl_interp_defaults(void);

/* Verifies the model and bootstraps the interpreter in opt->storage (or the arena's tail).
** err receives create's errors and, after success, every later error of this interpreter:
** it must outlive the interpreter (the host keeps the message buffer, not the arena).
** Errors: PL_ERR_MODEL (verification), PL_ERR_ARENA (err->required/available),
** PL_ERR_ARG (NULL pointers, no resolver, unknown planner). */
pl_status pl_interp_create(const void *model, size_t model_size, const pl_interp_options *opt,
                           void *arena, size_t arena_size, pl_interp **out, pl_error *err);

/* Gives subgraph input `input` a new shape (LiteRT's ResizeInputTensor), between create and
** allocate; allocate then runs every kernel's prepare on the shapes that follow from it and
** plans the arena for them. strict: only dims whose shape_signature is -1 may differ
** (ResizeInputTensorStrict). The dims are copied (into the tail: a model never resized
** costs nothing). Errors: PL_ERR_ARG (input index, rank above PL_MAX_DIMS, a negative dim,
** more than 4 GiB, strict refusal), PL_ERR_STATE (after allocate), PL_ERR_ARENA. A shape
** the model cannot take fails allocate, naming the op and the node. */
pl_status pl_interp_resize_input(pl_interp *it, uint32_t input, int32_t ndims,
                                 const int32_t *dims, bool strict);

/* Runs the phases: eval tensors and node records in the tail, every kernel's init, every
** kernel's prepare (temp reset after each), memory planning, head resize, variable tensors.
** Errors: PL_ERR_UNSUPPORTED (op, code, version, node), PL_ERR_ARENA, PL_ERR_MODEL,
** PL_ERR_STATE (called twice). */
pl_status pl_interp_allocate(pl_interp *it);

/* Runs every node of the selected subgraph (0 by default) in order. PL_ERR_STATE before a
** successful allocate. PL_ABORTED (not an error) when a kernel ended the run early, as
** TFLM's kTfLiteAbort does: the outputs of the nodes after it keep their last values. */
pl_status pl_interp_invoke(pl_interp *it);

/* Runs every node of subgraph k (a signature's subgraph, or any other), then selects the
** subgraph selected before. PL_ERR_ARG when k is out of range. */
pl_status pl_interp_invoke_subgraph(pl_interp *it, uint32_t subgraph);

/* Checks that the records the interpreter keeps in the arena (interpreter record, eval
** tensors, nodes, subgraphs, scratch buffers, op data) are as the last allocate/invoke/reset
** left them: a magic number and checksums kept in the host's error record given to
** pl_interp_create (they cost the arena nothing), cheap next to a kernel. The top-level
** invoke and reset call it first; firmware may call it between calls at any time (e.g. after
** its own code wrote near the arena). PL_ERR_STATE with a message naming what was
** overwritten in *err, the caller's own record (may be NULL): invoke reports damage by
** status alone, since the interpreter's pointer to its error record lives in the arena too.
** The interpreter must then be recreated. A build with PL_NO_INTEGRITY (firmware) takes no
** seal: this returns PL_ERR_UNSUPPORTED and invoke/reset check nothing. */
pl_status pl_integrity_check(const pl_interp *it, pl_error *err);

/* A host's interrupt check during invoke (Ctrl-C on a host, a watchdog on a device): poll is
** called with poll_ctx before every node (nested subgraphs' included) and before every run
** of a subgraph (each WHILE iteration), so it must be cheap: a flag, a clock read. Nonzero
** stops the invocation: invoke returns PL_ERR_STATE ("invoke interrupted"), the outputs are
** meaningless and the interpreter stays usable. Kept in the host's error record (it costs the
** arena nothing); create resets it, NULL turns it off. */
void pl_interp_set_poll(pl_interp *it, int (*poll)(void *poll_ctx), void *poll_ctx);

/* Memory of the host's for a copy of every node's view (pl_node, count at least
** pl_interp_node_total), after allocate: a node's first invoke fills its view, later ones
** copy it instead of reading the operator's tables again (a few hundred instructions a
** node: most of a small node's invoke). Kept in the host's error record (it costs the arena
** nothing); create resets it, NULL turns it off. PL_ERR_STATE before allocate, PL_ERR_ARG
** for too few views. */
pl_status pl_interp_set_node_views(pl_interp *it, struct pl_node *views, uint32_t count);

/* Nodes in every subgraph (after allocate; 0 before). */
uint32_t pl_interp_node_total(const pl_interp *it);

/* Calls kernels' reset, sets variable tensors and resource variables back to their initial
** bytes (zero, or an int8 tensor's zero point), as TFLM's Reset. PL_ERR_STATE before
** allocate. A CALL_ONCE that has run does not run again (TFLM keeps its has_run). */
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

/* --- model structure (valid after create) ---
** These address subgraph 0; the pl_interp_subgraph_* forms address subgraph k. */
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

/* --- subgraphs (valid after create) ---
** The structure, tensor and plan-free queries above, and pl_interp_invoke, address the
** selected subgraph: 0 unless pl_interp_select_subgraph chose another. */
uint32_t pl_interp_subgraph_count(const pl_interp *it);
uint32_t pl_interp_selected_subgraph(const pl_interp *it);
/* PL_ERR_ARG when k is out of range, PL_ERR_STATE during a call of the interpreter. */
pl_status pl_interp_select_subgraph(pl_interp *it, uint32_t k);
/* The subgraph's name ("" when it has none); not NUL-terminated: *len bytes. */
const char *pl_interp_subgraph_name(const pl_interp *it, uint32_t k, uint32_t *len);

/* --- signatures (the model's signature_defs, checked by the verifier) --- */
uint32_t pl_interp_signature_count(const pl_interp *it);

/* One signature: its key, subgraph, and input/output name counts. Strings point into the
** model and are not NUL-terminated. PL_ERR_ARG when s is out of range. */
typedef struct pl_signature_info {
    const char *key;
    uint32_t key_len;
    uint32_t subgraph;
    uint32_t input_count;
    uint32_t output_count;
} pl_signature_info;

pl_status pl_interp_signature(const pl_interp *it, uint32_t s, pl_signature_info *out);

/* Entry i of signature s's inputs (output = false) or outputs: its name and tensor index
** in the signature's subgraph. *name is NULL when the entry has no name (LiteRT leaves such
** entries out of the signature). PL_ERR_ARG when s or i is out of range. */
pl_status pl_interp_signature_io(const pl_interp *it, uint32_t s, bool output, uint32_t i,
                                 const char **name, uint32_t *name_len, int32_t *tensor);

/* --- memory report (after allocate) --- */

typedef enum pl_category {
    PL_CAT_EVAL_TENSOR = 0,    /* 'TfLiteEvalTensor data' */
    PL_CAT_TENSOR,             /* 'Persistent TfLiteTensor data' */
    PL_CAT_TENSOR_QUANT,       /* 'Persistent TfLiteTensor quantization data' */
    PL_CAT_PERSISTENT_BUFFER,  /* 'Persistent buffer data' */
    PL_CAT_VARIABLE,           /* 'TfLiteTensor variable buffer data' */
    PL_CAT_NODE,               /* 'NodeAndRegistration struct' */
    PL_CAT_OP_DATA,            /* 'Operator runtime data' */
    PL_CAT_RESOURCE,           /* 'Resource variable data': the table and its buffers */
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

/* Writes picolite's own arena report into buf (always NUL-terminated when cap > 0): TFLM's
** RecordingMicroAllocator lines headed [picolite] (they are picolite's figures, not
** TFLM's), then picolite's own; returns the length the full text needs (like snprintf). */
size_t pl_recording_format(const pl_recording *rec, char *buf, size_t cap);

/* The same lines as TFLM's RecordingMicroAllocator prints them ([RecordingMicroAllocator]),
** for figures that are TFLM's (pl_tflm.h's recording). */
size_t pl_recording_format_tflm(const pl_recording *rec, char *buf, size_t cap);

/* The planned buffers: count, then each with its tensor index (-1 for scratch) and the
** subgraph the tensor or the scratch request belongs to (subgraph may be NULL). Lifetimes
** are on the one clock of the plan (TFLM's allocation scopes over every subgraph), so
** buffers of different subgraphs compare. Not during invoke (PL_ERR_STATE). */
uint32_t pl_interp_plan_count(const pl_interp *it);
pl_status pl_interp_plan_buffer(pl_interp *it, uint32_t i, pl_plan_buffer *out,
                                int32_t *tensor_index, uint32_t *subgraph);

/* --- sizing --- */

/* The exact minimum arena (for a 16-byte-aligned buffer) for this model and options
** (opt->input_shapes: with those inputs resized):
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
