/* subgraphs.c - the subgraph an _Interpreter addresses, and the model's signatures (a key,
** a subgraph, named inputs and outputs), as LiteRT lists them. */
#include "pl_py.h"

#include <string.h>

PyObject *
pl_py_subgraphs_select(pl_py_interp *self, PyObject *arg)
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    uint32_t n = pl_interp_subgraph_count(self->it);
    if (k < 0 || (unsigned long)k >= n)
        return PyErr_Format(PyExc_ValueError, "Invalid subgraph index %ld exceeds max "
                            "subgraph index %u", k, n - 1);
    pl_status s = pl_interp_select_subgraph(self->it, (uint32_t)k);
    if (s != PL_OK)
        return pl_py_interp_raise(self, s);
    self->subgraph = (uint32_t)k;
    Py_RETURN_NONE;
}

PyObject *
pl_py_subgraphs_get(pl_py_interp *self, void *Py_UNUSED(c))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    return Py_BuildValue("(II)", pl_interp_subgraph_count(self->it),
                         pl_interp_selected_subgraph(self->it));
}

/* (name, tensor) pairs; entries without a name are left out, as LiteRT does. */
static PyObject *
signature_io(pl_py_interp *self, uint32_t sig, bool output, uint32_t count)
{
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list != NULL && i < count; i++) {
        const char *name;
        uint32_t len;
        int32_t tensor;
        pl_interp_signature_io(self->it, sig, output, i, &name, &len, &tensor);
        if (name == NULL)
            continue;
        PyObject *item = Py_BuildValue("(Ni)", PyUnicode_DecodeUTF8(name, len, "replace"),
                                       (int)tensor);
        if (item == NULL || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* Whether an earlier signature than sig has the same key (LiteRT keeps the first). */
static bool
signature_key_seen(pl_py_interp *self, uint32_t sig)
{
    pl_signature_info a, b;
    pl_interp_signature(self->it, sig, &a);
    for (uint32_t j = 0; j < sig; j++) {
        pl_interp_signature(self->it, j, &b);
        if (a.key_len == b.key_len && memcmp(a.key, b.key, a.key_len) == 0)
            return true;
    }
    return false;
}

static PyObject *
signature_dict(pl_py_interp *self, uint32_t sig)
{
    pl_signature_info si;
    pl_interp_signature(self->it, sig, &si);
    return Py_BuildValue("{s:N,s:I,s:N,s:N}",
                         "key", PyUnicode_DecodeUTF8(si.key, si.key_len, "replace"),
                         "subgraph", si.subgraph,
                         "inputs", signature_io(self, sig, false, si.input_count),
                         "outputs", signature_io(self, sig, true, si.output_count));
}

PyObject *
pl_py_subgraphs_signatures(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    uint32_t n = pl_interp_signature_count(self->it);
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        if (signature_key_seen(self, i))
            continue;
        PyObject *d = signature_dict(self, i);
        if (d == NULL || PyList_Append(list, d) < 0)
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}
