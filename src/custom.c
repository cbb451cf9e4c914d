/* custom.c - operators written in Python: a resolver that wraps the builtin one.
**
** Interpreter(custom_ops={"Name": op}) builds one pl_registration per operator, embedded as
** the first member of a pl_py_custom_op, so the kernel callbacks get back to the Python
** object through node->registration. allocate and invoke run without the GIL: the callbacks
** take it, hand the tensors to picolite._custom's adapter (memoryviews over the arena, released
** when it returns; the operator gets copies), and release it. An exception raised by the operator is kept and
** re-raised as itself once the C call returns; the runtime sees a failed node. */
#include "pl_py.h"

#include <string.h>


typedef struct pl_py_custom_op {
    pl_registration reg;          /* first: node->registration leads back here */
    struct pl_py_custom *owner;
    PyObject *op;                 /* strong: the user's operator */
    PyObject *name;               /* strong: the custom code, a str */
    const char *utf8;             /* name's UTF-8, alive with name */
    Py_ssize_t utf8_len;
} pl_py_custom_op;

struct pl_py_custom {
    pl_resolver resolver;         /* find = custom_find, self = this */
    const pl_resolver *inner;
    PyObject *adapter;            /* strong: picolite._api._custom_call */
    PyObject *error;              /* strong: the first exception an operator raised, or NULL */
    Py_ssize_t n;
    pl_py_custom_op ops[];
};

static const pl_registration *
custom_find(const void *self, int32_t code, const char *name, uint32_t len, int32_t version)
{
    const pl_py_custom *c = self;
    for (Py_ssize_t i = 0; code == PL_BUILTIN_CUSTOM && name != NULL && i < c->n; i++) {
        const pl_py_custom_op *op = &c->ops[i];
        if ((size_t)op->utf8_len == len && memcmp(op->utf8, name, len) == 0)
            return &op->reg;
    }
    return c->inner->find(c->inner->self, code, name, len, version);
}

/* (memoryview or None, type, shape) of one tensor: a view wherever the tensor has memory
** (in prepare only constants have), writable only for outputs while invoking. */
static PyObject *
tensor_item(const pl_tensor *t, int writable, int invoking)
{
    PyObject *shape = PyTuple_New(t->ndims);
    for (int32_t i = 0; shape != NULL && i < t->ndims; i++) {
        PyObject *d = PyLong_FromLong(t->dims[i]);
        if (d == NULL)
            Py_CLEAR(shape);
        else
            PyTuple_SET_ITEM(shape, i, d);
    }
    if (shape == NULL)
        return NULL;
    PyObject *mem = t->data != NULL
        ? PyMemoryView_FromMemory(t->data, (Py_ssize_t)t->bytes,
                                  writable && invoking ? PyBUF_WRITE : PyBUF_READ)
        : Py_NewRef(Py_None);
    if (mem == NULL) {
        Py_DECREF(shape);
        return NULL;
    }
    return Py_BuildValue("(NiN)", mem, (int)t->type, shape);
}

static PyObject *
tensor_list(pl_context *ctx, pl_vec v, int writable, int invoking)
{
    PyObject *list = PyList_New(v.n);
    for (uint32_t i = 0; list != NULL && i < v.n; i++) {
        pl_tensor t;
        PyObject *item = NULL;
        if (ctx->get_eval(ctx, pl_vec_i32(v, i), &t) == PL_OK)
            item = tensor_item(&t, writable, invoking);
        else
            PyErr_SetString(PyExc_RuntimeError, "picolite: a tensor of the node is unreadable");
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* prepare: the adapter returns one shape per output, each given to the runtime. */
static pl_status
apply_shapes(pl_context *ctx, pl_node *node, PyObject *shapes)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(shapes);
    for (Py_ssize_t i = 0; i < n && (uint32_t)i < node->outputs.n; i++) {
        PyObject *shape = PySequence_Fast_GET_ITEM(shapes, i);
        Py_ssize_t nd = PyTuple_Size(shape);
        int32_t dims[PL_MAX_DIMS];
        if (nd < 0 || nd > PL_MAX_DIMS)
            return ctx->fail(ctx, PL_ERR_ARG, "output %zd: rank %zd (at most %d)", i, nd,
                             PL_MAX_DIMS);
        for (Py_ssize_t k = 0; k < nd; k++)
            dims[k] = (int32_t)PyLong_AsLong(PyTuple_GET_ITEM(shape, k));
        PL_TRY(ctx->set_shape(ctx, pl_node_output(node, (uint32_t)i), (int32_t)nd, dims));
    }
    return PL_OK;
}

/* Keeps the operator's exception for the host and records a failure naming it. */
static pl_status
op_failed(pl_context *ctx, pl_py_custom_op *op)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL)
        PyException_SetTraceback(value, tb);
    PyObject *text = value != NULL ? PyObject_Str(value) : NULL;
    const char *msg = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
    if (msg == NULL)
        PyErr_Clear();
    pl_status s = ctx->fail(ctx, PL_ERR_ARG, "custom operator %s raised %s: %s", op->utf8,
                            type != NULL ? ((PyTypeObject *)type)->tp_name : "an error",
                            msg != NULL ? msg : "");
    Py_XDECREF(text);
    if (op->owner->error == NULL && value != NULL)
        op->owner->error = Py_NewRef(value);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return s;
}

static pl_status
call_op(pl_context *ctx, pl_node *node, int invoking)
{
    pl_py_custom_op *op = (pl_py_custom_op *)(void *)node->registration;
    pl_status s = PL_OK;
    PyObject *ins = tensor_list(ctx, node->inputs, 0, invoking);
    PyObject *outs = ins != NULL ? tensor_list(ctx, node->outputs, 1, invoking) : NULL;
    PyObject *r = outs == NULL ? NULL
        : PyObject_CallFunction(op->owner->adapter, "OOsOO", op->op, op->name,
                                invoking ? "invoke" : "prepare", ins, outs);
    PyObject *shapes = r != NULL && !invoking ? PySequence_Fast(r, "shapes") : NULL;
    if (r == NULL || (!invoking && shapes == NULL))
        s = op_failed(ctx, op);
    else if (shapes != NULL)
        s = apply_shapes(ctx, node, shapes);
    if (s == PL_OK && PyErr_Occurred())
        s = op_failed(ctx, op);
    Py_XDECREF(shapes);
    Py_XDECREF(r);
    Py_XDECREF(outs);
    Py_XDECREF(ins);
    return s;
}

/* The runtime calls these without the GIL (allocate, invoke, sizing runs). */
static pl_status
custom_prepare(pl_context *ctx, pl_node *node)
{
    PyGILState_STATE g = PyGILState_Ensure();
    pl_status s = call_op(ctx, node, 0);
    PyGILState_Release(g);
    return s;
}

static pl_status
custom_invoke(pl_context *ctx, pl_node *node)
{
    PyGILState_STATE g = PyGILState_Ensure();
    pl_status s = call_op(ctx, node, 1);
    PyGILState_Release(g);
    return s;
}

pl_py_custom *
pl_py_custom_new(PyObject *ops, PyObject *adapter)
{
    if (!PyDict_Check(ops)) {
        PyErr_SetString(PyExc_TypeError, "custom_ops must be a dict {name: operator}");
        return NULL;
    }
    Py_ssize_t n = PyDict_Size(ops), pos = 0, i = 0;
    pl_py_custom *c = PyMem_Calloc(1, sizeof *c + (size_t)n * sizeof c->ops[0]);
    if (c == NULL)
        return (pl_py_custom *)PyErr_NoMemory();
    c->resolver.find = custom_find;
    c->resolver.self = c;
    c->inner = pl_builtin_resolver();
    c->adapter = Py_NewRef(adapter);
    PyObject *key, *value;
    while (PyDict_Next(ops, &pos, &key, &value)) {
        pl_py_custom_op *op = &c->ops[i];
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "custom_ops: names must be str");
            pl_py_custom_free(c);
            return NULL;
        }
        op->utf8 = PyUnicode_AsUTF8AndSize(key, &op->utf8_len);
        if (op->utf8 == NULL) {
            pl_py_custom_free(c);
            return NULL;
        }
        op->owner = c;
        op->name = Py_NewRef(key);
        op->op = Py_NewRef(value);
        op->reg.name = op->utf8;
        op->reg.builtin_code = PL_BUILTIN_CUSTOM;
        op->reg.prepare = custom_prepare;
        op->reg.invoke = custom_invoke;
        c->n = ++i;
    }
    return c;
}

const pl_resolver *
pl_py_custom_resolver(const pl_py_custom *c)
{
    return &c->resolver;
}

int
pl_py_custom_reraise(pl_py_custom *c)
{
    if (c == NULL || c->error == NULL)
        return 0;
    PyObject *e = c->error;
    c->error = NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(e), e);
    Py_DECREF(e);
    return 1;
}

int
pl_py_custom_traverse(const pl_py_custom *c, visitproc visit, void *arg)
{
    if (c == NULL)
        return 0;
    Py_VISIT(c->adapter);
    Py_VISIT(c->error);
    for (Py_ssize_t i = 0; i < c->n; i++) {
        Py_VISIT(c->ops[i].op);
        Py_VISIT(c->ops[i].name);
    }
    return 0;
}

void
pl_py_custom_free(pl_py_custom *c)
{
    if (c == NULL)
        return;
    for (Py_ssize_t i = 0; i < c->n; i++) {
        Py_CLEAR(c->ops[i].op);
        Py_CLEAR(c->ops[i].name);
    }
    Py_CLEAR(c->adapter);
    Py_CLEAR(c->error);
    PyMem_Free(c);
}
