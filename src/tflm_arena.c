/* tflm_arena.c - _picolite.tflm_arena(interp, target, arena_size=0): a TFLM target's arena.
**
** Returns a dict: the firmware's arena_used_bytes, head, tail, min_arena_bytes (exact) and
** min_arena_bytes_16, the planner's buffer counts, and "recording": RecordingMicroAllocator's
** total/head/tail and its categories as (name, used, requested, count) tuples, plus its
** report text in TFLM's format. arena_size below the target's minimum raises
** ArenaTooSmallError(required, available). */
#include "pl_py.h"

#include <string.h>

static PyObject *
categories(const pl_recording *rec)
{
    PyObject *list = PyList_New(0);
    for (int c = 0; list != NULL && c < PL_CAT_COUNT; c++) {
        const pl_recording_entry *e = &rec->cat[c];
        if (c == PL_CAT_RESOURCE)
            continue; /* TFLM has no such category */
        PyObject *item = Py_BuildValue("(snnI)", pl_category_name((pl_category)c),
                                       (Py_ssize_t)e->used, (Py_ssize_t)e->requested, e->count);
        if (item == NULL || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* TFLM's PrintAllocations lines of a TFLM target's figures. */
static PyObject *
report_text(const pl_recording *rec)
{
    size_t n = pl_recording_format_tflm(rec, NULL, 0);
    char *buf = PyMem_Malloc(n + 1);
    if (buf == NULL)
        return PyErr_NoMemory();
    pl_recording_format_tflm(rec, buf, n + 1);
    PyObject *text = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)n, "replace");
    PyMem_Free(buf);
    return text;
}

static PyObject *
figures_dict(const pl_tflm_arena_figures *f)
{
    const pl_recording *r = &f->recording;
    PyObject *rec = Py_BuildValue(
        "{s:n,s:n,s:n,s:n,s:n,s:n,s:K,s:n,s:N,s:N}", "total", (Py_ssize_t)r->total,
        "head", (Py_ssize_t)r->head, "tail", (Py_ssize_t)r->tail,
        "head_tensors", (Py_ssize_t)r->head_tensors, "head_scratch", (Py_ssize_t)r->head_scratch,
        "temp_high_water", (Py_ssize_t)r->temp_high_water,
        "lower_bound", (unsigned long long)r->lower_bound, "min_arena_bytes", (Py_ssize_t)r->peak,
        "categories", categories(r), "text", report_text(r));
    if (rec == NULL)
        return NULL;
    return Py_BuildValue("{s:s,s:n,s:n,s:n,s:n,s:n,s:n,s:I,s:I,s:N}",
                         "target", pl_target_name(f->target),
                         "arena_size", (Py_ssize_t)f->arena_size,
                         "arena_used_bytes", (Py_ssize_t)f->arena_used_bytes,
                         "head", (Py_ssize_t)f->head, "tail", (Py_ssize_t)f->tail,
                         "min_arena_bytes", (Py_ssize_t)f->min_arena_bytes,
                         "min_arena_bytes_16", (Py_ssize_t)f->min_arena_bytes_16,
                         "planned_buffers", f->planned_buffers,
                         "scratch_buffers", f->scratch_buffers, "recording", rec);
}

PyObject *
pl_py_tflm_arena(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"interp", "target", "arena_size", NULL};
    pl_py_state *st = PyModule_GetState(module);
    PyObject *obj;
    const char *name;
    Py_ssize_t arena_size = 0;
    pl_target target;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!s|n:tflm_arena", keywords,
                                     st->interp_type, &obj, &name, &arena_size))
        return NULL;
    pl_py_interp *self = (pl_py_interp *)obj;
    if (pl_py_target(name, &target) < 0)
        return NULL;
    if (arena_size < 0)
        return PyErr_Format(PyExc_ValueError, "arena_size must be >= 0, got %zd", arena_size);
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    if (!self->allocated)
        return pl_py_state_error(st, "tflm_arena: allocate_tensors() first");
    pl_error err;
    pl_error_clear(&err);
    size_t need;
    pl_status s = pl_tflm_arena_scratch_size(self->it, target, &need, &err);
    if (s != PL_OK)
        return pl_py_raise(st, s, &err);
    void *scratch = PyMem_Malloc(need > 0 ? need : 1);
    if (scratch == NULL)
        return PyErr_NoMemory();
    pl_tflm_arena_figures f;
    s = pl_tflm_arena(self->it, target, (size_t)arena_size, scratch, need, &f, &err);
    PyMem_Free(scratch);
    if (s != PL_OK)
        return pl_py_raise(st, s, &err);
    return figures_dict(&f);
}
