/* input_shapes.c - (input position, dims) pairs from Python into pl_interp_options.
**
** picolite.Interpreter.resize_tensor_input and required_arena_size(input_shapes=) hand the C
** side a list of pairs; the C interpreter checks the values (rank, dims >= 1, ...). Here:
** only the Python types and the int32 range. */
#include "pl_py.h"

#include <string.h>

static int
parse_dims(PyObject *obj, Py_ssize_t i, int32_t *dims, int32_t *ndims)
{
    PyObject *seq = PySequence_Fast(obj, "each input shape's dims must be a sequence");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int rc = -1;
    if (n > PL_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "input shape %zd: rank %zd (at most %d)", i, n,
                     PL_MAX_DIMS);
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (v == -1 && PyErr_Occurred())
            goto done;
        if (v < INT32_MIN || v > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "input shape %zd: dim %zd = %ld is outside int32",
                         i, k, v);
            goto done;
        }
        dims[k] = (int32_t)v;
    }
    *ndims = (int32_t)n;
    rc = 0;
done:
    Py_DECREF(seq);
    return rc;
}

int
pl_py_shapes_parse(PyObject *obj, pl_py_shapes *out)
{
    memset(out, 0, sizeof *out);
    if (obj == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(obj, "input_shapes must be a sequence of (input, dims)");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int rc = -1;
    if (n > 0) {
        out->items = PyMem_Calloc((size_t)n, sizeof *out->items);
        out->dims = PyMem_Calloc((size_t)n * PL_MAX_DIMS, sizeof *out->dims);
        if (out->items == NULL || out->dims == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned int input = 0;
        PyObject *dims = NULL;
        pl_input_shape *q = &out->items[i];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "IO;each input shape is "
                              "(input position, dims)", &input, &dims) ||
            parse_dims(dims, i, out->dims + i * PL_MAX_DIMS, &q->ndims) < 0)
            goto done;
        q->input = input;
        q->dims = out->dims + i * PL_MAX_DIMS;
        out->count = (uint32_t)(i + 1);
    }
    rc = 0;
done:
    Py_DECREF(seq);
    if (rc < 0)
        pl_py_shapes_free(out);
    return rc;
}

void
pl_py_shapes_free(pl_py_shapes *s)
{
    PyMem_Free(s->items);
    PyMem_Free(s->dims);
    memset(s, 0, sizeof *s);
}
