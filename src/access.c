/* access.c - what an _Interpreter shows by index: the input and output tensor indices, the
** raw facts of a tensor and of a node (the selected subgraph's), and a tensor's memory as a
** copy, a written copy or an exported view.
**
** Every call checks the interpreter first (pl_py_interp_ready: open, not busy, its arena
** records intact); an index out of range is a ValueError in tf.lite's words. */
#include "pl_py.h"

#include <string.h>

static PyObject *
index_tuple(pl_py_interp *self, uint32_t n, int32_t (*at)(const pl_interp *, uint32_t))
{
    PyObject *t = PyTuple_New(n);
    for (uint32_t i = 0; t != NULL && i < n; i++) {
        PyObject *v = PyLong_FromLong(at(self->it, i));
        if (v == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

PyObject *
pl_py_access_inputs(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    return index_tuple(self, pl_interp_input_count(self->it), pl_interp_input_index);
}

PyObject *
pl_py_access_outputs(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    return index_tuple(self, pl_interp_output_count(self->it), pl_interp_output_index);
}

static PyObject *
vec_tuple(pl_vec v)
{
    PyObject *t = PyTuple_New(v.n);
    for (uint32_t i = 0; t != NULL && i < v.n; i++) {
        PyObject *x = PyLong_FromLong(pl_vec_i32(v, i));
        if (x == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *
dims_tuple(const int32_t *dims, int32_t n)
{
    PyObject *t = PyTuple_New(n < 0 ? 0 : n);
    for (int32_t i = 0; t != NULL && i < n; i++) {
        PyObject *x = PyLong_FromLong(dims[i]);
        if (x == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* Scales (float32) and zero points (int64) as two tuples. */
static PyObject *
quant_tuples(const pl_tensor_info *ti)
{
    PyObject *sc = PyTuple_New(ti->scale.n);
    PyObject *zp = PyTuple_New(ti->zero_point.n);
    for (uint32_t i = 0; sc != NULL && i < ti->scale.n; i++) {
        PyObject *x = PyFloat_FromDouble(pl_vec_f32(ti->scale, i));
        if (x == NULL)
            Py_CLEAR(sc);
        else
            PyTuple_SET_ITEM(sc, i, x);
    }
    for (uint32_t i = 0; zp != NULL && i < ti->zero_point.n; i++) {
        PyObject *x = PyLong_FromLongLong(pl_vec_i64(ti->zero_point, i));
        if (x == NULL)
            Py_CLEAR(zp);
        else
            PyTuple_SET_ITEM(zp, i, x);
    }
    if (sc == NULL || zp == NULL) {
        Py_XDECREF(sc);
        Py_XDECREF(zp);
        return NULL;
    }
    return Py_BuildValue("(NN)", sc, zp);
}

/* tf.lite's wording for a bad index; fills *ti. */
static int
tensor_at(pl_py_interp *self, PyObject *arg, uint32_t *index, pl_tensor_info *ti)
{
    if (pl_py_interp_ready(self) < 0)
        return -1;
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return -1;
    uint32_t n = pl_interp_tensor_count(self->it);
    if (i < 0 || (unsigned long)i >= n) {
        PyErr_Format(PyExc_ValueError, "Invalid tensor index %ld exceeds max tensor index %u",
                     i, n);
        return -1;
    }
    pl_status s = pl_interp_tensor(self->it, (uint32_t)i, ti);
    if (s != PL_OK) {
        pl_py_interp_raise(self, s);
        return -1;
    }
    *index = (uint32_t)i;
    return 0;
}

static PyObject *
offset_or_none(pl_py_interp *self, const void *data)
{
    const uint8_t *p = data, *base = self->arena->data;
    if (p == NULL || p < base || (size_t)(p - base) >= self->arena->size)
        Py_RETURN_NONE;
    return PyLong_FromSize_t((size_t)(p - base));
}

PyObject *
pl_py_access_tensor_info(pl_py_interp *self, PyObject *arg)
{
    pl_tensor_info ti;
    uint32_t index;
    if (tensor_at(self, arg, &index, &ti) < 0)
        return NULL;
    PyObject *q = quant_tuples(&ti);
    if (q == NULL)
        return NULL;
    return Py_BuildValue("{s:I,s:N,s:i,s:s,s:N,s:N,s:n,s:O,s:O,s:O,s:O,s:N,s:N,s:i}",
                         "index", index,
                         "name", PyUnicode_DecodeUTF8(ti.name, ti.name_len, "replace"),
                         "type", (int)ti.type, "type_name", pl_type_name(ti.type),
                         "shape", dims_tuple(ti.dims, ti.ndims),
                         "shape_signature", dims_tuple(ti.dims_signature, ti.ndims_signature),
                         "bytes", (Py_ssize_t)ti.bytes,
                         "is_constant", ti.is_constant ? Py_True : Py_False,
                         "is_variable", ti.is_variable ? Py_True : Py_False,
                         "shared", ti.shared ? Py_True : Py_False,
                         "has_data", ti.data != NULL ? Py_True : Py_False,
                         "offset", offset_or_none(self, ti.data),
                         "quantization", q,
                         "quantized_dimension", (int)ti.quantized_dimension);
}

PyObject *
pl_py_access_node_info(pl_py_interp *self, PyObject *arg)
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    uint32_t n = pl_interp_node_count(self->it);
    if (i < 0 || (unsigned long)i >= n)
        return PyErr_Format(PyExc_ValueError, "Invalid node index %ld: the model has %u nodes",
                            i, n);
    pl_node_info ni;
    pl_status s = pl_interp_node(self->it, (uint32_t)i, &ni);
    if (s != PL_OK)
        return pl_py_interp_raise(self, s);
    return Py_BuildValue("{s:l,s:s,s:i,s:i,s:N,s:N,s:N}", "index", i,
                         "op_name", ni.op_name ? ni.op_name : "UNKNOWN",
                         "builtin_code", (int)ni.builtin_code, "version", (int)ni.version,
                         "inputs", vec_tuple(ni.inputs), "outputs", vec_tuple(ni.outputs),
                         "intermediates", vec_tuple(ni.intermediates));
}

/* ValueError with fmt, which takes the tensor index (%u) then its name (%U): names are not
** NUL-terminated, and "%.*s" prints literally in PyUnicode_FromFormat before 3.12. */
static void
raise_tensor(const char *fmt, uint32_t index, const pl_tensor_info *ti)
{
    PyObject *name = PyUnicode_DecodeUTF8(ti->name, ti->name_len, "replace");
    if (name == NULL)
        return;
    PyErr_Format(PyExc_ValueError, fmt, index, name);
    Py_DECREF(name);
}

/* The tensor's memory, or ValueError saying why there is none. A copy (kept) is refused for
** an intermediate whose memory later nodes reuse: its bytes would silently be another
** tensor's; raw views (tensor()) may still look, as in tf.lite. */
static int
tensor_memory(pl_py_interp *self, PyObject *arg, bool kept, pl_tensor_info *ti)
{
    uint32_t index;
    if (tensor_at(self, arg, &index, ti) < 0)
        return -1;
    if (ti->shared && (kept || ti->data == NULL)) {
        raise_tensor("Tensor %u (%U) is an intermediate whose memory is shared with other "
                     "tensors, so its value is not kept after invoke(); create the "
                     "Interpreter with preserve_all_tensors=True to read it", index, ti);
        return -1;
    }
    if (ti->data != NULL || (self->allocated && ti->bytes == 0)) /* empty: nothing to reach */
        return 0;
    if (!self->allocated) {
        PyErr_SetString(PyExc_ValueError, "Tensor data is null. Run allocate_tensors() first");
    } else {
        raise_tensor("Tensor %u (%U) has no data", index, ti);
    }
    return -1;
}

PyObject *
pl_py_access_tensor_buffer(pl_py_interp *self, PyObject *arg)
{
    pl_tensor_info ti;
    if (tensor_memory(self, arg, false, &ti) < 0)
        return NULL;
    return pl_py_tensor_new(self, ti.data, ti.bytes, ti.is_constant);
}

PyObject *
pl_py_access_get_bytes(pl_py_interp *self, PyObject *arg)
{
    pl_tensor_info ti;
    if (tensor_memory(self, arg, true, &ti) < 0)
        return NULL;
    return PyByteArray_FromStringAndSize(ti.data, (Py_ssize_t)ti.bytes);
}

PyObject *
pl_py_access_set_bytes(pl_py_interp *self, PyObject *args)
{
    PyObject *index, *result = NULL;
    Py_buffer value = {0};
    pl_tensor_info ti;
    if (!PyArg_ParseTuple(args, "Oy*:set_bytes", &index, &value))
        return NULL;
    if (tensor_memory(self, index, false, &ti) < 0)
        goto done;
    if (ti.is_constant) {
        raise_tensor("Cannot set tensor: tensor %u (%U) is a constant of the model",
                     (uint32_t)PyLong_AsUnsignedLong(index), &ti);
        goto done;
    }
    if ((size_t)value.len != ti.bytes) {
        PyErr_Format(PyExc_ValueError, "Cannot set tensor: got %zd bytes but expected %zu",
                     value.len, ti.bytes);
        goto done;
    }
    if (ti.bytes > 0) /* an empty tensor (a dim resized to 0) may have no memory */
        memcpy(ti.data, value.buf, ti.bytes);
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&value);
    return result;
}
