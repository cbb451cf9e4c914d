/* pl_py.h - the extension's shared declarations: module state, object layouts, init hooks.
**
** One file per Python type (arena.c, interpreter.c, tensor.c), errors.c maps pl_status to
** exceptions, plan.c holds the module-level planning functions. interpreter.c keeps the
** _Interpreter's life (creation in its arena, allocate, invoke, close) and its method table;
** the methods of one job each live beside it: access.c (tensors and nodes by index),
** subgraphs.c (subgraphs, signatures), report.c (arena figures), profile.c (node times),
** tensor_io.c (set/get_tensor's short path). No C globals: types and
** exceptions live in the module state, reached with PyType_GetModuleState (the types are
** not subclassable, so Py_TYPE(self) is always the module's own type). */
#ifndef PL_PY_H
#define PL_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

#include "picolite/picolite.h"
#ifdef PL_HAVE_FAST
#include "picolite/pl_fast.h"
#endif

#if PY_VERSION_HEX < 0x030A0000 /* 3.9 lacks these two 3.10 conveniences */
static inline PyObject *
Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}

static inline int
PyModule_AddObjectRef(PyObject *m, const char *name, PyObject *value)
{
    Py_XINCREF(value);
    if (PyModule_AddObject(m, name, value) < 0) {
        Py_XDECREF(value);
        return -1;
    }
    return 0;
}
#endif

/* Before an invoke: VZEROUPPER where the CPU has AVX (pl_fast.h says why). */
static inline void
pl_py_clean_vector_state(void)
{
#ifdef PL_HAVE_FAST
    pl_fast_clean_vector_state();
#endif
}

/* Heap types are immutable where the flag exists (3.10+) and never subclassable. */
#ifdef Py_TPFLAGS_IMMUTABLETYPE
#define PL_PY_TYPE_FLAGS (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE)
#else
#define PL_PY_TYPE_FLAGS (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC)
#endif

typedef struct pl_py_state {
    PyTypeObject *arena_type;
    PyTypeObject *interp_type;
    PyTypeObject *tensor_type;
    PyObject *error;          /* picolite.Error */
    PyObject *model_error;    /* ModelError(Error, ValueError) */
    PyObject *arena_error;    /* ArenaTooSmallError(Error): .required, .available */
    PyObject *unsupported;    /* UnsupportedOpError(Error): .op_name, .node_index */
    PyObject *state_error;    /* StateError(Error, RuntimeError) */
    struct pl_py_arena *arenas; /* every live Arena (borrowed), so no two share memory */
} pl_py_state;

struct pl_py_interp;
typedef struct pl_py_custom pl_py_custom;
typedef struct pl_py_io pl_py_io;

/* A 16-byte-aligned buffer: owned (raw != NULL) or a caller's writable buffer (view.obj). */
typedef struct pl_py_arena {
    PyObject_HEAD
    void *raw;                   /* PyMem_RawMalloc block when owned */
    uint8_t *data;               /* what the runtime receives */
    size_t size;                 /* bytes at data */
    Py_buffer view;              /* the wrapped buffer, released in dealloc */
    struct pl_py_interp *owner;  /* borrowed: the live interpreter using it, or NULL */
    struct pl_py_arena *prev, *next; /* the module's list of live arenas */
} pl_py_arena;

/* Input shapes for pl_interp_options (input_shapes.c): PyMem arrays the holder frees. */
typedef struct pl_py_shapes {
    pl_input_shape *items;
    int32_t *dims; /* PL_MAX_DIMS per item */
    uint32_t count;
} pl_py_shapes;

/* The C interpreter, its model bytes and its arena, kept alive together. */
/* num_threads: at most as many as one fast resolver runs (PL_FAST_MAX_THREADS). */
#define PL_PY_MAX_THREADS 64

typedef struct pl_py_interp {
    PyObject_HEAD
    pl_interp *it;         /* NULL once closed */
    pl_error error;        /* the interpreter's error record (the C side keeps a pointer) */
    pl_py_arena *arena;    /* strong */
    Py_buffer model;       /* the model bytes, released in dealloc */
    pl_interp_options opt; /* as created: an arena error re-sizes with the same options */
    pl_interp_storage record; /* opt.storage: the interpreter's record, outside the arena */
    pl_py_shapes shapes;   /* opt.input_shapes points here */
    pl_profiler prof;      /* per-node timing; prof.node_ns is PyMem_Raw memory or NULL */
    pl_node *node_views;   /* PyMem_Raw: every node's view, kept by invoke (or NULL) */
    pl_py_custom *custom;  /* Python operators (custom_ops=), or NULL */
    pl_py_io *io;          /* subgraph 0's tensors for set/get_tensor (tensor_io.c), or NULL */
    uint32_t io_count;
    uint32_t subgraph;     /* the selected subgraph (select_subgraph) */
    int isa;               /* the kernels' instruction set (pl_isa; 0: portable) */
    int threads;           /* num_threads asked for (the fast paths' operators split) */
#ifdef PL_HAVE_FAST
    pl_fast_resolver fast; /* when isa != 0: wraps the resolver, holds the host blocks */
#endif
    uint64_t polled;       /* when the invoke's poll last ran Python's signal handlers (ns) */
    PyObject *interrupt;   /* strong: what a signal handler raised to stop an invoke, or NULL */
    bool busy;             /* a call runs without the GIL: refuse re-entry */
    bool allocated;
    Py_ssize_t exports;    /* live buffer exports of tensor memory (tensor() views) */
} pl_py_interp;

static inline pl_py_state *
pl_py_state_of(PyObject *self)
{
    return (pl_py_state *)PyType_GetModuleState(Py_TYPE(self));
}

/* errors.c */
int pl_py_errors_init(PyObject *m, pl_py_state *st);
/* Sets the exception for status (with err's message and numbers); always returns NULL. */
PyObject *pl_py_raise(pl_py_state *st, pl_status status, const pl_error *err);
/* Raises StateError with a formatted message; returns NULL. */
PyObject *pl_py_state_error(pl_py_state *st, const char *fmt, ...);
/* Parses a planner name into *out; -1 with ValueError naming the known planners. */
int pl_py_planner(pl_py_state *st, const char *name, pl_planner *out);
/* The target named name ("tflm", "litert", ...), or -1 with a ValueError listing them. */
int pl_py_target(const char *name, pl_target *out);

/* arena.c */
int pl_py_arena_init(PyObject *m, pl_py_state *st);
/* A new arena of size bytes owned by the extension. */
pl_py_arena *pl_py_arena_new(pl_py_state *st, size_t size);
/* The figures of the arena's current interpreter (zeros when it has none). */
void pl_py_arena_figures(const pl_py_arena *a, pl_recording *rec);

/* input_shapes.c: None or a sequence of (input position, dims) pairs into *out (zeroed
** first); -1 with TypeError/ValueError. */
int pl_py_shapes_parse(PyObject *obj, pl_py_shapes *out);
void pl_py_shapes_free(pl_py_shapes *s);

/* interpreter.c */
int pl_py_interp_init(PyObject *m, pl_py_state *st);
/* Checks the interpreter is open and not busy; -1 with StateError otherwise. */
int pl_py_interp_ready(pl_py_interp *self);

/* The records in the arena are as the interpreter sealed them (no exception set): its
** pointer to this object's error record first, then pl_integrity_check. */
bool pl_py_interp_intact(const pl_py_interp *self);
/* ready, allocated and no numpy views alive (tf.lite's rule), or raise and return -1 */
int pl_py_interp_invokable(pl_py_interp *self);
/* allocate_tensors() has run, or StateError naming what needed it ("%s: call ...") and -1 */
int pl_py_interp_allocated(pl_py_interp *self, const char *what);
/* Raises the error of the last C call on self (a Python operator's own exception first, an
** arena error with the exact size the model needs); always returns NULL. */
PyObject *pl_py_interp_raise(pl_py_interp *self, pl_status s);

/* access.c: _Interpreter.inputs(), outputs(), tensor_info(i), node_info(i), tensor_buffer(i),
** get_bytes(i), set_bytes(i, bytes) of the selected subgraph */
PyObject *pl_py_access_inputs(pl_py_interp *self, PyObject *ignored);
PyObject *pl_py_access_outputs(pl_py_interp *self, PyObject *ignored);
PyObject *pl_py_access_tensor_info(pl_py_interp *self, PyObject *arg);
PyObject *pl_py_access_node_info(pl_py_interp *self, PyObject *arg);
PyObject *pl_py_access_tensor_buffer(pl_py_interp *self, PyObject *arg);
PyObject *pl_py_access_get_bytes(pl_py_interp *self, PyObject *arg);
PyObject *pl_py_access_set_bytes(pl_py_interp *self, PyObject *args);

/* subgraphs.c: _Interpreter.select_subgraph(k), signatures() and the subgraphs attribute */
PyObject *pl_py_subgraphs_select(pl_py_interp *self, PyObject *arg);
PyObject *pl_py_subgraphs_signatures(pl_py_interp *self, PyObject *ignored);
PyObject *pl_py_subgraphs_get(pl_py_interp *self, void *closure);

/* report.c: _Interpreter.recording(), recording_text() and plan() after allocate_tensors() */
PyObject *pl_py_report_recording(pl_py_interp *self, PyObject *ignored);
PyObject *pl_py_report_text(pl_py_interp *self, PyObject *ignored);
PyObject *pl_py_report_plan(pl_py_interp *self, PyObject *ignored);

/* tensor.c */
int pl_py_tensor_init(PyObject *m, pl_py_state *st);
/* A buffer exporter for one tensor's memory, counted in owner->exports while exported. */
PyObject *pl_py_tensor_new(pl_py_interp *owner, void *data, size_t bytes, bool readonly);

/* tensor_io.c: _Interpreter.set_tensor(index, value) and get_tensor(index) for subgraph 0: None
** (set) or a numpy copy (get), or NotImplemented when the full Python path must run. */
PyObject *pl_py_io_set(pl_py_interp *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *pl_py_io_get(pl_py_interp *self, PyObject *arg);
/* Drops the table (close, dealloc); io_traverse visits its numpy objects. */
void pl_py_io_clear(pl_py_interp *self);
int pl_py_io_traverse(const pl_py_interp *self, visitproc visit, void *arg);

/* interrupt.c: Ctrl-C during invoke. arm sets the poll on self->it (after every create);
** reraise raises what a signal handler raised to stop the last call and returns 1 (0: none). */
int pl_py_interrupt_poll(void *self);
void pl_py_interrupt_arm(pl_py_interp *self);
int pl_py_interrupt_reraise(pl_py_interp *self);

/* profile.c: _picolite._profile(interp, runs) -> runs x nodes uint64 nanoseconds (bytes) */
PyObject *pl_py_profile(PyObject *module, PyObject *args);
/* _Interpreter.set_profiling(on) and node_ns(): the nodes' times of each later invoke */
PyObject *pl_py_profile_set(pl_py_interp *self, PyObject *arg);
PyObject *pl_py_profile_node_ns(pl_py_interp *self, PyObject *ignored);

/* batch.c: _picolite._invoke_batch(interp, inputs, input_indices, outputs, output_indices,
** reset=False) -> samples run; each buffer holds the samples of one tensor back to back. */
PyObject *pl_py_invoke_batch(PyObject *module, PyObject *args);

/* tflm_arena.c: _picolite.tflm_arena(interp, target, arena_size=0) -> a TFLM target's arena
** figures (dict); ArenaTooSmallError when arena_size is below its minimum. */
PyObject *pl_py_tflm_arena(PyObject *module, PyObject *args, PyObject *kwargs);

/* custom.c: operators written in Python (custom_ops={"Name": op}) */
/* A resolver for the operators of the dict ops (name -> object), the builtin kernels behind
** them; adapter is picolite._custom._custom_call. NULL with an exception set. */
pl_py_custom *pl_py_custom_new(PyObject *ops, PyObject *adapter);
const pl_resolver *pl_py_custom_resolver(const pl_py_custom *c);
/* Raises the exception an operator raised during the last C call and returns 1; else 0. */
int pl_py_custom_reraise(pl_py_custom *c);
int pl_py_custom_traverse(const pl_py_custom *c, visitproc visit, void *arg);
void pl_py_custom_free(pl_py_custom *c);

/* kernels.c: _builtin_kernels() for export-c */
extern PyMethodDef pl_py_kernel_methods[];

/* fast.c: kernels= */
/* "auto", "portable" or an instruction set this machine runs -> *isa; -1 with ValueError. */
int pl_py_kernels_parse(const char *name, int *isa);
/* base wrapped by the fast resolver for self->isa (set to 0 when there is none), running
** on self->threads threads; NULL with RuntimeError when they cannot start. */
const pl_resolver *pl_py_fast_resolver(pl_py_interp *self, const pl_resolver *base);
/* The arena seal's vector hash where the fast paths run on a set that has one, else NULL. */
pl_fast_seal_feed_fn *pl_py_fast_seal_feed(const pl_py_interp *self);
/* The threads the fast paths run on (1 with the portable kernels). */
int pl_py_fast_threads(const pl_py_interp *self);
/* Jobs the fast paths split over the threads so far (a test sees that they did). */
unsigned long long pl_py_fast_parallel_jobs(const pl_py_interp *self);
/* Frees the host blocks (after the C interpreter is destroyed). */
void pl_py_fast_release(pl_py_interp *self);
size_t pl_py_fast_host_bytes(const pl_py_interp *self);
const char *pl_py_kernels_name(int isa);
/* The instruction sets this machine runs: ["portable", "avx2", ...]. */
PyObject *pl_py_kernel_sets(PyObject *module, PyObject *ignored);

/* plan.c */
extern PyMethodDef pl_py_plan_methods[];
/* The exact arena size for model + opt, with scratch the extension allocates (GIL released).
** *nomem is set (and nothing raised) when that scratch could not be allocated. */
pl_status pl_py_required_size(const Py_buffer *model, const pl_interp_options *opt,
                              size_t *required, pl_error *err, int *nomem);

#endif
