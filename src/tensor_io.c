/* tensor_io.c - set_tensor and get_tensor of subgraph 0 without the Python layer.
**
** A round trip of set_tensor + invoke + get_tensor on a small model is mostly call overhead:
** a tensor-details dict, numpy conversions and checks in Python. Here each tensor's facts are
** read once, on first use, after the full checks (the arena records' seal among them), and
** kept in host memory: its data pointer and size, a numpy view over its memory (whose copy()
** is get_tensor's result) and the buffer format and shape a value must have. A tensor's memory
** and shape are fixed from allocate_tensors() to close (a resize makes a new interpreter), so
** the facts stay true, and a copy steered by them never reads the arena's records.
**
** Anything else (another subgraph, a value that is not a numpy array of exactly the tensor's
** dtype and shape, a constant, a shared intermediate, a closed or busy interpreter) returns
** NotImplemented, and picolite.Interpreter takes its full path, which raises LiteRT's errors. */
#include "pl_py.h"

#include <string.h>

struct pl_py_io {
    PyObject *view; /* numpy array over the tensor's memory; NULL until built */
    PyObject *copy; /* view.copy, bound */
    void *data;
    size_t bytes;
    Py_ssize_t shape[PL_MAX_DIMS];
    int ndim;
    char format[8]; /* the buffer format numpy gives the tensor's dtype */
    bool built;     /* tried: view is NULL when the tensor has no fast path */
    bool settable;  /* not a constant */
    bool readable;  /* not an intermediate whose memory later nodes reuse */
};

/* numpy's dtype string of a type, or NULL for types picolite shows no array of. */
static const char *
dtype_of(pl_type type)
{
    switch (type) {
    case PL_FLOAT32: return "f4";
    case PL_FLOAT16: return "f2";
    case PL_FLOAT64: return "f8";
    case PL_INT8: return "i1";
    case PL_INT16: return "i2";
    case PL_INT32: return "i4";
    case PL_INT64: return "i8";
    case PL_UINT8: return "u1";
    case PL_UINT16: return "u2";
    case PL_UINT32: return "u4";
    case PL_UINT64: return "u8";
    case PL_BOOL: return "?";
    case PL_COMPLEX64: return "c8";
    case PL_COMPLEX128: return "c16";
    default: return NULL;
    }
}

/* numpy.frombuffer(memory, dtype).reshape(shape): a view the tensor's facts come from. */
static PyObject *
make_view(const pl_tensor_info *ti, const char *dtype)
{
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == NULL)
        return NULL;
    PyObject *shape = PyTuple_New(ti->ndims), *view = NULL;
    for (int32_t d = 0; shape != NULL && d < ti->ndims; d++) {
        PyObject *x = PyLong_FromLong(ti->dims[d]);
        if (x == NULL)
            Py_CLEAR(shape);
        else
            PyTuple_SET_ITEM(shape, d, x);
    }
    PyObject *mem = PyMemoryView_FromMemory(ti->data, (Py_ssize_t)ti->bytes,
                                            ti->is_constant ? PyBUF_READ : PyBUF_WRITE);
    PyObject *flat = shape != NULL && mem != NULL
                     ? PyObject_CallMethod(np, "frombuffer", "Os", mem, dtype) : NULL;
    if (flat != NULL)
        view = PyObject_CallMethod(flat, "reshape", "(O)", shape);
    Py_XDECREF(flat);
    Py_XDECREF(mem);
    Py_XDECREF(shape);
    Py_DECREF(np);
    return view;
}

/* The facts of tensor i from its view; 0 with f->view NULL when it has no fast path. */
static int
build(pl_py_interp *self, uint32_t i, pl_py_io *f)
{
    pl_tensor_info ti;
    f->built = true;
    if (pl_interp_tensor(self->it, i, &ti) != PL_OK)
        return 0; /* the full path names the problem */
    const char *dtype = dtype_of(ti.type);
    if (dtype == NULL || ti.data == NULL || ti.bytes == 0 || ti.ndims > PL_MAX_DIMS)
        return 0;
    PyObject *view = make_view(&ti, dtype);
    Py_buffer b;
    if (view == NULL || PyObject_GetBuffer(view, &b, PyBUF_RECORDS_RO) < 0) {
        Py_XDECREF(view);
        return -1;
    }
    bool fits = b.format != NULL && strlen(b.format) < sizeof f->format && b.ndim == ti.ndims;
    if (fits) {
        strcpy(f->format, b.format);
        f->ndim = b.ndim;
        if (b.ndim > 0)
            memcpy(f->shape, b.shape, (size_t)b.ndim * sizeof *b.shape);
    }
    PyBuffer_Release(&b);
    f->copy = fits ? PyObject_GetAttrString(view, "copy") : NULL;
    if (f->copy == NULL) {
        Py_DECREF(view);
        return fits ? -1 : 0;
    }
    f->view = view;
    f->data = ti.data;
    f->bytes = ti.bytes;
    f->settable = !ti.is_constant;
    f->readable = !ti.shared;
    return 0;
}

/* The table, one entry per tensor of subgraph 0, made on first use after the full checks. */
static int
table(pl_py_interp *self)
{
    if (self->io != NULL)
        return 0;
    if (pl_py_interp_ready(self) < 0)
        return -1;
    uint32_t n = pl_interp_tensor_count(self->it);
    self->io = PyMem_Calloc(n > 0 ? n : 1, sizeof *self->io);
    if (self->io == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->io_count = n;
    return 0;
}

/* Tensor arg's entry, or NULL (no exception) when the full path must run. */
static pl_py_io *
entry(pl_py_interp *self, PyObject *arg)
{
    if (self->it == NULL || self->busy || !self->allocated || self->subgraph != 0 ||
        !PyLong_CheckExact(arg))
        return NULL;
    long i = PyLong_AsLong(arg);
    if (table(self) < 0 || i < 0 || (unsigned long)i >= self->io_count) {
        PyErr_Clear();
        return NULL;
    }
    pl_py_io *f = &self->io[i];
    if (!f->built && build(self, (uint32_t)i, f) < 0) {
        PyErr_Clear(); /* the full path meets the same problem and raises it */
        return NULL;
    }
    return f->view != NULL ? f : NULL;
}

PyObject *
pl_py_io_get(pl_py_interp *self, PyObject *arg)
{
    pl_py_io *f = entry(self, arg);
    if (f == NULL || !f->readable)
        return Py_NewRef(Py_NotImplemented);
    return PyObject_CallNoArgs(f->copy);
}

/* Whether buffer b is exactly the tensor's dtype (format) and shape. */
static bool
same_layout(const Py_buffer *b, const pl_py_io *f)
{
    return b->ndim == f->ndim && (size_t)b->len == f->bytes && b->format != NULL &&
           strcmp(b->format, f->format) == 0 &&
           (f->ndim == 0 || memcmp(b->shape, f->shape, (size_t)f->ndim * sizeof *b->shape) == 0);
}

PyObject *
pl_py_io_set(pl_py_interp *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "set_tensor takes 2 arguments (%zd given)",
                            nargs);
    pl_py_io *f = entry(self, args[0]);
    if (f == NULL || !f->settable || Py_TYPE(args[1]) != Py_TYPE(f->view))
        return Py_NewRef(Py_NotImplemented);
    Py_buffer b;
    if (PyObject_GetBuffer(args[1], &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear(); /* not contiguous: the full path copies it */
        return Py_NewRef(Py_NotImplemented);
    }
    bool same = same_layout(&b, f);
    if (same)
        memmove(f->data, b.buf, f->bytes); /* the value may be a view of the tensor */
    PyBuffer_Release(&b);
    return Py_NewRef(same ? Py_None : Py_NotImplemented);
}

void
pl_py_io_clear(pl_py_interp *self)
{
    for (uint32_t i = 0; self->io != NULL && i < self->io_count; i++) {
        Py_CLEAR(self->io[i].view);
        Py_CLEAR(self->io[i].copy);
    }
    PyMem_Free(self->io);
    self->io = NULL;
    self->io_count = 0;
}

int
pl_py_io_traverse(const pl_py_interp *self, visitproc visit, void *arg)
{
    for (uint32_t i = 0; self->io != NULL && i < self->io_count; i++) {
        Py_VISIT(self->io[i].view);
        Py_VISIT(self->io[i].copy);
    }
    return 0;
}
