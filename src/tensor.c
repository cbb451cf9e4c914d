/* tensor.c - picolite._TensorBuffer: one tensor's memory, exported through the buffer protocol.
**
** numpy views (Interpreter.tensor()) are made from this object. Every export is counted in
** the owning interpreter (as xxlimited counts x_exports), and the interpreter refuses to
** allocate or invoke while any export is alive: a view never sees memory change under it
** unexpectedly, and never outlives the arena (the exporter holds the interpreter). */
#include "pl_py.h"

typedef struct {
    PyObject_HEAD
    pl_py_interp *owner; /* strong */
    void *data;
    Py_ssize_t bytes;
    bool readonly;       /* constants live in the model bytes, which are read-only */
    Py_ssize_t exports;
} pl_py_tensor;

PyObject *
pl_py_tensor_new(pl_py_interp *owner, void *data, size_t bytes, bool readonly)
{
    pl_py_state *st = pl_py_state_of((PyObject *)owner);
    pl_py_tensor *t = PyObject_GC_New(pl_py_tensor, st->tensor_type);
    if (t == NULL)
        return NULL;
    t->owner = (pl_py_interp *)Py_NewRef((PyObject *)owner);
    t->data = data;
    t->bytes = (Py_ssize_t)bytes;
    t->readonly = readonly;
    t->exports = 0;
    PyObject_GC_Track(t);
    return (PyObject *)t;
}

static int
tensor_getbuffer(pl_py_tensor *self, Py_buffer *view, int flags)
{
    if (self->owner == NULL || self->owner->it == NULL || self->owner->busy) {
        pl_py_state_error(pl_py_state_of((PyObject *)self),
                          "the interpreter is closed or busy: its tensors cannot be viewed");
        return -1;
    }
    if (PyBuffer_FillInfo(view, (PyObject *)self, self->data, self->bytes, self->readonly,
                          flags) < 0)
        return -1;
    self->exports++;
    self->owner->exports++;
    return 0;
}

static void
tensor_releasebuffer(pl_py_tensor *self, Py_buffer *Py_UNUSED(view))
{
    self->exports--;
    self->owner->exports--;
}

static int
tensor_traverse(pl_py_tensor *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->owner);
    return 0;
}

/* While exported, the owner must stay: exports keep this object alive, so clear can wait. */
static int
tensor_clear(pl_py_tensor *self)
{
    if (self->exports == 0)
        Py_CLEAR(self->owner);
    return 0;
}

static void
tensor_dealloc(pl_py_tensor *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->owner);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyObject *
tensor_exports(pl_py_tensor *self, void *Py_UNUSED(c))
{
    return PyLong_FromSsize_t(self->exports);
}

static PyGetSetDef tensor_getset[] = {
    {"exports", (getter)tensor_exports, NULL, "Live buffer exports of this tensor.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot tensor_slots[] = {
    {Py_tp_doc, "The memory of one tensor, for numpy views (see Interpreter.tensor)."},
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_traverse, tensor_traverse},
    {Py_tp_clear, tensor_clear},
    {Py_tp_getset, tensor_getset},
    {Py_bf_getbuffer, tensor_getbuffer},
    {Py_bf_releasebuffer, tensor_releasebuffer},
    {0, NULL},
};

static PyType_Spec tensor_spec = {
    .name = "picolite._TensorBuffer",
    .basicsize = sizeof(pl_py_tensor),
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
    .flags = PL_PY_TYPE_FLAGS | Py_TPFLAGS_DISALLOW_INSTANTIATION,
#else
    .flags = PL_PY_TYPE_FLAGS,
#endif
    .slots = tensor_slots,
};

int
pl_py_tensor_init(PyObject *m, pl_py_state *st)
{
    st->tensor_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &tensor_spec, NULL);
    if (st->tensor_type == NULL)
        return -1;
    return PyModule_AddType(m, st->tensor_type);
}
