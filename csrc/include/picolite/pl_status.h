/* pl_status.h - status codes and the error record every fallible call fills. */
#ifndef PL_STATUS_H
#define PL_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0 is success; every error is negative. No errno, no longjmp. PL_ABORTED is neither: a
** kernel ended the invocation early on purpose (TFLM's kTfLiteAbort, e.g. a CIRCULAR_BUFFER
** between its runs); the nodes after it did not run and nothing failed. */
typedef enum pl_status {
    PL_ABORTED = 1,
    PL_OK = 0,
    PL_ERR_MODEL = -1,        /* the model file is malformed or inconsistent */
    PL_ERR_ARENA = -2,        /* the arena is too small: see pl_error.required */
    PL_ERR_UNSUPPORTED = -3,  /* an op, type or parameter picolite does not run */
    PL_ERR_STATE = -4,        /* a call in the wrong phase or order */
    PL_ERR_ARG = -5           /* a bad argument from the caller */
} pl_status;

#define PL_ERROR_CAPACITY 256
#define PL_OP_NAME_CAPACITY 48

/* The seal of an interpreter's records in its arena (runtime/integrity.c): checksums taken
** after each allocate/invoke/reset, kept in the host's memory so that they cost the arena
** nothing and a stray write into the arena cannot forge them. Opaque to callers. */
typedef struct pl_seal {
    const void *owner; /* the sealed interpreter record, NULL when nothing is sealed */
    const unsigned char *low;  /* the sealed tail: [low, high) of the arena (variable tensors */
    const unsigned char *high; /* lower down), the record left out where it lies inside */
    uint32_t magic;
    uint32_t record;    /* the interpreter record, the current subgraph's selection left out */
    uint32_t tensors;   /* eval tensor records of every subgraph */
    uint32_t nodes;     /* node records of every subgraph */
    uint32_t subgraphs; /* subgraph records */
    uint32_t scratch;   /* scratch buffer records */
    uint32_t regs;      /* the registration table */
    uint32_t tail;      /* the whole sealed tail but the record: op data, buffers, arena */
} pl_seal;

/* The host-side record of an interpreter: its last error and the seal of its arena records.
** Filled by the call that fails; the message names the table, field, index and numbers.
** required/available are set for PL_ERR_ARENA (required is 0 when not yet known);
** node and op_name for errors raised while a node is being set up or run. */
typedef struct pl_error {
    pl_status status;
    size_t required;
    size_t available;
    int32_t node;
    char op_name[PL_OP_NAME_CAPACITY];
    char msg[PL_ERROR_CAPACITY];
    pl_seal seal; /* pl_interp_create resets it; pl_error_clear keeps it */
    /* the host's interrupt check during invoke (pl_interp_set_poll); create resets it,
    ** pl_error_clear keeps it */
    int (*poll)(void *poll_ctx);
    void *poll_ctx;
    /* the seal's hash of the arena's tail (pl_interp_options.seal_feed; create sets it) */
    void (*seal_feed)(uint64_t lane[4], const unsigned char *bytes, size_t n);
    /* the host's copy of every node's view (pl_interp_set_node_views); create resets it */
    struct pl_node *node_views;
} pl_error;

/* Propagate a failure to the caller. */
#define PL_TRY(expr)                      \
    do {                                  \
        pl_status pl_try_s_ = (expr);     \
        if (pl_try_s_ != PL_OK) {         \
            return pl_try_s_;             \
        }                                 \
    } while (0)

/* Resets err to "no error" (node -1, empty message); the seal is kept. */
void pl_error_clear(pl_error *err);

/* Formats the message into err (printf subset: %d %i %u %ld %lu %lld %llu %zu %x %s %c %g %%),
** sets err->status = status and returns status, so callers can `return pl_error_set(...)`.
** err may be NULL, then only status is returned. */
pl_status(pl_error_set)(pl_error *err, pl_status status, const char *fmt, ...);

/* Sets err->status = status with an empty message; returns status (err may be NULL). */
pl_status pl_error_status(pl_error *err, pl_status status);

#ifdef PL_NO_MESSAGES
/* A device build without message text: the format and its arguments are not evaluated (only
** sizeof sees them, so they still count as used), and the strings take no flash.
** Statuses and err->required/available stay exact. pl_error_unused is never defined. */
int pl_error_unused(const char *fmt, ...);
/* pl_error_status, inline so that the compiler sees the status come back: it then knows a
** failing callee returns nonzero (no "maybe uninitialized" in optimized builds). */
static inline pl_status pl_error_status_inline(pl_error *err, pl_status status)
{
    pl_error_status(err, status);
    return status;
}
#define pl_error_set(err, status, ...) \
    ((void)sizeof(pl_error_unused(__VA_ARGS__)), pl_error_status_inline((err), (status)))
#endif

/* A short stable name for a status ("ok", "model", "arena", ...). */
const char *pl_status_name(pl_status status);

#ifdef __cplusplus
}
#endif

#endif
