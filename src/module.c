/* module.c - the _picolite extension module: multi-phase init, module state, types. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "picolite/picolite.h"

static PyObject *
version(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    return PyUnicode_FromString(PL_VERSION_STRING);
}

static int
module_exec(PyObject *module)
{
    return PyModule_AddStringConstant(module, "__version__", PL_VERSION_STRING);
}

static PyMethodDef module_methods[] = {
    {"version", version, METH_NOARGS, "The C runtime's version string."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "picolite._picolite",
    .m_doc = "The picolite C runtime.",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__picolite(void)
{
    return PyModuleDef_Init(&module_def);
}
