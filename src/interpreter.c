/* interpreter.c - picolite._Interpreter: the C interpreter, its model bytes and its arena.
**
** The Python class picolite.Interpreter wraps this type and turns its plain values into
** tf.lite's dicts and numpy arrays. Here: lifetimes (model bytes held as a Py_buffer, the
** arena held strongly and marked as owned), the GIL released around allocate and invoke
** with a busy flag against re-entry, and the export count that refuses invoke while numpy
** views of tensor memory are alive. */
#include "pl_py.h"

#include <string.h>
#include <time.h>

/* tf.lite's wording, so code that catches it keeps working. */
#define VIEWS_ALIVE "There is at least 1 reference to internal data in the interpreter in " \
    "the form of a numpy array or slice. Be sure to only hold the function returned from " \
    "tensor() if you are using raw data access."

/* Records damaged through the arena's memory (a wrapped buffer written from Python) must not
** steer a copy or a kernel: every use of an allocated interpreter checks them first, with the
** error record kept here, which also holds their seal. The interpreter's pointer to it lives
** in the arena, so it is compared before the check follows it. */
static int
check_intact(pl_py_interp *self)
{
    if (!self->allocated)
        return 0;
    pl_status s = pl_interp_error(self->it) == &self->error
                  ? pl_integrity_check(self->it, &self->error)
                  : pl_error_set(&self->error, PL_ERR_STATE, "arena damaged: the interpreter "
                                 "record (its pointer to the host's record) in the arena's "
                                 "tail overwritten since the last allocate/invoke/reset (the "
                                 "arena's memory was written from outside the interpreter); "
                                 "create a new interpreter");
    if (s != PL_OK) {
        pl_py_raise(pl_py_state_of((PyObject *)self), s, &self->error);
        return -1;
    }
    return 0;
}

bool
pl_py_interp_intact(const pl_py_interp *self)
{
    return pl_interp_error(self->it) == &self->error &&
           pl_integrity_check(self->it, NULL) == PL_OK;
}

static int
check_open(pl_py_interp *self)
{
    pl_py_state *st = pl_py_state_of((PyObject *)self);
    if (self->it == NULL) {
        pl_py_state_error(st, "the interpreter is closed");
        return -1;
    }
    if (self->busy) {
        pl_py_state_error(st, "the interpreter is busy in another thread (allocate_tensors "
                          "or invoke is running)");
        return -1;
    }
    return 0;
}

int
pl_py_interp_ready(pl_py_interp *self)
{
    return check_open(self) < 0 ? -1 : check_intact(self);
}

static int
check_no_views(pl_py_interp *self)
{
    if (self->exports > 0) {
        pl_py_state_error(pl_py_state_of((PyObject *)self), VIEWS_ALIVE);
        return -1;
    }
    return 0;
}

#define ALIGN 16u

/* Bytes a wrapped buffer loses before its first 16-byte boundary, where the arena starts. */
static size_t
misalignment_slack(const pl_py_arena *a)
{
    return (ALIGN - (uintptr_t)a->data % ALIGN) % ALIGN;
}

/* The runtime's err->required for a failed tail allocation is what would get past that one
** allocation; users want the size that makes the whole allocation succeed. The model and
** options are at hand, so the exact figure is one sizing run away: report that. */
static PyObject *
raise_error(pl_py_interp *self, pl_status s, const pl_error *err)
{
    pl_py_state *st = pl_py_state_of((PyObject *)self);
    if (s != PL_ERR_ARENA)
        return pl_py_raise(st, s, err);
    pl_error exact, e = *err;
    size_t required = 0;
    int nomem = 0;
    if (pl_py_required_size(&self->model, &self->opt, &required, &exact, &nomem) == PL_OK) {
        size_t slack = misalignment_slack(self->arena);
        if (required + slack > self->arena->size) {
            char why[128] = "";
            if (slack > 0)
                PyOS_snprintf(why, sizeof why, " from a 16-byte boundary (the wrapped buffer "
                              "starts %zu bytes past one, so it must hold %zu bytes)",
                              ALIGN - slack, required + slack);
            if (required != e.required || slack > 0)
                pl_error_set(&e, PL_ERR_ARENA, "%s; the model needs an arena of %zu bytes%s",
                             err->msg, required, why);
            e.required = required + slack;
        }
    }
    return pl_py_raise(st, s, &e);
}

/* Creating verifies the model: release the GIL for it, the arena is already marked ours.
** self->error outlives the C interpreter, which records every later error there. */
static int
create(pl_py_interp *self, pl_planner planner, int preserve, unsigned long loop_budget,
       pl_target target)
{
    self->opt = pl_interp_defaults();
    self->opt.target = target;
    self->opt.resolver = pl_builtin_resolver();
    self->opt.planner = planner;
    self->opt.preserve_all_tensors = preserve != 0;
    self->opt.loop_budget = (uint32_t)loop_budget;
    self->opt.input_shapes = self->shapes.items;
    self->opt.input_shape_count = self->shapes.count;
    if (self->custom != NULL)
        self->opt.resolver = pl_py_custom_resolver(self->custom);
    self->opt.resolver = pl_py_fast_resolver(self, self->opt.resolver);
    pl_error *err = &self->error;
    pl_error_clear(err);
    pl_py_arena *a = self->arena;
    pl_status s;
    /* checked here, with no Python code between the check and the claim */
    if (a->owner != NULL) {
        pl_py_state_error(pl_py_state_of((PyObject *)self),
                          "arena is in use by another interpreter");
        return -1;
    }
    a->owner = self;
    Py_BEGIN_ALLOW_THREADS
    s = pl_interp_create(self->model.buf, (size_t)self->model.len, &self->opt, a->data,
                         a->size, &self->it, err);
    Py_END_ALLOW_THREADS
    if (s != PL_OK) {
        a->owner = NULL;
        self->it = NULL;
        raise_error(self, s, err);
        return -1;
    }
    return 0;
}

static PyObject *
interp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"model", "arena", "planner", "preserve_all_tensors",
                             "loop_budget", "input_shapes", "custom_ops", "custom_adapter",
                             "kernels", "target", NULL};
    pl_py_state *st = PyType_GetModuleState(type);
    PyObject *model = NULL, *arena = NULL, *shapes = Py_None, *custom_ops = Py_None;
    PyObject *adapter = Py_None;
    const char *planner_name = "greedy", *kernels = "auto", *target_name = "tflm";
    int preserve = 0;
    unsigned long loop_budget = PL_DEFAULT_LOOP_BUDGET;
    pl_planner planner;
    pl_target target;
    int isa = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!|spkOOOss:_Interpreter", kwlist, &model,
                                     st->arena_type, &arena, &planner_name, &preserve,
                                     &loop_budget, &shapes, &custom_ops, &adapter, &kernels,
                                     &target_name))
        return NULL;
    if (pl_py_target(target_name, &target) < 0)
        return NULL;
    if (pl_py_kernels_parse(kernels, &isa) < 0)
        return NULL;
    if (loop_budget == 0 || loop_budget > UINT32_MAX)
        return PyErr_Format(PyExc_ValueError, "loop_budget must be in 1..%lu, got %lu",
                            (unsigned long)UINT32_MAX, loop_budget);
    if (pl_py_planner(st, planner_name, &planner) < 0)
        return NULL;
    pl_py_interp *self = PyObject_GC_New(pl_py_interp, type);
    if (self == NULL)
        return NULL;
    self->it = NULL;
    self->io = NULL;
    self->io_count = 0;
    self->subgraph = 0;
    self->busy = false;
    self->allocated = false;
    self->exports = 0;
    memset(&self->prof, 0, sizeof self->prof);
    self->arena = (pl_py_arena *)Py_NewRef(arena);
    self->custom = NULL;
    self->isa = isa;
#ifdef PL_HAVE_FAST
    memset(&self->fast, 0, sizeof self->fast); /* released in dealloc even if never made */
#endif
    memset(&self->model, 0, sizeof self->model);
    memset(&self->shapes, 0, sizeof self->shapes);
    PyObject_GC_Track(self);
    if (custom_ops != Py_None &&
        (self->custom = pl_py_custom_new(custom_ops, adapter)) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    if (PyObject_GetBuffer(model, &self->model, PyBUF_SIMPLE) < 0 ||
        pl_py_shapes_parse(shapes, &self->shapes) < 0 ||
        create(self, planner, preserve, loop_budget, target) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* Destroys the C interpreter and frees the arena for another one. */
static void
shut(pl_py_interp *self)
{
    pl_py_io_clear(self);
    if (self->it != NULL) {
        /* kernels' free callbacks are found through the records: not when those are damaged */
        if (pl_py_interp_intact(self))
            pl_interp_destroy(self->it);
        self->it = NULL;
    }
    pl_py_fast_release(self); /* after destroy: kernels' free may not touch host blocks */
    if (self->arena != NULL && self->arena->owner == self)
        self->arena->owner = NULL;
    PyMem_RawFree(self->prof.node_ns);
    memset(&self->prof, 0, sizeof self->prof);
}

static int
interp_traverse(pl_py_interp *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->arena);
    Py_VISIT(self->model.obj);
    int r = pl_py_io_traverse(self, visit, arg);
    return r != 0 ? r : pl_py_custom_traverse(self->custom, visit, arg);
}

static int
interp_clear(pl_py_interp *self)
{
    shut(self);
    pl_py_custom_free(self->custom); /* after shut: the interpreter resolved through it */
    self->custom = NULL;
    Py_CLEAR(self->arena);
    if (self->model.obj != NULL)
        PyBuffer_Release(&self->model);
    pl_py_shapes_free(&self->shapes);
    return 0;
}

static void
interp_dealloc(pl_py_interp *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    interp_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyObject *
raise_last(pl_py_interp *self, pl_status s)
{
    if (pl_py_custom_reraise(self->custom)) /* a Python operator's own exception */
        return NULL;
    return raise_error(self, s, &self->error); /* the record create gave the interpreter */
}

/* Runs fn without the GIL; busy makes every other call on this object fail meanwhile. */
static pl_status
run_unlocked(pl_py_interp *self, pl_status (*fn)(pl_interp *))
{
    pl_status s;
    self->busy = true;
    Py_BEGIN_ALLOW_THREADS
    s = fn(self->it);
    Py_END_ALLOW_THREADS
    self->busy = false;
    return s;
}

static PyObject *
interp_allocate(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0 || check_no_views(self) < 0)
        return NULL;
    if (self->allocated) /* tf.lite allows calling it again: the plan does not change */
        Py_RETURN_NONE;
    pl_status s = run_unlocked(self, pl_interp_allocate);
    if (s != PL_OK)
        return raise_last(self, s);
    self->allocated = true;
    Py_RETURN_NONE;
}

static int
check_allocated(pl_py_interp *self, const char *what)
{
    if (!self->allocated) {
        pl_py_state_error(pl_py_state_of((PyObject *)self),
                          "%s: call allocate_tensors() first", what);
        return -1;
    }
    return 0;
}

/* LiteRT's words first, so code matching them keeps working. */
static int
check_invoke_ready(pl_py_interp *self)
{
    if (!self->allocated) {
        pl_py_state_error(pl_py_state_of((PyObject *)self), "Invoke called on model that "
                          "is not ready (picolite: call allocate_tensors() first)");
        return -1;
    }
    return 0;
}

int
pl_py_interp_invokable(pl_py_interp *self)
{
    if (pl_py_interp_ready(self) < 0 || check_invoke_ready(self) < 0 ||
        check_no_views(self) < 0)
        return -1;
    return 0;
}

/* pl_interp_invoke checks the seal itself, once: here only its pointer to this object's
** record is compared first (the check follows it). A failed check left the records as they
** were, so check_intact names the damage on the way out. */
static PyObject *
interp_invoke(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (check_open(self) < 0 ||
        (pl_interp_error(self->it) != &self->error && check_intact(self) < 0) ||
        check_invoke_ready(self) < 0 || check_no_views(self) < 0)
        return NULL;
    pl_status s = run_unlocked(self, pl_interp_invoke);
    if (s != PL_OK && s != PL_ABORTED)
        return check_intact(self) < 0 ? NULL : raise_last(self, s);
    return PyBool_FromLong(s == PL_OK); /* False: a kernel ended the run early (TFLM's abort) */
}

static PyObject *
interp_reset(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0 || check_allocated(self, "reset") < 0)
        return NULL;
    pl_status s = pl_interp_reset(self->it);
    if (s != PL_OK)
        return raise_last(self, s);
    Py_RETURN_NONE;
}

static PyObject *
interp_close(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (self->it == NULL)
        Py_RETURN_NONE;
    if (pl_py_interp_ready(self) < 0 || check_no_views(self) < 0)
        return NULL;
    shut(self);
    Py_RETURN_NONE;
}

/* --- structure --- */

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

static PyObject *
interp_inputs(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    return index_tuple(self, pl_interp_input_count(self->it), pl_interp_input_index);
}

static PyObject *
interp_outputs(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
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
        raise_last(self, s);
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

static PyObject *
interp_tensor_info(pl_py_interp *self, PyObject *arg)
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

static PyObject *
interp_node_info(pl_py_interp *self, PyObject *arg)
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
        return raise_last(self, s);
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
    if (ti->data != NULL)
        return 0;
    if (!self->allocated) {
        PyErr_SetString(PyExc_ValueError, "Tensor data is null. Run allocate_tensors() first");
    } else {
        raise_tensor("Tensor %u (%U) has no data", index, ti);
    }
    return -1;
}

static PyObject *
interp_tensor_buffer(pl_py_interp *self, PyObject *arg)
{
    pl_tensor_info ti;
    if (tensor_memory(self, arg, false, &ti) < 0)
        return NULL;
    return pl_py_tensor_new(self, ti.data, ti.bytes, ti.is_constant);
}

static PyObject *
interp_get_bytes(pl_py_interp *self, PyObject *arg)
{
    pl_tensor_info ti;
    if (tensor_memory(self, arg, true, &ti) < 0)
        return NULL;
    return PyByteArray_FromStringAndSize(ti.data, (Py_ssize_t)ti.bytes);
}

static PyObject *
interp_set_bytes(pl_py_interp *self, PyObject *args)
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
    memcpy(ti.data, value.buf, ti.bytes);
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&value);
    return result;
}

/* --- memory report --- */

static int
recording(pl_py_interp *self, pl_recording *rec)
{
    if (pl_py_interp_ready(self) < 0 || check_allocated(self, "the memory report") < 0)
        return -1;
    pl_status s = pl_interp_recording(self->it, rec);
    if (s != PL_OK) {
        raise_last(self, s);
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

static PyObject *
interp_recording(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
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
static PyObject *
interp_recording_text(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
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

static PyObject *
interp_plan(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0 || check_allocated(self, "the memory plan") < 0)
        return NULL;
    uint32_t n = pl_interp_plan_count(self->it);
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        pl_plan_buffer b;
        int32_t tensor;
        uint32_t subgraph;
        pl_status s = pl_interp_plan_buffer(self->it, i, &b, &tensor, &subgraph);
        PyObject *item = s == PL_OK ? plan_item(&b, tensor, subgraph) : raise_last(self, s);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* --- profiling --- */

/* Called without the GIL during invoke, so only C: a monotonic clock where there is one. */
uint64_t
pl_py_host_ns(void *Py_UNUSED(ctx))
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static PyObject *
interp_set_profiling(pl_py_interp *self, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0 || pl_py_interp_ready(self) < 0)
        return NULL;
    if (!on || self->prof.node_ns != NULL) {
        if (!on) {
            pl_interp_set_profiler(self->it, NULL);
            PyMem_RawFree(self->prof.node_ns);
            memset(&self->prof, 0, sizeof self->prof);
        }
        Py_RETURN_NONE;
    }
    uint32_t n = pl_interp_node_count(self->it);
    uint64_t *ns = PyMem_RawCalloc(n > 0 ? n : 1, sizeof *ns);
    if (ns == NULL)
        return PyErr_NoMemory();
    self->prof = (pl_profiler){pl_py_host_ns, NULL, ns, n};
    pl_status s = pl_interp_set_profiler(self->it, &self->prof);
    if (s != PL_OK) {
        PyMem_RawFree(ns);
        memset(&self->prof, 0, sizeof self->prof);
        return raise_last(self, s);
    }
    Py_RETURN_NONE;
}

static PyObject *
interp_node_ns(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    if (self->prof.node_ns == NULL)
        Py_RETURN_NONE;
    PyObject *t = PyTuple_New(self->prof.node_count);
    for (uint32_t i = 0; t != NULL && i < self->prof.node_count; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(self->prof.node_ns[i]);
        if (v == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* --- attributes --- */

static PyObject *
get_counts(pl_py_interp *self, void *Py_UNUSED(c))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    return Py_BuildValue("(II)", pl_interp_tensor_count(self->it),
                         pl_interp_node_count(self->it));
}

static PyObject *
get_flag(pl_py_interp *self, void *which)
{
    const char *w = which;
    if (w[0] == 'a')
        return PyBool_FromLong(self->allocated);
    if (w[0] == 'c')
        return PyBool_FromLong(self->it == NULL);
    return PyBool_FromLong(self->busy);
}

static PyObject *
get_exports(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromSsize_t(self->exports);
}

static PyObject *
get_arena(pl_py_interp *self, void *Py_UNUSED(c))
{
    if (self->arena == NULL)
        Py_RETURN_NONE;
    return Py_NewRef((PyObject *)self->arena);
}

static PyObject *
get_model_size(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromSsize_t(self->model.len);
}

static PyObject *
get_kernels(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyUnicode_FromString(pl_py_kernels_name(self->isa));
}

static PyObject *
get_host_bytes(pl_py_interp *self, void *Py_UNUSED(c))
{
    return PyLong_FromSize_t(pl_py_fast_host_bytes(self));
}

/* --- subgraphs and signatures --- */

static PyObject *
interp_select_subgraph(pl_py_interp *self, PyObject *arg)
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    uint32_t n = pl_interp_subgraph_count(self->it);
    if (k < 0 || (unsigned long)k >= n)
        return PyErr_Format(PyExc_ValueError, "Invalid subgraph index %ld exceeds max "
                            "subgraph index %u", k, n - 1);
    pl_status s = pl_interp_select_subgraph(self->it, (uint32_t)k);
    if (s != PL_OK)
        return raise_last(self, s);
    self->subgraph = (uint32_t)k;
    Py_RETURN_NONE;
}

/* (name, tensor) pairs; entries without a name are left out, as LiteRT does. */
static PyObject *
signature_io(pl_py_interp *self, uint32_t sig, bool output, uint32_t count)
{
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list != NULL && i < count; i++) {
        const char *name;
        uint32_t len;
        int32_t tensor;
        pl_interp_signature_io(self->it, sig, output, i, &name, &len, &tensor);
        if (name == NULL)
            continue;
        PyObject *item = Py_BuildValue("(Ni)", PyUnicode_DecodeUTF8(name, len, "replace"),
                                       (int)tensor);
        if (item == NULL || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* Whether an earlier signature than sig has the same key (LiteRT keeps the first). */
static bool
signature_key_seen(pl_py_interp *self, uint32_t sig)
{
    pl_signature_info a, b;
    pl_interp_signature(self->it, sig, &a);
    for (uint32_t j = 0; j < sig; j++) {
        pl_interp_signature(self->it, j, &b);
        if (a.key_len == b.key_len && memcmp(a.key, b.key, a.key_len) == 0)
            return true;
    }
    return false;
}

static PyObject *
signature_dict(pl_py_interp *self, uint32_t sig)
{
    pl_signature_info si;
    pl_interp_signature(self->it, sig, &si);
    return Py_BuildValue("{s:N,s:I,s:N,s:N}",
                         "key", PyUnicode_DecodeUTF8(si.key, si.key_len, "replace"),
                         "subgraph", si.subgraph,
                         "inputs", signature_io(self, sig, false, si.input_count),
                         "outputs", signature_io(self, sig, true, si.output_count));
}

static PyObject *
interp_signatures(pl_py_interp *self, PyObject *Py_UNUSED(ignored))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    uint32_t n = pl_interp_signature_count(self->it);
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        if (signature_key_seen(self, i))
            continue;
        PyObject *d = signature_dict(self, i);
        if (d == NULL || PyList_Append(list, d) < 0)
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}

static PyObject *
get_subgraphs(pl_py_interp *self, void *Py_UNUSED(c))
{
    if (pl_py_interp_ready(self) < 0)
        return NULL;
    return Py_BuildValue("(II)", pl_interp_subgraph_count(self->it),
                         pl_interp_selected_subgraph(self->it));
}

static PyGetSetDef interp_getset[] = {
    {"subgraphs", (getter)get_subgraphs, NULL, "(subgraph count, selected subgraph).", NULL},
    {"counts", (getter)get_counts, NULL, "(tensor count, node count) of the selected "
     "subgraph.", NULL},
    {"allocated", (getter)get_flag, NULL, "Whether allocate_tensors() succeeded.", "a"},
    {"closed", (getter)get_flag, NULL, "Whether close() was called.", "c"},
    {"busy", (getter)get_flag, NULL, "Whether a call is running without the GIL.", "b"},
    {"exports", (getter)get_exports, NULL, "Live numpy views of tensor memory.", NULL},
    {"arena", (getter)get_arena, NULL, "The Arena the interpreter lives in.", NULL},
    {"model_size", (getter)get_model_size, NULL, "Bytes of the model.", NULL},
    {"kernels", (getter)get_kernels, NULL, "The kernels' instruction set: 'portable', "
     "'avx2', 'avx512', ...", NULL},
    {"host_bytes", (getter)get_host_bytes, NULL, "Host memory the fast paths hold outside "
     "the arena (packed weights, tables).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef interp_methods[] = {
    {"allocate_tensors", (PyCFunction)interp_allocate, METH_NOARGS,
     "Init, prepare and plan every node (without the GIL)."},
    {"invoke", (PyCFunction)interp_invoke, METH_NOARGS,
     "Run the model (without the GIL); False when a kernel ended the run early."},
    {"reset", (PyCFunction)interp_reset, METH_NOARGS, "Zero variable tensors."},
    {"close", (PyCFunction)interp_close, METH_NOARGS, "Destroy the C interpreter; frees the "
     "arena for another interpreter."},
    {"inputs", (PyCFunction)interp_inputs, METH_NOARGS, "Tensor indices of the inputs."},
    {"select_subgraph", (PyCFunction)interp_select_subgraph, METH_O,
     "Make subgraph k the one tensor calls and invoke() address."},
    {"signatures", (PyCFunction)interp_signatures, METH_NOARGS,
     "The model's signature defs (the first of each key): key, subgraph, (name, tensor) "
     "inputs and outputs (unnamed entries left out, as LiteRT)."},
    {"outputs", (PyCFunction)interp_outputs, METH_NOARGS, "Tensor indices of the outputs."},
    {"tensor_info", (PyCFunction)interp_tensor_info, METH_O, "Raw facts about one tensor."},
    {"node_info", (PyCFunction)interp_node_info, METH_O, "Raw facts about one node."},
    {"tensor_buffer", (PyCFunction)interp_tensor_buffer, METH_O,
     "An exporter of the tensor's memory (counted while exported)."},
    {"get_bytes", (PyCFunction)interp_get_bytes, METH_O, "A copy of the tensor's bytes."},
    {"set_bytes", (PyCFunction)interp_set_bytes, METH_VARARGS,
     "Copy exactly the tensor's size of bytes into it."},
    {"set_tensor", (PyCFunction)(void (*)(void))pl_py_io_set, METH_FASTCALL,
     "set_tensor(index, array) of subgraph 0 when array is a numpy array of exactly the "
     "tensor's dtype and shape: None; else NotImplemented (the full path must run)."},
    {"get_tensor", (PyCFunction)pl_py_io_get, METH_O,
     "A numpy copy of a kept tensor of subgraph 0, or NotImplemented (the full path must "
     "run)."},
    {"recording", (PyCFunction)interp_recording, METH_NOARGS, "The arena figures, as a dict."},
    {"recording_text", (PyCFunction)interp_recording_text, METH_NOARGS,
     "TFLM's RecordingMicroAllocator text."},
    {"plan", (PyCFunction)interp_plan, METH_NOARGS,
     "Planned buffers: (tensor, offset, size, first, last, offline_offset); tensor -1 for "
     "scratch."},
    {"set_profiling", (PyCFunction)interp_set_profiling, METH_O,
     "Turn per-node timing of invoke on or off."},
    {"node_ns", (PyCFunction)interp_node_ns, METH_NOARGS,
     "Each node's duration in the last invoke (ns), or None when profiling is off."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot interp_slots[] = {
    {Py_tp_doc, "_Interpreter(model, arena, planner='greedy', preserve_all_tensors=False)"},
    {Py_tp_new, interp_new},
    {Py_tp_dealloc, interp_dealloc},
    {Py_tp_traverse, interp_traverse},
    {Py_tp_clear, interp_clear},
    {Py_tp_getset, interp_getset},
    {Py_tp_methods, interp_methods},
    {0, NULL},
};

static PyType_Spec interp_spec = {
    .name = "picolite._Interpreter",
    .basicsize = sizeof(pl_py_interp),
    .flags = PL_PY_TYPE_FLAGS,
    .slots = interp_slots,
};

int
pl_py_interp_init(PyObject *m, pl_py_state *st)
{
    st->interp_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &interp_spec, NULL);
    if (st->interp_type == NULL)
        return -1;
    return PyModule_AddType(m, st->interp_type);
}
