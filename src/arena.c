/* arena.c - picolite.Arena: the one buffer an interpreter lives in.
**
** Arena(size) owns a 16-byte-aligned block from PyMem_RawMalloc (over-allocated by 15 and
** aligned up, so the runtime gets exactly size usable bytes). Arena(buffer) wraps any
** writable C-contiguous buffer; the export is held until dealloc. One arena serves one
** live interpreter at a time (owner); its figures come from that interpreter's recording. */
#include "pl_py.h"

#include <string.h>

#define ALIGN 16u

/* Arenas join the module's list once their memory is known and leave it in dealloc. */
static void
link_arena(pl_py_state *st, pl_py_arena *a)
{
    a->prev = NULL;
    a->next = st->arenas;
    if (st->arenas != NULL)
        st->arenas->prev = a;
    st->arenas = a;
}

/* st is NULL when the module is already gone (interpreter shutdown): only neighbours left. */
static void
unlink_arena(pl_py_state *st, pl_py_arena *a)
{
    if (a->prev != NULL)
        a->prev->next = a->next;
    else if (st != NULL && st->arenas == a)
        st->arenas = a->next;
    if (a->next != NULL)
        a->next->prev = a->prev;
    a->prev = a->next = NULL;
}

/* Two arenas over the same bytes would overwrite each other's records and tensors (a wrapped
** tensor() view lies inside its interpreter's arena): refuse any overlap with a live one. */
static int
check_overlap(pl_py_state *st, const uint8_t *p, size_t n)
{
    for (const pl_py_arena *a = st->arenas; a != NULL; a = a->next) {
        uintptr_t lo = (uintptr_t)a->data, x = (uintptr_t)p;
        if (n > 0 && a->size > 0 && x < lo + a->size && lo < x + n) {
            PyErr_Format(PyExc_ValueError, "Arena: the buffer (%zu bytes) overlaps the "
                         "memory of a live Arena (%zu bytes%s); two arenas must not share "
                         "memory", n, a->size, a->owner != NULL ? ", in use" : "");
            return -1;
        }
    }
    return 0;
}

pl_py_arena *
pl_py_arena_new(pl_py_state *st, size_t size)
{
    if (size > (size_t)PY_SSIZE_T_MAX - ALIGN) {
        PyErr_Format(PyExc_ValueError, "arena size must be between 0 and %zd bytes, got %zu",
                     (Py_ssize_t)(PY_SSIZE_T_MAX - ALIGN), size);
        return NULL;
    }
    pl_py_arena *a = PyObject_GC_New(pl_py_arena, st->arena_type);
    if (a == NULL)
        return NULL;
    memset(&a->view, 0, sizeof a->view);
    a->owner = NULL;
    a->prev = a->next = NULL;
    a->size = size;
    a->raw = PyMem_RawMalloc(size + ALIGN - 1);
    if (a->raw == NULL) {
        a->data = NULL;
        Py_DECREF(a);
        PyErr_Format(PyExc_MemoryError, "picolite: cannot allocate an arena of %zu bytes",
                     size);
        return NULL;
    }
    uintptr_t p = (uintptr_t)a->raw;
    a->data = (uint8_t *)a->raw + ((ALIGN - p % ALIGN) % ALIGN);
    link_arena(st, a);
    PyObject_GC_Track(a);
    return a;
}

/* Why buffer cannot be an arena, in picolite's words (not numpy's): BufferError. */
static void
refuse_buffer(PyObject *buffer)
{
    Py_buffer any;
    const char *why = "it exports no buffer";
    PyErr_Clear();
    if (PyObject_GetBuffer(buffer, &any, PyBUF_FULL_RO) == 0) {
        why = any.readonly ? "it is read-only" : "it is not C-contiguous (use a contiguous "
                                                 "copy, e.g. numpy.ascontiguousarray)";
        PyBuffer_Release(&any);
    }
    PyErr_Clear();
    PyErr_Format(PyExc_BufferError, "Arena(buffer) needs a writable, C-contiguous buffer; the "
                 "%s given: %s", Py_TYPE(buffer)->tp_name, why);
}

static pl_py_arena *
arena_wrap(pl_py_state *st, PyObject *buffer)
{
    pl_py_arena *a = PyObject_GC_New(pl_py_arena, st->arena_type);
    if (a == NULL)
        return NULL;
    a->raw = NULL;
    a->data = NULL;
    a->size = 0;
    a->owner = NULL;
    a->prev = a->next = NULL;
    memset(&a->view, 0, sizeof a->view);
    if (PyObject_GetBuffer(buffer, &a->view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        refuse_buffer(buffer);
        Py_DECREF(a);
        return NULL;
    }
    if (check_overlap(st, a->view.buf, (size_t)a->view.len) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    a->data = a->view.buf;
    a->size = (size_t)a->view.len;
    link_arena(st, a);
    PyObject_GC_Track(a);
    return a;
}

/* Arena(x): an int is a size; a writable buffer of any layout is wrapped, or refused for
** its layout (numpy arrays have __index__ too, and numpy integer scalars export read-only
** buffers, so writability decides). */
static bool
first_is_buffer(PyObject *x)
{
    if (PyLong_Check(x) || !PyObject_CheckBuffer(x))
        return !PyIndex_Check(x);
    Py_buffer probe;
    if (PyObject_GetBuffer(x, &probe, PyBUF_FULL_RO) == 0) {
        bool writable = !probe.readonly;
        PyBuffer_Release(&probe);
        if (writable)
            return true;
    }
    PyErr_Clear();
    return !PyIndex_Check(x);
}

static PyObject *
arena_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"size", "buffer", NULL};
    PyObject *size_obj = NULL, *buffer = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:Arena", kwlist, &size_obj, &buffer))
        return NULL;
    pl_py_state *st = PyType_GetModuleState(type);
    if (size_obj != NULL && buffer == NULL && first_is_buffer(size_obj)) {
        buffer = size_obj; /* Arena(numpy_array): the first argument is a buffer */
        size_obj = NULL;
    }
    if ((size_obj == NULL) == (buffer == NULL)) {
        PyErr_SetString(PyExc_TypeError, "Arena() takes a size in bytes or a writable buffer");
        return NULL;
    }
    if (buffer != NULL)
        return (PyObject *)arena_wrap(st, buffer);
    Py_ssize_t size = PyNumber_AsSsize_t(size_obj, PyExc_OverflowError);
    if (size == -1 && PyErr_Occurred())
        return NULL;
    /* 0 is a size like any other too small for a model: the interpreter raises
    ** ArenaTooSmallError(required, 0); only a negative size is meaningless */
    if (size < 0) {
        PyErr_Format(PyExc_ValueError, "arena size must be >= 0 bytes, got %zd", size);
        return NULL;
    }
    return (PyObject *)pl_py_arena_new(st, (size_t)size);
}

void
pl_py_arena_figures(const pl_py_arena *a, pl_recording *rec)
{
    memset(rec, 0, sizeof *rec);
    /* while allocate or invoke runs in another thread, the record is not ours to read */
    if (a->owner == NULL || a->owner->it == NULL || !a->owner->allocated || a->owner->busy)
        return;
    /* damaged records (the buffer written from outside) are not followed */
    if (!pl_py_interp_intact(a->owner) ||
        pl_interp_recording(a->owner->it, rec) != PL_OK)
        memset(rec, 0, sizeof *rec);
}

static int
arena_traverse(pl_py_arena *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->view.obj);
    return 0;
}

/* A live interpreter points into the buffer: only a free arena lets go of it. */
static int
arena_clear(pl_py_arena *self)
{
    if (self->owner == NULL && self->view.obj != NULL)
        PyBuffer_Release(&self->view);
    return 0;
}

static void
arena_dealloc(pl_py_arena *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    /* at shutdown the type may have let go of its module: no state, and no error to keep */
    PyObject *exc_type, *exc, *tb;
    PyErr_Fetch(&exc_type, &exc, &tb);
    unlink_arena(PyType_GetModuleState(tp), self);
    PyErr_Restore(exc_type, exc, tb);
    self->owner = NULL; /* an owner holds a strong reference, so none is left here */
    arena_clear(self);
    PyMem_RawFree(self->raw);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyObject *
figure(pl_py_arena *self, size_t pick)
{
    pl_recording rec;
    pl_py_arena_figures(self, &rec);
    size_t v[] = {rec.total, rec.head, rec.temp_high_water, rec.tail};
    return PyLong_FromSize_t(v[pick]);
}

static PyObject *
get_size(pl_py_arena *self, void *Py_UNUSED(c))
{
    return PyLong_FromSize_t(self->size);
}

static PyObject *
get_used(pl_py_arena *self, void *Py_UNUSED(c))
{
    return figure(self, 0);
}

static PyObject *
get_head(pl_py_arena *self, void *Py_UNUSED(c))
{
    return figure(self, 1);
}

static PyObject *
get_temp(pl_py_arena *self, void *Py_UNUSED(c))
{
    return figure(self, 2);
}

static PyObject *
get_tail(pl_py_arena *self, void *Py_UNUSED(c))
{
    return figure(self, 3);
}

static PyObject *
get_in_use(pl_py_arena *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(self->owner != NULL);
}

static PyObject *
arena_layout(pl_py_arena *self, PyObject *Py_UNUSED(ignored))
{
    pl_recording rec;
    pl_py_arena_figures(self, &rec);
    size_t free_bytes = self->size > rec.total ? self->size - rec.total : 0;
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:O,s:O,s:n}",
                         "size", (Py_ssize_t)self->size, "used", (Py_ssize_t)rec.total,
                         "head", (Py_ssize_t)rec.head, "temp", (Py_ssize_t)rec.temp_high_water,
                         "tail", (Py_ssize_t)rec.tail, "free", (Py_ssize_t)free_bytes,
                         "owned", self->raw != NULL ? Py_True : Py_False,
                         "in_use", self->owner != NULL ? Py_True : Py_False,
                         "misalignment", (Py_ssize_t)((uintptr_t)self->data % ALIGN));
}

static PyObject *
arena_repr(pl_py_arena *self)
{
    pl_recording rec;
    pl_py_arena_figures(self, &rec);
    return PyUnicode_FromFormat("<picolite.Arena size=%zu used=%zu (head %zu, tail %zu) %s%s>",
                                self->size, rec.total, rec.head, rec.tail,
                                self->raw != NULL ? "owned" : "wrapped",
                                self->owner != NULL ? ", in use" : "");
}

/* Jupyter's rich display: the same figures as repr, as a table. */
static PyObject *
arena_repr_html(pl_py_arena *self, PyObject *Py_UNUSED(ignored))
{
    pl_recording rec;
    pl_py_arena_figures(self, &rec);
    size_t free_bytes = self->size > rec.total ? self->size - rec.total : 0;
    return PyUnicode_FromFormat(
        "<table><tr><th>picolite.Arena</th><th>size</th><th>used</th><th>head</th>"
        "<th>temp high-water</th><th>tail</th><th>free</th></tr><tr><td>%s%s</td><td>%zu</td>"
        "<td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td></tr></table>",
        self->raw != NULL ? "owned" : "wrapped", self->owner != NULL ? ", in use" : "",
        self->size, rec.total, rec.head, rec.temp_high_water, rec.tail, free_bytes);
}

static PyGetSetDef arena_getset[] = {
    {"size", (getter)get_size, NULL, "Bytes handed to the runtime.", NULL},
    {"used", (getter)get_used, NULL, "head + tail of the interpreter using it (0 if none).",
     NULL},
    {"head", (getter)get_head, NULL, "Planned section (tensors + scratch).", NULL},
    {"temp", (getter)get_temp, NULL, "Largest temp section seen while allocating.", NULL},
    {"tail", (getter)get_tail, NULL, "Persistent section.", NULL},
    {"in_use", (getter)get_in_use, NULL, "Whether a live interpreter uses this arena.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef arena_methods[] = {
    {"layout", (PyCFunction)arena_layout, METH_NOARGS,
     "A summary dict: size, used, head, temp, tail, free, owned, in_use, misalignment."},
    {"_repr_html_", (PyCFunction)arena_repr_html, METH_NOARGS, "An HTML table (notebooks)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot arena_slots[] = {
    {Py_tp_doc, "Arena(size) or Arena(buffer): the memory one interpreter runs in."},
    {Py_tp_new, arena_new},
    {Py_tp_dealloc, arena_dealloc},
    {Py_tp_traverse, arena_traverse},
    {Py_tp_clear, arena_clear},
    {Py_tp_repr, arena_repr},
    {Py_tp_getset, arena_getset},
    {Py_tp_methods, arena_methods},
    {0, NULL},
};

static PyType_Spec arena_spec = {
    .name = "picolite.Arena",
    .basicsize = sizeof(pl_py_arena),
    .flags = PL_PY_TYPE_FLAGS,
    .slots = arena_slots,
};

int
pl_py_arena_init(PyObject *m, pl_py_state *st)
{
    st->arena_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &arena_spec, NULL);
    if (st->arena_type == NULL)
        return -1;
    return PyModule_AddType(m, st->arena_type);
}
