/* profile.c - _picolite._profile(interp, runs): per-node invoke times over several runs.
**
** All runs happen in one GIL-free stretch, timed with the host's monotonic clock, so the
** figures hold no Python overhead between nodes or between runs. The result is a bytes
** object of runs * nodes native uint64 nanoseconds, row r holding run r (numpy reads it
** with frombuffer). The interpreter's own profiler (set_profiling) is put back afterwards. */
#include "pl_py.h"

#include <string.h>

/* Runs invoke runs times with node times going to out (runs rows of n); GIL released by
** the caller. Stops at the first failure. The interpreter's own profiler comes back. */
static pl_status
timed_runs(pl_py_interp *self, Py_ssize_t runs, uint64_t *out, uint32_t n)
{
    uint64_t spare = 0; /* node_ns must not be NULL, even for a model without nodes */
    pl_profiler prof = {pl_py_host_ns, NULL, n > 0 ? out : &spare, n};
    pl_status s = PL_OK;
    for (Py_ssize_t r = 0; r < runs && s == PL_OK; r++) {
        if (n > 0)
            prof.node_ns = out + (size_t)r * n;
        s = pl_interp_set_profiler(self->it, &prof);
        if (s == PL_OK)
            s = pl_interp_invoke(self->it);
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
        pl_py_raise(st, s, pl_interp_error(self->it));
    else
        bytes = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(count * sizeof *out));
    PyMem_RawFree(out);
    return bytes;
}
