/* plan.c - module functions that plan without an interpreter: required_arena_size and
** plan_memory. Both give the C code the scratch it asks for (pl_plan_scratch_size; the
** sizing run reports what it lacked) and run it without the GIL. */
#include "pl_py.h"

#include <string.h>

/* Grows the work buffer only as far as the sizing run says it needs; never a search. */
#define MAX_ATTEMPTS 8
/* The largest work buffer worth trying: a 32-bit arena's largest usable size plus the bytes
** an unaligned buffer loses (pl_arena_create takes no more). */
#define WORK_MAX ((size_t)0xFFFFFFF0u + 16u)

static pl_status
size_once(const Py_buffer *model, const pl_interp_options *opt, size_t work_size,
          size_t *required, pl_error *err, int *nomem)
{
    void *work = PyMem_RawMalloc(work_size);
    if (work == NULL) {
        *nomem = 1;
        return PL_ERR_ARENA;
    }
    pl_status s;
    Py_BEGIN_ALLOW_THREADS
    s = pl_required_arena_size(model->buf, (size_t)model->len, opt, work, work_size, required,
                               err);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(work);
    return s;
}

pl_status
pl_py_required_size(const Py_buffer *model, const pl_interp_options *opt, size_t *required,
                    pl_error *err, int *nomem)
{
    size_t work = ((size_t)1 << 20) + 4 * (size_t)model->len;
    pl_status s = PL_ERR_ARENA;
    *nomem = 0;
    pl_error_clear(err);
    for (int i = 0; i < MAX_ATTEMPTS && s == PL_ERR_ARENA && !*nomem; i++) {
        if (i > 0) {
            /* what the failing call needed, an eighth more for the calls after it; the sizing
            ** run touches only the records and temp, so the rest stays untouched memory */
            size_t need = err->required;
            if (work >= WORK_MAX || need > WORK_MAX - 16u)
                break; /* no arena can hold it: the arena error says how much it needs */
            work = need > work ? need + need / 8 : 2 * work;
            work = work < WORK_MAX ? work : WORK_MAX;
        }
        pl_error_clear(err);
        s = size_once(model, opt, work, required, err, nomem);
    }
    if (*nomem)
        err->required = work; /* for the MemoryError's message */
    return s;
}

static PyObject *
required_arena_size(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"model", "planner", "preserve_all_tensors", "input_shapes",
                             "custom_ops", "custom_adapter", "target", NULL};
    pl_py_state *st = PyModule_GetState(module);
    Py_buffer model = {0};
    const char *planner_name = "greedy", *target_name = "tflm";
    int preserve = 0, nomem = 0;
    PyObject *result = NULL, *shape_arg = Py_None, *custom_ops = Py_None, *adapter = Py_None;
    pl_py_custom *custom = NULL;
    pl_interp_options opt = pl_interp_defaults();
    pl_interp_storage record; /* sized as Interpreter creates: the record outside the arena */
    pl_py_shapes shapes = {0};
    opt.resolver = pl_builtin_resolver();
    opt.storage = &record;
    size_t required = 0;
    pl_error err;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*|spOOOs:required_arena_size", kwlist,
                                     &model, &planner_name, &preserve, &shape_arg, &custom_ops,
                                     &adapter, &target_name))
        return NULL;
    /* the target's kernels may keep different op data (TFLM's int8 LSTM) */
    if (pl_py_target(target_name, &opt.target) < 0 ||
        pl_py_planner(st, planner_name, &opt.planner) < 0 ||
        pl_py_shapes_parse(shape_arg, &shapes) < 0)
        goto done;
    if (custom_ops != Py_None) {
        if ((custom = pl_py_custom_new(custom_ops, adapter)) == NULL)
            goto done;
        opt.resolver = pl_py_custom_resolver(custom);
    }
    opt.preserve_all_tensors = preserve != 0;
    opt.input_shapes = shapes.items;
    opt.input_shape_count = shapes.count;
    pl_status s = pl_py_required_size(&model, &opt, &required, &err, &nomem);
    if (nomem)
        PyErr_Format(PyExc_MemoryError, "picolite: sizing the arena needs a work buffer of "
                     "%zu bytes, which the host could not allocate", err.required);
    else if (s != PL_OK && !pl_py_custom_reraise(custom)) /* an operator's own exception */
        pl_py_raise(st, s, &err);
    else if (s == PL_OK)
        result = PyLong_FromSize_t(required);
done:
    pl_py_shapes_free(&shapes);
    pl_py_custom_free(custom);
    PyBuffer_Release(&model);
    return result;
}

/* One (size, first, last[, offline_offset]) tuple. */
static int
parse_buffer(PyObject *item, Py_ssize_t i, pl_plan_buffer *b)
{
    Py_ssize_t size = 0;
    int first = 0, last = 0, offline = -1;
    if (!PyTuple_Check(item)) {
        PyErr_Format(PyExc_TypeError, "buffer %zd: expected a tuple (size, first, last[, "
                     "offline_offset]), got %s", i, Py_TYPE(item)->tp_name);
        return -1;
    }
    if (!PyArg_ParseTuple(item, "nii|i;each buffer is (size, first, last[, offline_offset])",
                          &size, &first, &last, &offline))
        return -1;
    if (size < 0 || (size_t)size > UINT32_MAX) {
        PyErr_Format(PyExc_ValueError, "buffer %zd: size %zd is outside [0, 2**32)", i, size);
        return -1;
    }
    memset(b, 0, sizeof *b);
    b->size = (uint32_t)size;
    b->first = first;
    b->last = last;
    b->offline_offset = offline;
    return 0;
}

static pl_plan_buffer *
parse_buffers(PyObject *seq, uint32_t *count)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > (Py_ssize_t)(UINT32_MAX / 2)) {
        PyErr_SetString(PyExc_ValueError, "too many buffers");
        return NULL;
    }
    pl_plan_buffer *bufs = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *bufs);
    if (bufs == NULL) {
        PyErr_Format(PyExc_MemoryError, "picolite: cannot allocate the list of %zd buffers", n);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (parse_buffer(PySequence_Fast_GET_ITEM(seq, i), i, &bufs[i]) < 0) {
            PyMem_Free(bufs);
            return NULL;
        }
    }
    *count = (uint32_t)n;
    return bufs;
}

static PyObject *
offsets_list(const pl_plan_buffer *bufs, uint32_t n)
{
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        PyObject *v = PyLong_FromUnsignedLong(bufs[i].offset);
        if (v == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, v);
    }
    return list;
}

/* The planner's poll, every PL_PLAN_POLL_EVERY buffers: runs Python's signal handlers
** (Ctrl-C) with the GIL, and keeps the exception one raised to stop the plan. */
static int
poll_signals(void *ctx)
{
    PyObject **exc = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() < 0;
    if (stop) {
        PyObject *type, *tb;
        PyErr_Fetch(&type, exc, &tb);
        PyErr_NormalizeException(&type, exc, &tb);
        if (*exc != NULL && tb != NULL)
            PyException_SetTraceback(*exc, tb);
        Py_XDECREF(type);
        Py_XDECREF(tb);
    }
    PyGILState_Release(g);
    return stop;
}

/* Plans and takes the lower bound without the GIL; a signal handler's exception (e.g.
** KeyboardInterrupt) stops the plan and is left in *exc. */
static pl_status
compute(pl_planner planner, pl_plan_buffer *bufs, uint32_t n, uint32_t *total,
        uint64_t *lower, PyObject **exc, pl_error *err, int *nomem)
{
    size_t need = pl_plan_scratch_size(planner, n), lb = pl_plan_lower_bound_scratch_size(n);
    if (lb > need)
        need = lb;
    void *scratch = need != SIZE_MAX ? PyMem_RawMalloc(need > 0 ? need : 1) : NULL;
    if (scratch == NULL) {
        *nomem = 1;
        err->required = need; /* for the MemoryError's message */
        return PL_ERR_ARG;
    }
    pl_status s;
    Py_BEGIN_ALLOW_THREADS
    s = pl_plan_compute_polled(planner, bufs, n, scratch, need, total, poll_signals, exc, err);
    if (s == PL_OK)
        *lower = pl_plan_lower_bound_sorted(bufs, n, scratch);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);
    return s;
}

static PyObject *
plan_memory(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"buffers", "planner", NULL};
    pl_py_state *st = PyModule_GetState(module);
    PyObject *buffers, *seq, *result = NULL;
    const char *planner_name = "greedy";
    pl_planner planner;
    uint32_t n = 0, total = 0;
    int nomem = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|s:plan_memory", kwlist, &buffers,
                                     &planner_name))
        return NULL;
    if (pl_py_planner(st, planner_name, &planner) < 0)
        return NULL;
    seq = PySequence_Fast(buffers, "plan_memory: buffers must be a sequence of tuples");
    if (seq == NULL)
        return NULL;
    pl_plan_buffer *bufs = parse_buffers(seq, &n);
    Py_DECREF(seq);
    if (bufs == NULL)
        return NULL;
    pl_error err;
    pl_error_clear(&err);
    uint64_t lower = 0;
    PyObject *exc = NULL;
    pl_status s = compute(planner, bufs, n, &total, &lower, &exc, &err, &nomem);
    if (nomem) {
        PyErr_Format(PyExc_MemoryError, "picolite: planning %u buffers with %s needs %zu "
                     "bytes of scratch, which the host could not allocate", (unsigned)n,
                     planner_name, err.required);
    } else if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    } else if (s != PL_OK) {
        pl_py_raise(st, s, &err);
    } else {
        result = Py_BuildValue("(NIKs)", offsets_list(bufs, n), total,
                               (unsigned long long)lower, pl_planner_name(planner));
    }
    PyMem_Free(bufs);
    return result;
}

static PyObject *
planners(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    PyObject *t = PyTuple_New(PL_PLANNER_COUNT);
    for (int p = 0; t != NULL && p < PL_PLANNER_COUNT; p++) {
        PyObject *name = PyUnicode_FromString(pl_planner_name((pl_planner)p));
        if (name == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, p, name);
    }
    return t;
}

static PyObject *
targets(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    PyObject *t = PyTuple_New(PL_TARGET_COUNT);
    for (int k = 0; t != NULL && k < PL_TARGET_COUNT; k++) {
        PyObject *name = PyUnicode_FromString(pl_target_name((pl_target)k));
        if (name == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, k, name);
    }
    return t;
}

PyMethodDef pl_py_plan_methods[] = {
    {"required_arena_size", (PyCFunction)(void (*)(void))required_arena_size,
     METH_VARARGS | METH_KEYWORDS,
     "required_arena_size(model: bytes-like, planner='greedy', preserve_all_tensors=False)"
     " -> the exact minimum arena size in bytes."},
    {"plan_memory", (PyCFunction)(void (*)(void))plan_memory, METH_VARARGS | METH_KEYWORDS,
     "plan_memory(buffers, planner='greedy') -> (offsets, total, lower_bound, planner)."},
    {"planners", planners, METH_NOARGS, "The planner names, in pl_planner order."},
    {"targets", targets, METH_NOARGS, "The target names, in pl_target order."},
    {NULL, NULL, 0, NULL},
};
