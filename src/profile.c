/* profile.c - per-node invoke times: _picolite._profile(interp, runs) over several runs, and
** an _Interpreter's own profiler (set_profiling, node_ns) for the invokes that follow.
**
** All runs happen in one GIL-free stretch, timed with the host's monotonic clock, so the
** figures hold no Python overhead between nodes or between runs. The result is a bytes
** object of runs * nodes native uint64 nanoseconds, row r holding run r (numpy reads it
** with frombuffer). The interpreter's own profiler (set_profiling) is put back afterwards. */
#include "pl_py.h"

#include <string.h>
#include <time.h>

/* Called without the GIL during invoke, so only C: a monotonic clock where there is one. */
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
        if (s == PL_OK) {
            pl_py_clean_vector_state();
            s = pl_interp_invoke(self->it);
        }
        if (s == PL_ABORTED) /* a run a kernel ended early is a run all the same */
            s = PL_OK;
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
    if (pl_py_interp_invokable(self) < 0)
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
        pl_py_interp_raise(self, s); /* Ctrl-C as KeyboardInterrupt, the rest as mapped */
    else
        bytes = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(count * sizeof *out));
    PyMem_RawFree(out);
    return bytes;
}

PyObject *
pl_py_profile_set(pl_py_interp *self, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0 || pl_py_interp_ready(self) < 0)
        return NULL;
    if (!on || self->prof.node_ns != NULL) {
        if (!on) {
            pl_interp_set_profiler(self->it, NULL);
            PyMem_RawFree(self->prof.node_ns);
            memset(&self->prof, 0, sizeof self->prof);
        }
        Py_RETURN_NONE;
    }
    uint32_t n = pl_interp_node_count(self->it);
    uint64_t *ns = PyMem_RawCalloc(n > 0 ? n : 1, sizeof *ns);
    if (ns == NULL)
        return PyErr_NoMemory();
    self->prof = (pl_profiler){host_ns, NULL, ns, n};
    pl_status s = pl_interp_set_profiler(self->it, &self->prof);
    if (s != PL_OK) {
        PyMem_RawFree(ns);
        memset(&self->prof, 0, sizeof self->prof);
        return pl_py_interp_raise(self, s);
    }
    Py_RETURN_NONE;
}

PyObject *
pl_py_profile_node_ns(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    if (self->prof.node_ns == NULL)
        Py_RETURN_NONE;
    PyObject *t = PyTuple_New(self->prof.node_count);
    for (uint32_t i = 0; t != NULL && i < self->prof.node_count; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(self->prof.node_ns[i]);
        if (v == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}
