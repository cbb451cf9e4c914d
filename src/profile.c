/* profile.c - _picolite._profile(interp, runs): per-node invoke times over several runs.
**
** All runs happen in one GIL-free stretch, timed with the host's monotonic clock, so the
** figures hold no Python overhead between nodes or between runs. The result is a bytes
** object of runs * nodes native uint64 nanoseconds, row r holding run r (numpy reads it
** with frombuffer). The interpreter's own profiler (set_profiling) is put back afterwards. */
#include "pl_py.h"

#include <string.h>
#include <time.h>

/* tf.lite's wording, as interpreter.c's invoke uses it. */
#define VIEWS_ALIVE "There is at least 1 reference to internal data in the interpreter in " \
    "the form of a numpy array or slice. Be sure to only hold the function returned from " \
    "tensor() if you are using raw data access."

/* Called without the GIL during invoke, so only C. */
static uint64_t
host_ns(void *Py_UNUSED(ctx))
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The same refusals as invoke: closed, busy, not allocated, numpy views alive. */
static int
check_invokable(pl_py_interp *self)
{
    pl_py_state *st = pl_py_state_of((PyObject *)self);
    if (pl_py_interp_ready(self) < 0)
        return -1;
    if (!self->allocated) {
        pl_py_state_error(st, "invoke: call allocate_tensors() first");
        return -1;
    }
    if (self->exports > 0) {
        pl_py_state_error(st, VIEWS_ALIVE);
        return -1;
    }
    return 0;
}

/* Runs invoke runs times with node times going to out (runs rows of n); GIL released by
** the caller. Stops at the first failure. The interpreter's own profiler comes back. */
static pl_status
timed_runs(pl_py_interp *self, Py_ssize_t runs, uint64_t *out, uint32_t n)
{
    uint64_t spare = 0; /* node_ns must not be NULL, even for a model without nodes */
    pl_profiler prof = {host_ns, NULL, n > 0 ? out : &spare, n};
    pl_status s = PL_OK;
    for (Py_ssize_t r = 0; r < runs && s == PL_OK; r++) {
        if (n > 0)
            prof.node_ns = out + (size_t)r * n;
        s = pl_interp_set_profiler(self->it, &prof);
        if (s == PL_OK)
            s = pl_interp_invoke(self->it);
    }
    pl_interp_set_profiler(self->it, self->prof.node_ns != NULL ? &self->prof : NULL);
    return s;
}

PyObject *
pl_py_profile(PyObject *module, PyObject *args)
{
    pl_py_state *st = PyModule_GetState(module);
    PyObject *obj;
    Py_ssize_t runs;
    if (!PyArg_ParseTuple(args, "O!n:_profile", st->interp_type, &obj, &runs))
        return NULL;
    pl_py_interp *self = (pl_py_interp *)obj;
    if (check_invokable(self) < 0)
        return NULL;
    uint32_t n = pl_interp_node_count(self->it);
    if (runs < 1) {
        PyErr_Format(PyExc_ValueError, "runs must be at least 1, got %zd", runs);
        return NULL;
    }
    if (n > 0 && (size_t)runs > PY_SSIZE_T_MAX / sizeof(uint64_t) / n)
        return PyErr_NoMemory();
    size_t count = (size_t)runs * n;
    uint64_t *out = PyMem_RawCalloc(count > 0 ? count : 1, sizeof *out);
    if (out == NULL)
        return PyErr_NoMemory();
    pl_status s;
    self->busy = true;
    Py_BEGIN_ALLOW_THREADS
    s = timed_runs(self, runs, out, n);
    Py_END_ALLOW_THREADS
    self->busy = false;
    PyObject *bytes = NULL;
    if (s != PL_OK)
        pl_py_raise(st, s, pl_interp_error(self->it));
    else
        bytes = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(count * sizeof *out));
    PyMem_RawFree(out);
    return bytes;
}
