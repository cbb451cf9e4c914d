/* kernels.c - the builtin kernel table, for `picolite export-c` to name only a model's
** kernels (their registration functions) in the resolver it writes. */
#include "pl_py.h"

#include "kernels/custom_list.h"
#include "kernels/registry.h"

static PyObject *
builtin_kernels(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
#define PL_KERNEL_ITEM(name, code, prefix) \
    Py_BuildValue("(iss)", code, #name, "pl_" #prefix "_registration"),
#define PL_CUSTOM_ITEM(name, prefix) \
    Py_BuildValue("(iss)", 32, name, "pl_" #prefix "_registration"),
    PyObject *items[] = {PL_KERNEL_LIST(PL_KERNEL_ITEM) PL_CUSTOM_KERNEL_LIST(PL_CUSTOM_ITEM)};
#undef PL_CUSTOM_ITEM
#undef PL_KERNEL_ITEM
    Py_ssize_t n = (Py_ssize_t)(sizeof items / sizeof items[0]);
    PyObject *result = PyTuple_New(n);
    int failed = result == NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i] == NULL)
            failed = 1;
        else if (result == NULL)
            Py_DECREF(items[i]);
        else
            PyTuple_SET_ITEM(result, i, items[i]); /* steals the item */
    }
    if (failed)
        Py_CLEAR(result); /* the tuple's empty slots are NULL, which dealloc skips */
    return result;
}

PyMethodDef pl_py_kernel_methods[] = {
    {"_kernel_sets", pl_py_kernel_sets, METH_NOARGS,
     "_kernel_sets(): the kernels= instruction sets this machine runs, 'portable' first."},
    {"_builtin_kernels", builtin_kernels, METH_NOARGS,
     "_builtin_kernels(): ((builtin code, operator name, registration function), ...); "
     "CUSTOM operators (code 32) by the name TFLM registers them under."},
    {NULL, NULL, 0, NULL},
};
