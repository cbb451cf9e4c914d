/* report.c - the arena figures of an allocated _Interpreter: TFLM's recording (as a dict and
** as RecordingMicroAllocator's text) and the head plan, buffer by buffer. */
#include "pl_py.h"

#include <string.h>

static int
recording(pl_py_interp *self, pl_recording *rec)
{
    if (pl_py_interp_ready(self) < 0 || pl_py_interp_allocated(self, "the memory report") < 0)
        return -1;
    pl_status s = pl_interp_recording(self->it, rec);
    if (s != PL_OK) {
        pl_py_interp_raise(self, s);
        return -1;
    }
    return 0;
}

static PyObject *
categories(const pl_recording *rec)
{
    PyObject *list = PyList_New(PL_CAT_COUNT);
    for (int c = 0; list != NULL && c < PL_CAT_COUNT; c++) {
        const pl_recording_entry *e = &rec->cat[c];
        PyObject *item = Py_BuildValue("(snnI)", pl_category_name((pl_category)c),
                                       (Py_ssize_t)e->used, (Py_ssize_t)e->requested, e->count);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, c, item);
    }
    return list;
}

PyObject *
pl_py_report_recording(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    pl_recording rec;
    if (recording(self, &rec) < 0)
        return NULL;
    const char *planner = pl_planner_name(rec.planner);
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:K,s:s,s:n,s:N}",
                         "total", (Py_ssize_t)rec.total, "head", (Py_ssize_t)rec.head,
                         "head_tensors", (Py_ssize_t)rec.head_tensors,
                         "head_scratch", (Py_ssize_t)rec.head_scratch,
                         "tail", (Py_ssize_t)rec.tail,
                         "temp_high_water", (Py_ssize_t)rec.temp_high_water,
                         "peak", (Py_ssize_t)rec.peak,
                         "lower_bound", (unsigned long long)rec.lower_bound,
                         "planner", planner ? planner : "unknown",
                         "arena_size", (Py_ssize_t)self->arena->size,
                         "categories", categories(&rec));
}

/* TFLM's RecordingMicroAllocator text: measure, then format into a buffer of that size. */
PyObject *
pl_py_report_text(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    pl_recording rec;
    if (recording(self, &rec) < 0)
        return NULL;
    size_t n = pl_recording_format(&rec, NULL, 0);
    char *buf = PyMem_Malloc(n + 1);
    if (buf == NULL)
        return PyErr_NoMemory();
    pl_recording_format(&rec, buf, n + 1);
    PyObject *text = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "replace");
    PyMem_Free(buf);
    return text;
}

static PyObject *
plan_item(const pl_plan_buffer *b, int32_t tensor, uint32_t subgraph)
{
    return Py_BuildValue("(iIIiiiI)", (int)tensor, b->offset, b->size, (int)b->first,
                         (int)b->last, (int)b->offline_offset, subgraph);
}

PyObject *
pl_py_report_plan(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0 || pl_py_interp_allocated(self, "the memory plan") < 0)
        return NULL;
    uint32_t n = pl_interp_plan_count(self->it);
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        pl_plan_buffer b;
        int32_t tensor;
        uint32_t subgraph;
        pl_status s = pl_interp_plan_buffer(self->it, i, &b, &tensor, &subgraph);
        PyObject *item = s == PL_OK ? plan_item(&b, tensor, subgraph)
                                    : pl_py_interp_raise(self, s);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
    }
    return list;
}
