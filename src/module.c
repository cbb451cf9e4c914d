/* module.c - the _picolite extension module: multi-phase init, module state, types.
**
** Everything a call needs is in the module state (pl_py_state): the three types and the
** exception classes. There are no C globals, so the module can be loaded in several
** (sub)interpreters. */
#include "pl_py.h"

static PyObject *
version(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    return PyUnicode_FromString(PL_VERSION_STRING);
}

static PyObject *
supported_ops(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    uint32_t n = pl_builtin_op_count();
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (list == NULL)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        int32_t code;
        PyObject *name = PyUnicode_FromString(pl_builtin_op(i, &code));
        if (name == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, name);
    }
    return list;
}

static int
module_exec(PyObject *m)
{
    pl_py_state *st = PyModule_GetState(m);
    if (pl_py_errors_init(m, st) < 0 || pl_py_arena_init(m, st) < 0 ||
        pl_py_interp_init(m, st) < 0 || pl_py_tensor_init(m, st) < 0 ||
        PyModule_AddFunctions(m, pl_py_plan_methods) < 0 ||
        PyModule_AddFunctions(m, pl_py_kernel_methods) < 0)
        return -1;
    return PyModule_AddStringConstant(m, "__version__", PL_VERSION_STRING);
}

static int
module_traverse(PyObject *m, visitproc visit, void *arg)
{
    pl_py_state *st = PyModule_GetState(m);
    Py_VISIT(st->arena_type);
    Py_VISIT(st->interp_type);
    Py_VISIT(st->tensor_type);
    Py_VISIT(st->error);
    Py_VISIT(st->model_error);
    Py_VISIT(st->arena_error);
    Py_VISIT(st->unsupported);
    Py_VISIT(st->state_error);
    return 0;
}

static int
module_clear(PyObject *m)
{
    pl_py_state *st = PyModule_GetState(m);
    Py_CLEAR(st->arena_type);
    Py_CLEAR(st->interp_type);
    Py_CLEAR(st->tensor_type);
    Py_CLEAR(st->error);
    Py_CLEAR(st->model_error);
    Py_CLEAR(st->arena_error);
    Py_CLEAR(st->unsupported);
    Py_CLEAR(st->state_error);
    return 0;
}

/* Called even when exec failed half-way, so exec need not clean up. */
static void
module_free(void *m)
{
    module_clear((PyObject *)m);
}

static PyMethodDef version_method[] = {
    {"version", version, METH_NOARGS, "The C runtime's version string."},
    {"supported_ops", supported_ops, METH_NOARGS,
     "The operators the builtin resolver runs: builtin names, then custom names."},
    {"_profile", pl_py_profile, METH_VARARGS,
     "_profile(interp, runs): per-node invoke nanoseconds, runs rows of uint64 (bytes)."},
    {"_invoke_batch", pl_py_invoke_batch, METH_VARARGS,
     "_invoke_batch(interp, inputs, input_indices, outputs, output_indices, reset=False): runs "
     "the samples of the input buffers into the output buffers without the GIL; returns the "
     "count."},
    {"tflm_arena", (PyCFunction)(void (*)(void))pl_py_tflm_arena, METH_VARARGS | METH_KEYWORDS,
     "tflm_arena(interp, target, arena_size=0): a TFLM target's arena figures (dict)."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "picolite._picolite",
    .m_doc = "The picolite C runtime.",
    .m_size = sizeof(pl_py_state),
    .m_methods = version_method,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC
PyInit__picolite(void)
{
    return PyModuleDef_Init(&module_def);
}
