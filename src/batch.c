/* batch.c - _picolite._invoke_batch(interp, inputs, outputs): many samples, one GIL release.
**
** inputs and outputs are sequences of C-contiguous buffers, one per model input / output,
** each holding n samples of exactly that tensor's byte size back to back. Sample i is copied
** into the input tensors, the model runs, and the outputs are copied into sample i's slots,
** all without the GIL, so one interpreter per thread scales with the cores: per-sample
** Python overhead would otherwise serialise the threads. With reset, the variable tensors
** are reset before every sample, so each sample's result is independent of the others. */
#include "pl_py.h"

#include <string.h>

/* Models with more inputs or outputs than this run sample by sample from Python. */
#define BATCH_MAX_IO 64

/* One side (inputs or outputs): the caller's buffers and the tensors they feed or drain. */
typedef struct batch_side {
    Py_buffer views[BATCH_MAX_IO];
    uint8_t *tensor_data[BATCH_MAX_IO];
    size_t tensor_bytes[BATCH_MAX_IO];
    Py_ssize_t count; /* views acquired (released on every path) */
} batch_side;

static void
release_side(batch_side *side)
{
    for (Py_ssize_t i = 0; i < side->count; i++)
        PyBuffer_Release(&side->views[i]);
    side->count = 0;
}

/* Acquires the buffers of seq for the tensors `indices` and works out the sample count
** (*n, -1 until the first buffer fixes it). Raises ValueError naming the mismatch. */
static int
acquire_side(pl_py_interp *self, PyObject *seq, PyObject *indices, bool writable,
             const char *what, batch_side *side, Py_ssize_t *n)
{
    PyObject *fast = PySequence_Fast(seq, "inputs and outputs must be sequences of buffers");
    if (fast == NULL)
        return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    int rc = -1;
    if (count != PyTuple_GET_SIZE(indices) || count > BATCH_MAX_IO) {
        PyErr_Format(PyExc_ValueError, "%s: %zd buffers for %zd tensors", what, count,
                     PyTuple_GET_SIZE(indices));
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        long index = PyLong_AsLong(PyTuple_GET_ITEM(indices, k));
        pl_tensor_info info;
        if (index < 0 || pl_interp_tensor(self->it, (uint32_t)index, &info) != PL_OK ||
            info.data == NULL) {
            PyErr_Format(PyExc_ValueError, "%s %zd: tensor %ld has no memory", what, k, index);
            goto done;
        }
        int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(fast, k), &side->views[k], flags) < 0)
            goto done;
        side->count = k + 1;
        side->tensor_data[k] = info.data;
        side->tensor_bytes[k] = info.bytes;
        Py_ssize_t len = side->views[k].len;
        Py_ssize_t samples = info.bytes == 0 ? *n : len / (Py_ssize_t)info.bytes;
        if ((info.bytes == 0 && len != 0) || (info.bytes > 0 && len % (Py_ssize_t)info.bytes) ||
            (*n >= 0 && samples != *n)) {
            PyErr_Format(PyExc_ValueError, "%s %zd: %zd bytes is not %zd samples of %zu bytes",
                         what, k, len, *n >= 0 ? *n : samples, info.bytes);
            goto done;
        }
        *n = samples;
    }
    rc = 0;
done:
    Py_DECREF(fast);
    return rc;
}

/* The GIL-free loop; stops at the first failure and reports the sample through *failed. */
static pl_status
run_samples(pl_py_interp *self, const batch_side *in, const batch_side *out, Py_ssize_t n,
            bool reset, Py_ssize_t *failed)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        *failed = i;
        if (reset)
            PL_TRY(pl_interp_reset(self->it));
        for (Py_ssize_t k = 0; k < in->count; k++)
            memcpy(in->tensor_data[k], (const uint8_t *)in->views[k].buf +
                   (size_t)i * in->tensor_bytes[k], in->tensor_bytes[k]);
        pl_py_clean_vector_state();
        pl_status s = pl_interp_invoke(self->it);
        if (s != PL_OK && s != PL_ABORTED) /* aborted: the outputs keep their last values */
            return s;
        for (Py_ssize_t k = 0; k < out->count; k++)
            memcpy((uint8_t *)out->views[k].buf + (size_t)i * out->tensor_bytes[k],
                   out->tensor_data[k], out->tensor_bytes[k]);
    }
    return PL_OK;
}

/* The runtime's exception, with .sample naming the sample that failed. */
static void
raise_for_sample(pl_py_state *st, pl_status s, const pl_error *err, Py_ssize_t sample)
{
    pl_py_raise(st, s, err);
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
#endif
    PyObject *index = PyLong_FromSsize_t(sample);
    if (exc != NULL && index != NULL && PyObject_SetAttrString(exc, "sample", index) < 0)
        PyErr_Clear(); /* the runtime's error stands without its sample number */
    Py_XDECREF(index);
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(type, exc, tb);
#endif
}

PyObject *
pl_py_invoke_batch(PyObject *module, PyObject *args)
{
    pl_py_state *st = PyModule_GetState(module);
    PyObject *obj, *inputs, *outputs, *in_idx, *out_idx;
    int reset = 0;
    if (!PyArg_ParseTuple(args, "O!OO!OO!|p:_invoke_batch", st->interp_type, &obj, &inputs,
                          &PyTuple_Type, &in_idx, &outputs, &PyTuple_Type, &out_idx, &reset))
        return NULL;
    pl_py_interp *self = (pl_py_interp *)obj;
    if (pl_py_interp_invokable(self) < 0)
        return NULL;
    batch_side in = {.count = 0}, out = {.count = 0};
    Py_ssize_t n = -1, failed = -1;
    PyObject *result = NULL;
    if (acquire_side(self, inputs, in_idx, false, "input", &in, &n) < 0 ||
        acquire_side(self, outputs, out_idx, true, "output", &out, &n) < 0)
        goto done;
    pl_status s;
    self->busy = true;
    Py_BEGIN_ALLOW_THREADS
    s = run_samples(self, &in, &out, n < 0 ? 0 : n, reset != 0, &failed);
    Py_END_ALLOW_THREADS
    self->busy = false;
    if (s != PL_OK) {
        if (!pl_py_interrupt_reraise(self)) /* Ctrl-C: KeyboardInterrupt as itself */
            raise_for_sample(st, s, pl_interp_error(self->it), failed);
        goto done;
    }
    result = PyLong_FromSsize_t(n < 0 ? 0 : n);
done:
    release_side(&in);
    release_side(&out);
    return result;
}
