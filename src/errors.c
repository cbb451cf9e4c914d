/* errors.c - picolite's exception classes and the one pl_status -> exception mapping. */
#include "pl_py.h"

#include <stdarg.h>

/* Class attributes give the documented fields a value (None) even on user-made instances. */
static PyObject *
new_error(const char *name, const char *doc, PyObject *bases, const char *const *attrs)
{
    PyObject *dict = PyDict_New();
    PyObject *cls = NULL;
    if (dict == NULL)
        return NULL;
    for (; attrs != NULL && *attrs != NULL; attrs++) {
        if (PyDict_SetItemString(dict, *attrs, Py_None) < 0)
            goto done;
    }
    cls = PyErr_NewExceptionWithDoc(name, doc, bases, dict);
done:
    Py_DECREF(dict);
    return cls;
}

static PyObject *
new_sub(const char *name, const char *doc, PyObject *base, PyObject *builtin,
        const char *const *attrs)
{
    PyObject *bases = builtin ? PyTuple_Pack(2, base, builtin) : PyTuple_Pack(1, base);
    if (bases == NULL)
        return NULL;
    PyObject *cls = new_error(name, doc, bases, attrs);
    Py_DECREF(bases);
    return cls;
}

static int
add(PyObject *m, const char *name, PyObject *cls)
{
    return cls == NULL ? -1 : PyModule_AddObjectRef(m, name, cls);
}

int
pl_py_errors_init(PyObject *m, pl_py_state *st)
{
    static const char *const arena_attrs[] = {"required", "available", NULL};
    static const char *const op_attrs[] = {"op_name", "node_index", NULL};
    st->error = new_error("picolite.Error", "Base class of picolite's errors.",
                          PyExc_Exception, NULL);
    if (add(m, "Error", st->error) < 0)
        return -1;
    st->model_error = new_sub("picolite.ModelError", "The model file is malformed or "
                              "inconsistent.", st->error, PyExc_ValueError, NULL);
    if (add(m, "ModelError", st->model_error) < 0)
        return -1;
    /* RuntimeErrors, as LiteRT's allocate_tensors() and TFLM's constructor raise them */
    st->arena_error = new_sub("picolite.ArenaTooSmallError", "The arena is too small: "
                              ".required (None when unknown) and .available bytes.",
                              st->error, PyExc_RuntimeError, arena_attrs);
    if (add(m, "ArenaTooSmallError", st->arena_error) < 0)
        return -1;
    st->unsupported = new_sub("picolite.UnsupportedOpError", "An operator, type or parameter "
                              "picolite does not run: .op_name, .node_index.",
                              st->error, PyExc_RuntimeError, op_attrs);
    if (add(m, "UnsupportedOpError", st->unsupported) < 0)
        return -1;
    st->state_error = new_sub("picolite.StateError", "A call in the wrong state (not "
                              "allocated, busy, closed, views alive).",
                              st->error, PyExc_RuntimeError, NULL);
    return add(m, "StateError", st->state_error);
}

static PyObject *
size_or_none(size_t n, bool known)
{
    return known ? PyLong_FromSize_t(n) : Py_NewRef(Py_None);
}

static int
set_attr(PyObject *exc, const char *name, PyObject *value)
{
    if (value == NULL)
        return -1;
    int rc = PyObject_SetAttrString(exc, name, value);
    Py_DECREF(value);
    return rc;
}

/* Sets the instance's fields from err; -1 when a field could not be set. */
static int
fill(pl_py_state *st, PyObject *cls, PyObject *exc, const pl_error *err)
{
    if (cls == st->arena_error) {
        if (set_attr(exc, "required", size_or_none(err->required, err->required != 0)) < 0)
            return -1;
        return set_attr(exc, "available", PyLong_FromSize_t(err->available));
    }
    if (cls == st->unsupported) {
        PyObject *op = err->op_name[0] ? PyUnicode_DecodeUTF8(err->op_name,
                                                              strlen(err->op_name),
                                                              "backslashreplace")
                                       : Py_NewRef(Py_None);
        if (set_attr(exc, "op_name", op) < 0)
            return -1;
        return set_attr(exc, "node_index", err->node >= 0 ? PyLong_FromLong(err->node)
                                                          : Py_NewRef(Py_None));
    }
    return 0;
}

static PyObject *
class_for(pl_py_state *st, pl_status status)
{
    switch (status) {
    case PL_ERR_MODEL: return st->model_error;
    case PL_ERR_ARENA: return st->arena_error;
    case PL_ERR_UNSUPPORTED: return st->unsupported;
    case PL_ERR_STATE: return st->state_error;
    case PL_ERR_ARG: return PyExc_ValueError;
    case PL_OK:
    case PL_ABORTED: break; /* not errors */
    }
    return NULL;
}

PyObject *
pl_py_raise(pl_py_state *st, pl_status status, const pl_error *err)
{
    PyObject *cls = class_for(st, status);
    if (cls == NULL) {
        PyErr_Format(PyExc_SystemError, "picolite: unexpected status %d (%s)", (int)status,
                     err->msg);
        return NULL;
    }
    /* a model's bytes (a custom op's name) or a cut at the buffer's end may leave invalid
    ** UTF-8 in the message: its bytes are shown, never a UnicodeDecodeError raised */
    const char *msg = err->msg[0] ? err->msg : pl_status_name(status);
    PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "backslashreplace");
    if (text == NULL)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(cls, text);
    Py_DECREF(text);
    if (exc == NULL)
        return NULL;
    if (fill(st, cls, exc, err) == 0)
        PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *
pl_py_state_error(pl_py_state *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (msg != NULL) {
        PyErr_SetObject(st->state_error, msg);
        Py_DECREF(msg);
    }
    return NULL;
}

int
pl_py_planner(pl_py_state *st, const char *name, pl_planner *out)
{
    pl_error err;
    pl_error_clear(&err);
    pl_status s = pl_planner_from_name(name, out, &err);
    if (s != PL_OK) {
        pl_py_raise(st, s, &err);
        return -1;
    }
    return 0;
}

int
pl_py_target(const char *name, pl_target *out)
{
    int t = pl_target_from_name(name);
    if (t < 0) {
        PyObject *names = PyList_New(0);
        for (int k = 0; names != NULL && k < PL_TARGET_COUNT; k++) {
            PyObject *n = PyUnicode_FromString(pl_target_name((pl_target)k));
            if (n == NULL || PyList_Append(names, n) < 0) {
                Py_XDECREF(n);
                Py_CLEAR(names);
                break;
            }
            Py_DECREF(n);
        }
        if (names != NULL) {
            PyErr_Format(PyExc_ValueError, "unknown target '%s': one of %R", name, names);
            Py_DECREF(names);
        }
        return -1;
    }
    *out = (pl_target)t;
    return 0;
}
