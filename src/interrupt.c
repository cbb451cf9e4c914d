/* interrupt.c - Ctrl-C during a long invoke: the host poll the runtime calls before every
** node and every loop iteration (pl_interp_set_poll), without the GIL.
**
** The poll reads a coarse monotonic clock and, at most every PL_PY_POLL_NS, takes the GIL and
** runs Python's signal handlers (PyErr_CheckSignals: on the main thread only; elsewhere a
** no-op). An exception one raised (KeyboardInterrupt) stops the invoke and is kept on the
** interpreter, then raised as itself instead of the runtime's "invoke interrupted". */
#include "pl_py.h"

#include <time.h>

#define PL_PY_POLL_NS 10000000u /* 10 ms: Ctrl-C ends an invoke within one node of that */

static uint64_t
now_ns(void)
{
    struct timespec ts;
#if defined(CLOCK_MONOTONIC_COARSE)
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* a few ns: read before every node */
#elif defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
pl_py_interrupt_poll(void *ctx)
{
    pl_py_interp *self = ctx;
    uint64_t t = now_ns();
    if (t - self->polled < PL_PY_POLL_NS)
        return 0;
    self->polled = t;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() < 0;
    if (stop) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (value != NULL && tb != NULL)
            PyException_SetTraceback(value, tb);
        Py_XSETREF(self->interrupt, value);
        Py_XDECREF(type);
        Py_XDECREF(tb);
    }
    PyGILState_Release(g);
    return stop;
}

void
pl_py_interrupt_arm(pl_py_interp *self)
{
    self->polled = now_ns();
    Py_CLEAR(self->interrupt);
    pl_interp_set_poll(self->it, pl_py_interrupt_poll, self);
}

int
pl_py_interrupt_reraise(pl_py_interp *self)
{
    PyObject *e = self->interrupt;
    if (e == NULL)
        return 0;
    self->interrupt = NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(e), e);
    Py_DECREF(e);
    return 1;
}
