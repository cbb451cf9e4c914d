/* fast.c - the host fast paths for an interpreter (kernels=): the instruction set by name,
** host memory from PyMem_Raw (callable without the GIL) and the fast resolver's lifetime. */
#include "pl_py.h"

#ifdef PL_HAVE_FAST
#include "picolite/pl_fast.h"

static void *host_alloc(void *self, size_t bytes)
{
    (void)self;
    return PyMem_RawMalloc(bytes);
}

static void host_release(void *self, void *block)
{
    (void)self;
    PyMem_RawFree(block);
}

static const pl_host_memory host_memory = {NULL, host_alloc, host_release};

_Static_assert(PL_PY_MAX_THREADS == PL_FAST_MAX_THREADS, "num_threads' bound is the resolver's");

static bool available(int isa)
{
    return pl_fast_isa_available((pl_isa)isa);
}

static const char *isa_name(int isa)
{
    return pl_fast_isa_name((pl_isa)isa);
}

static int best(void)
{
    return (int)pl_fast_best_isa();
}

/* The i-th set in the order of preference (kernel_sets lists them so); -1 past the end. */
static int nth(int i)
{
    return i < PL_ISA_COUNT ? (int)pl_fast_isa_order[i] : -1;
}
#else
static bool available(int isa)
{
    return isa == 0;
}

static const char *isa_name(int isa)
{
    return isa == 0 ? "portable" : NULL;
}

static int best(void)
{
    return 0;
}

static int nth(int i)
{
    return i == 0 ? 0 : -1;
}
#endif

int pl_py_kernels_parse(const char *name, int *isa)
{
    if (strcmp(name, "auto") == 0) {
        *isa = best();
        return 0;
    }
    for (int i = 0; isa_name(i) != NULL; i++)
        if (strcmp(name, isa_name(i)) == 0 && available(i)) {
            *isa = i;
            return 0;
        }
    PyObject *sets = pl_py_kernel_sets(NULL, NULL);
    if (sets != NULL) {
        PyErr_Format(PyExc_ValueError, "kernels must be 'auto' or one of %R on this machine, "
                     "got '%s'", sets, name);
        Py_DECREF(sets);
    }
    return -1;
}

const pl_resolver *pl_py_fast_resolver(pl_py_interp *self, const pl_resolver *base)
{
#ifdef PL_HAVE_FAST
    if (self->isa != 0 &&
        pl_fast_resolver_init(&self->fast, base, &host_memory, (pl_isa)self->isa) == PL_OK) {
        if (pl_fast_resolver_set_threads(&self->fast, self->threads) != PL_OK) {
            PyErr_Format(PyExc_RuntimeError, "num_threads=%d: could not start %d worker "
                         "threads", self->threads, self->threads - 1);
            self->isa = 0;
            return NULL;
        }
        return pl_fast_resolver_get(&self->fast);
    }
#endif
    self->isa = 0;
    return base;
}

pl_fast_seal_feed_fn *pl_py_fast_seal_feed(const pl_py_interp *self)
{
#ifdef PL_HAVE_FAST
    if (self->isa != 0)
        return pl_fast_seal_feed_for((pl_isa)self->isa);
#else
    (void)self;
#endif
    return NULL;
}

int pl_py_fast_threads(const pl_py_interp *self)
{
#ifdef PL_HAVE_FAST
    if (self->isa != 0)
        return (int)pl_fast_thread_count(&self->fast);
#else
    (void)self;
#endif
    return 1;
}

unsigned long long pl_py_fast_parallel_jobs(const pl_py_interp *self)
{
#ifdef PL_HAVE_FAST
    if (self->isa != 0)
        return (unsigned long long)self->fast.parallel_jobs;
#else
    (void)self;
#endif
    return 0;
}

void pl_py_fast_release(pl_py_interp *self)
{
#ifdef PL_HAVE_FAST
    if (self->isa != 0) {
        pl_fast_resolver_set_threads(&self->fast, 1); /* joins the workers */
        pl_fast_resolver_release(&self->fast);
    }
#else
    (void)self;
#endif
}

size_t pl_py_fast_host_bytes(const pl_py_interp *self)
{
#ifdef PL_HAVE_FAST
    return self->isa != 0 ? pl_fast_host_bytes(&self->fast) : 0;
#else
    (void)self;
    return 0;
#endif
}

const char *pl_py_kernels_name(int isa)
{
    return isa_name(isa);
}

PyObject *pl_py_kernel_sets(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list != NULL && nth(i) >= 0; i++) {
        if (!available(nth(i)))
            continue;
        PyObject *name = PyUnicode_FromString(isa_name(nth(i)));
        if (name == NULL || PyList_Append(list, name) < 0)
            Py_CLEAR(list);
        Py_XDECREF(name);
    }
    return list;
}
