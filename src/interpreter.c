/* interpreter.c - picolite._Interpreter: the C interpreter, its model bytes and its arena.
**
** The Python class picolite.Interpreter wraps this type and turns its plain values into
** tf.lite's dicts and numpy arrays. Here: lifetimes (model bytes held as a Py_buffer, the
** arena held strongly and marked as owned), the GIL released around allocate and invoke
** with a busy flag against re-entry, the export count that refuses invoke while numpy
** views of tensor memory are alive, the checks every method makes first, and the type's
** method table. The methods that read the interpreter live in access.c, subgraphs.c,
** report.c and profile.c (see pl_py.h). */
#include "pl_py.h"

#include <string.h>

/* tf.lite's wording, so code that catches it keeps working. */
#define VIEWS_ALIVE "There is at least 1 reference to internal data in the interpreter in " \
    "the form of a numpy array or slice. Be sure to only hold the function returned from " \
    "tensor() if you are using raw data access."

/* Records damaged through the arena's memory (a wrapped buffer written from Python) must not
** steer a copy or a kernel: every use of an allocated interpreter checks them first, with the
** error record kept here, which also holds their seal. The interpreter's pointer to it lives
** in the arena, so it is compared before the check follows it. */
static int
check_intact(pl_py_interp *self)
{
    if (!self->allocated)
        return 0;
    pl_status s = pl_interp_error(self->it) == &self->error
                  ? pl_integrity_check(self->it, &self->error)
                  : pl_error_set(&self->error, PL_ERR_STATE, "arena damaged: the interpreter "
                                 "record (its pointer to the host's record) in the arena's "
                                 "tail overwritten since the last allocate/invoke/reset (the "
                                 "arena's memory was written from outside the interpreter); "
                                 "create a new interpreter");
    if (s != PL_OK) {
        pl_py_raise(pl_py_state_of((PyObject *)self), s, &self->error);
        return -1;
    }
    return 0;
}

bool
pl_py_interp_intact(const pl_py_interp *self)
{
    return pl_interp_error(self->it) == &self->error &&
           pl_integrity_check(self->it, NULL) == PL_OK;
}

static int
check_open(pl_py_interp *self)
{
    pl_py_state *st = pl_py_state_of((PyObject *)self);
    if (self->it == NULL) {
        pl_py_state_error(st, "the interpreter is closed");
        return -1;
    }
    if (self->busy) {
        pl_py_state_error(st, "the interpreter is busy in another thread (allocate_tensors "
                          "or invoke is running)");
        return -1;
    }
    return 0;
}

int
pl_py_interp_ready(pl_py_interp *self)
{
    return check_open(self) < 0 ? -1 : check_intact(self);
}

static int
check_no_views(pl_py_interp *self)
{
    if (self->exports > 0) {
        pl_py_state_error(pl_py_state_of((PyObject *)self), VIEWS_ALIVE);
        return -1;
    }
    return 0;
}

#define ALIGN 16u

/* Bytes a wrapped buffer loses before its first 16-byte boundary, where the arena starts. */
static size_t
misalignment_slack(const pl_py_arena *a)
{
    return (ALIGN - (uintptr_t)a->data % ALIGN) % ALIGN;
}

/* The runtime's err->required for a failed tail allocation is what would get past that one
** allocation; users want the size that makes the whole allocation succeed. The model and
** options are at hand, so the exact figure is one sizing run away: report that. */
static PyObject *
raise_error(pl_py_interp *self, pl_status s, const pl_error *err)
{
    pl_py_state *st = pl_py_state_of((PyObject *)self);
    if (s != PL_ERR_ARENA)
        return pl_py_raise(st, s, err);
    pl_error exact, e = *err;
    size_t required = 0;
    int nomem = 0;
    if (pl_py_required_size(&self->model, &self->opt, &required, &exact, &nomem) == PL_OK) {
        size_t slack = misalignment_slack(self->arena);
        if (required + slack > self->arena->size) {
            char why[128] = "";
            if (slack > 0)
                PyOS_snprintf(why, sizeof why, " from a 16-byte boundary (the wrapped buffer "
                              "starts %zu bytes past one, so it must hold %zu bytes)",
                              ALIGN - slack, required + slack);
            if (required != e.required || slack > 0)
                pl_error_set(&e, PL_ERR_ARENA, "%s; the model needs an arena of %zu bytes%s",
                             err->msg, required, why);
            e.required = required + slack;
        }
    }
    return pl_py_raise(st, s, &e);
}

/* Creating verifies the model: release the GIL for it, the arena is already marked ours.
** self->error outlives the C interpreter, which records every later error there. */
static int
create(pl_py_interp *self, pl_planner planner, int preserve, unsigned long loop_budget,
       pl_target target)
{
    self->opt = pl_interp_defaults();
    self->opt.target = target;
    self->opt.storage = &self->record; /* as a firmware keeps it: a static, not the arena */
    self->opt.resolver = pl_builtin_resolver();
    self->opt.planner = planner;
    self->opt.preserve_all_tensors = preserve != 0;
    self->opt.loop_budget = (uint32_t)loop_budget;
    self->opt.input_shapes = self->shapes.items;
    self->opt.input_shape_count = self->shapes.count;
    if (self->custom != NULL)
        self->opt.resolver = pl_py_custom_resolver(self->custom);
    self->opt.resolver = pl_py_fast_resolver(self, self->opt.resolver);
    if (self->opt.resolver == NULL)
        return -1;
    self->opt.seal_feed = pl_py_fast_seal_feed(self);
    pl_error *err = &self->error;
    pl_error_clear(err);
    pl_py_arena *a = self->arena;
    pl_status s;
    /* checked here, with no Python code between the check and the claim */
    if (a->owner != NULL) {
        pl_py_state_error(pl_py_state_of((PyObject *)self),
                          "arena is in use by another interpreter");
        return -1;
    }
    a->owner = self;
    Py_BEGIN_ALLOW_THREADS
    s = pl_interp_create(self->model.buf, (size_t)self->model.len, &self->opt, a->data,
                         a->size, &self->it, err);
    Py_END_ALLOW_THREADS
    if (s != PL_OK) {
        a->owner = NULL;
        self->it = NULL;
        raise_error(self, s, err);
        return -1;
    }
    pl_py_interrupt_arm(self); /* Ctrl-C stops a long invoke (interrupt.c) */
    return 0;
}

/* WHILE iterations per invoke: an integer in 1..2^32-1 (a float, -1 or 2^64 named as given,
** never wrapped or truncated). */
static int
parse_loop_budget(PyObject *obj, unsigned long *out)
{
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "loop_budget must be an integer, got %s %R",
                     Py_TYPE(obj)->tp_name, obj);
        return -1;
    }
    PyObject *n = PyNumber_Index(obj);
    if (n == NULL)
        return -1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    if (!(v == -1 && PyErr_Occurred()) && (overflow != 0 || v < 1 || v > UINT32_MAX))
        PyErr_Format(PyExc_ValueError, "loop_budget must be in 1..%lu (WHILE iterations per "
                     "invoke), got %R", (unsigned long)UINT32_MAX, n);
    Py_DECREF(n);
    if (PyErr_Occurred())
        return -1;
    *out = (unsigned long)v;
    return 0;
}

static PyObject *
interp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"model", "arena", "planner", "preserve_all_tensors",
                             "loop_budget", "input_shapes", "custom_ops", "custom_adapter",
                             "kernels", "target", "num_threads", NULL};
    pl_py_state *st = PyType_GetModuleState(type);
    PyObject *model = NULL, *arena = NULL, *shapes = Py_None, *custom_ops = Py_None;
    PyObject *adapter = Py_None;
    const char *planner_name = "greedy", *kernels = "auto", *target_name = "tflm";
    int preserve = 0;
    PyObject *budget = NULL;
    unsigned long loop_budget = PL_DEFAULT_LOOP_BUDGET;
    pl_planner planner;
    pl_target target;
    int isa = 0, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!|spOOOOssi:_Interpreter", kwlist, &model,
                                     st->arena_type, &arena, &planner_name, &preserve,
                                     &budget, &shapes, &custom_ops, &adapter, &kernels,
                                     &target_name, &threads))
        return NULL;
    if (threads < 1 || threads > PL_PY_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "num_threads must be in 1..%d, got %d",
                     PL_PY_MAX_THREADS, threads);
        return NULL;
    }
    if (pl_py_target(target_name, &target) < 0)
        return NULL;
    if (pl_py_kernels_parse(kernels, &isa) < 0)
        return NULL;
    if (budget != NULL && parse_loop_budget(budget, &loop_budget) < 0)
        return NULL;
    if (pl_py_planner(st, planner_name, &planner) < 0)
        return NULL;
    pl_py_interp *self = PyObject_GC_New(pl_py_interp, type);
    if (self == NULL)
        return NULL;
    self->it = NULL;
    self->io = NULL;
    self->io_count = 0;
    self->subgraph = 0;
    self->busy = false;
    self->allocated = false;
    self->exports = 0;
    self->polled = 0;
    self->interrupt = NULL;
    memset(&self->prof, 0, sizeof self->prof);
    self->node_views = NULL;
    self->arena = (pl_py_arena *)Py_NewRef(arena);
    self->custom = NULL;
    self->isa = isa;
    self->threads = threads;
#ifdef PL_HAVE_FAST
    memset(&self->fast, 0, sizeof self->fast); /* released in dealloc even if never made */
#endif
    memset(&self->model, 0, sizeof self->model);
    memset(&self->shapes, 0, sizeof self->shapes);
    PyObject_GC_Track(self);
    if (custom_ops != Py_None &&
        (self->custom = pl_py_custom_new(custom_ops, adapter)) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    if (PyObject_GetBuffer(model, &self->model, PyBUF_SIMPLE) < 0 ||
        pl_py_shapes_parse(shapes, &self->shapes) < 0 ||
        create(self, planner, preserve, loop_budget, target) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* Destroys the C interpreter and frees the arena for another one. */
static void
shut(pl_py_interp *self)
{
    pl_py_io_clear(self);
    if (self->it != NULL) {
        /* kernels' free callbacks are found through the records: not when those are damaged */
        if (pl_py_interp_intact(self))
            pl_interp_destroy(self->it);
        self->it = NULL;
    }
    pl_py_fast_release(self); /* after destroy: kernels' free may not touch host blocks */
    if (self->arena != NULL && self->arena->owner == self)
        self->arena->owner = NULL;
    PyMem_RawFree(self->prof.node_ns);
    memset(&self->prof, 0, sizeof self->prof);
    PyMem_RawFree(self->node_views); /* after destroy: the record no longer points here */
    self->node_views = NULL;
}

static int
interp_traverse(pl_py_interp *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->arena);
    Py_VISIT(self->model.obj);
    Py_VISIT(self->interrupt);
    int r = pl_py_io_traverse(self, visit, arg);
    return r != 0 ? r : pl_py_custom_traverse(self->custom, visit, arg);
}

static int
interp_clear(pl_py_interp *self)
{
    shut(self);
    pl_py_custom_free(self->custom); /* after shut: the interpreter resolved through it */
    self->custom = NULL;
    Py_CLEAR(self->arena);
    Py_CLEAR(self->interrupt);
    if (self->model.obj != NULL)
        PyBuffer_Release(&self->model);
    pl_py_shapes_free(&self->shapes);
    return 0;
}

static void
interp_dealloc(pl_py_interp *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    interp_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

PyObject *
pl_py_interp_raise(pl_py_interp *self, pl_status s)
{
    if (pl_py_custom_reraise(self->custom)) /* a Python operator's own exception */
        return NULL;
    if (pl_py_interrupt_reraise(self)) /* a signal handler's (Ctrl-C) */
        return NULL;
    return raise_error(self, s, &self->error); /* the record create gave the interpreter */
}

/* Runs fn without the GIL; busy makes every other call on this object fail meanwhile. */
static pl_status
run_unlocked(pl_py_interp *self, pl_status (*fn)(pl_interp *))
{
    pl_status s;
    self->busy = true;
    Py_BEGIN_ALLOW_THREADS
    s = fn(self->it);
    Py_END_ALLOW_THREADS
    self->busy = false;
    return s;
}

static PyObject *
interp_allocate(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0 || check_no_views(self) < 0)
        return NULL;
    if (self->allocated) /* tf.lite allows calling it again: the plan does not change */
        Py_RETURN_NONE;
    pl_status s = run_unlocked(self, pl_interp_allocate);
    if (s != PL_OK)
        return pl_py_interp_raise(self, s);
    self->allocated = true;
    /* invoke then copies each node's view instead of reading the model's tables: no memory
    ** for them only costs that speed */
    uint32_t nodes = pl_interp_node_total(self->it);
    /* uninitialized: pl_interp_set_node_views zeroes them */
    self->node_views = PyMem_RawMalloc((nodes > 0 ? nodes : 1) * sizeof(pl_node));
    if (self->node_views != NULL)
        pl_interp_set_node_views(self->it, self->node_views, nodes);
    Py_RETURN_NONE;
}

int
pl_py_interp_allocated(pl_py_interp *self, const char *what)
{
    if (!self->allocated) {
        pl_py_state_error(pl_py_state_of((PyObject *)self),
                          "%s: call allocate_tensors() first", what);
        return -1;
    }
    return 0;
}

/* LiteRT's words first, so code matching them keeps working. */
static int
check_invoke_ready(pl_py_interp *self)
{
    if (!self->allocated) {
        pl_py_state_error(pl_py_state_of((PyObject *)self), "Invoke called on model that "
                          "is not ready (picolite: call allocate_tensors() first)");
        return -1;
    }
    return 0;
}

int
pl_py_interp_invokable(pl_py_interp *self)
{
    if (pl_py_interp_ready(self) < 0 || check_invoke_ready(self) < 0 ||
        check_no_views(self) < 0)
        return -1;
    return 0;
}

/* pl_interp_invoke checks the seal itself, once: here only its pointer to this object's
** record is compared first (the check follows it). A failed check left the records as they
** were, so check_intact names the damage on the way out. */
static PyObject *
interp_invoke(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (check_open(self) < 0 ||
        (pl_interp_error(self->it) != &self->error && check_intact(self) < 0) ||
        check_invoke_ready(self) < 0 || check_no_views(self) < 0)
        return NULL;
    pl_py_clean_vector_state();
    pl_status s = run_unlocked(self, pl_interp_invoke);
    if (s != PL_OK && s != PL_ABORTED)
        return check_intact(self) < 0 ? NULL : pl_py_interp_raise(self, s);
    return PyBool_FromLong(s == PL_OK); /* False: a kernel ended the run early (TFLM's abort) */
}

static PyObject *
interp_reset(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0 || pl_py_interp_allocated(self, "reset") < 0)
        return NULL;
    pl_status s = pl_interp_reset(self->it);
    if (s != PL_OK)
        return pl_py_interp_raise(self, s);
    Py_RETURN_NONE;
}

static PyObject *
interp_close(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (self->it == NULL)
        Py_RETURN_NONE;
    if (pl_py_interp_ready(self) < 0 || check_no_views(self) < 0)
        return NULL;
    shut(self);
    Py_RETURN_NONE;
}

/* --- attributes --- */

static PyObject *
get_counts(pl_py_interp *self, void *Py_UNUSED(c))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    return Py_BuildValue("(II)", pl_interp_tensor_count(self->it),
                         pl_interp_node_count(self->it));
}

static PyObject *
get_flag(pl_py_interp *self, void *which)
{
    const char *w = which;
    if (w[0] == 'a')
        return PyBool_FromLong(self->allocated);
    if (w[0] == 'c')
        return PyBool_FromLong(self->it == NULL);
    return PyBool_FromLong(self->busy);
}

static PyObject *
get_exports(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromSsize_t(self->exports);
}

static PyObject *
get_arena(pl_py_interp *self, void *Py_UNUSED(c))
{
    if (self->arena == NULL)
        Py_RETURN_NONE;
    return Py_NewRef((PyObject *)self->arena);
}

static PyObject *
get_model_size(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromSsize_t(self->model.len);
}

static PyObject *
get_kernels(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyUnicode_FromString(pl_py_kernels_name(self->isa));
}

static PyObject *
get_num_threads(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromLong(pl_py_fast_threads(self));
}

static PyObject *
get_parallel_jobs(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromUnsignedLongLong(pl_py_fast_parallel_jobs(self));
}

static PyObject *
get_host_bytes(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromSize_t(pl_py_fast_host_bytes(self));
}

static PyGetSetDef interp_getset[] = {
    {"subgraphs", (getter)pl_py_subgraphs_get, NULL, "(subgraph count, selected subgraph).",
     NULL},
    {"counts", (getter)get_counts, NULL, "(tensor count, node count) of the selected "
     "subgraph.", NULL},
    {"allocated", (getter)get_flag, NULL, "Whether allocate_tensors() succeeded.", "a"},
    {"closed", (getter)get_flag, NULL, "Whether close() was called.", "c"},
    {"busy", (getter)get_flag, NULL, "Whether a call is running without the GIL.", "b"},
    {"exports", (getter)get_exports, NULL, "Live numpy views of tensor memory.", NULL},
    {"arena", (getter)get_arena, NULL, "The Arena the interpreter lives in.", NULL},
    {"model_size", (getter)get_model_size, NULL, "Bytes of the model.", NULL},
    {"kernels", (getter)get_kernels, NULL, "The kernels' instruction set: 'portable', "
     "'avx2', 'avx512', ...", NULL},
    {"num_threads", (getter)get_num_threads, NULL, "The threads the fast paths' large "
     "operators split over (1 with the portable kernels, or without POSIX threads).", NULL},
    {"parallel_jobs", (getter)get_parallel_jobs, NULL, "Operator jobs split over the threads "
     "so far.", NULL},
    {"host_bytes", (getter)get_host_bytes, NULL, "Host memory the fast paths hold outside "
     "the arena (packed weights, tables).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef interp_methods[] = {
    {"allocate_tensors", (PyCFunction)interp_allocate, METH_NOARGS,
     "Init, prepare and plan every node (without the GIL)."},
    {"invoke", (PyCFunction)interp_invoke, METH_NOARGS,
     "Run the model (without the GIL); False when a kernel ended the run early."},
    {"reset", (PyCFunction)interp_reset, METH_NOARGS, "Zero variable tensors."},
    {"close", (PyCFunction)interp_close, METH_NOARGS, "Destroy the C interpreter; frees the "
     "arena for another interpreter."},
    {"inputs", (PyCFunction)pl_py_access_inputs, METH_NOARGS,
     "Tensor indices of the inputs."},
    {"select_subgraph", (PyCFunction)pl_py_subgraphs_select, METH_O,
     "Make subgraph k the one tensor calls and invoke() address."},
    {"signatures", (PyCFunction)pl_py_subgraphs_signatures, METH_NOARGS,
     "The model's signature defs (the first of each key): key, subgraph, (name, tensor) "
     "inputs and outputs (unnamed entries left out, as LiteRT)."},
    {"outputs", (PyCFunction)pl_py_access_outputs, METH_NOARGS,
     "Tensor indices of the outputs."},
    {"tensor_info", (PyCFunction)pl_py_access_tensor_info, METH_O,
     "Raw facts about one tensor."},
    {"node_info", (PyCFunction)pl_py_access_node_info, METH_O, "Raw facts about one node."},
    {"tensor_buffer", (PyCFunction)pl_py_access_tensor_buffer, METH_O,
     "An exporter of the tensor's memory (counted while exported)."},
    {"get_bytes", (PyCFunction)pl_py_access_get_bytes, METH_O, "A copy of the tensor's bytes."},
    {"set_bytes", (PyCFunction)pl_py_access_set_bytes, METH_VARARGS,
     "Copy exactly the tensor's size of bytes into it."},
    {"set_tensor", (PyCFunction)(void (*)(void))pl_py_io_set, METH_FASTCALL,
     "set_tensor(index, array) of subgraph 0 when array is a numpy array of exactly the "
     "tensor's dtype and shape: None; else NotImplemented (the full path must run)."},
    {"get_tensor", (PyCFunction)pl_py_io_get, METH_O,
     "A numpy copy of a kept tensor of subgraph 0, or NotImplemented (the full path must "
     "run)."},
    {"recording", (PyCFunction)pl_py_report_recording, METH_NOARGS,
     "The arena figures, as a dict."},
    {"recording_text", (PyCFunction)pl_py_report_text, METH_NOARGS,
     "TFLM's RecordingMicroAllocator text."},
    {"plan", (PyCFunction)pl_py_report_plan, METH_NOARGS,
     "Planned buffers: (tensor, offset, size, first, last, offline_offset); tensor -1 for "
     "scratch."},
    {"set_profiling", (PyCFunction)pl_py_profile_set, METH_O,
     "Turn per-node timing of invoke on or off."},
    {"node_ns", (PyCFunction)pl_py_profile_node_ns, METH_NOARGS,
     "Each node's duration in the last invoke (ns), or None when profiling is off."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot interp_slots[] = {
    {Py_tp_doc, "_Interpreter(model, arena, planner='greedy', preserve_all_tensors=False)"},
    {Py_tp_new, interp_new},
    {Py_tp_dealloc, interp_dealloc},
    {Py_tp_traverse, interp_traverse},
    {Py_tp_clear, interp_clear},
    {Py_tp_getset, interp_getset},
    {Py_tp_methods, interp_methods},
    {0, NULL},
};

static PyType_Spec interp_spec = {
    .name = "picolite._Interpreter",
    .basicsize = sizeof(pl_py_interp),
    .flags = PL_PY_TYPE_FLAGS,
    .slots = interp_slots,
};

int
pl_py_interp_init(PyObject *m, pl_py_state *st)
{
    st->interp_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &interp_spec, NULL);
    if (st->interp_type == NULL)
        return -1;
    return PyModule_AddType(m, st->interp_type);
}
