/* fuzz_model.c - libFuzzer target: any bytes through pl_model_open, then every accessor over
** every subgraph, tensor, operator, operator code, buffer and metadata entry of what verifies
** (custom options through the FlexBuffer reader).
**
** Build: CC=clang cmake -S . -B /tmp/build-fuzz -G Ninja -DPL_BUILD_FUZZ=ON -DPL_BUILD_TESTS=OFF
** Run:   /tmp/build-fuzz/tests/fuzz/fuzz_model -max_total_time=600 <corpus of .tflite files> */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/flexbuffer.h"
#include "model/model.h"
#include "picolite/picolite.h"
#if defined(PL_FUZZ_FAST)
#include "picolite/pl_fast.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Folding every value read into a sink keeps the compiler from skipping the reads. */
static volatile uint64_t sink;

static void walk_options(const pl_table *t)
{
    for (uint32_t f = 0; f < 24; f++) {
        sink += (uint64_t)pl_table_i32(t, f, 0) + (uint64_t)pl_table_i16(t, f, 0);
        sink += (uint64_t)pl_table_i8(t, f, 0) + (uint64_t)pl_table_u8(t, f, 0);
        sink += pl_table_bool(t, f, false) + (pl_table_f32(t, f, 0.0f) > 0.0f);
        pl_vec v = pl_table_vec(t, f, 4);
        for (uint32_t i = 0; i < v.n; i++)
            sink += (uint32_t)pl_vec_i32(v, i);
        v = pl_table_vec(t, f, 8);
        for (uint32_t i = 0; i < v.n; i++)
            sink += (uint64_t)pl_vec_i64(v, i);
    }
}

static void walk_tensor(const pl_model *m, const pl_subgraph *sg, uint32_t i)
{
    pl_tensor_view t;
    pl_buffer_view b;
    pl_model_tensor(m, sg, i, &t);
    for (uint32_t d = 0; d < t.shape.n; d++)
        sink += (uint32_t)pl_vec_i32(t.shape, d);
    for (uint32_t d = 0; d < t.shape_signature.n; d++)
        sink += (uint32_t)pl_vec_i32(t.shape_signature, d);
    for (uint32_t c = 0; c < t.scale.n; c++)
        sink += pl_vec_f32(t.scale, c) > 0.0f;
    for (uint32_t c = 0; c < t.zero_point.n; c++)
        sink += (uint64_t)pl_vec_i64(t.zero_point, c);
    if (t.name.n > 0)
        sink += t.name.p[0] + t.name.p[t.name.n - 1];
    sink += pl_type_size(t.type) + (uint64_t)t.quantized_dimension + t.is_variable;
    sink += pl_type_name(t.type)[0];
    /* Indices read from a verified model are in range: the runtime relies on it. */
    pl_model_buffer(m, t.buffer, &b);
    if (b.data.n > 0)
        sink += b.data.p[0] + b.data.p[b.data.n - 1];
}

/* Custom options through the FlexBuffer reader: the whole-buffer check, then root lookups
** (they must stay in bounds whether or not the check passed). */
static void walk_custom_options(pl_bytes opts)
{
    pl_error err;
    pl_flex root, v;
    bool found = false;
    sink += pl_flex_check(opts, &err) == PL_OK;
    if (opts.n == 0 || pl_flex_root(opts, &root, &err) != PL_OK)
        return;
    static const char *const keys[] = {"T", "fft_length", "shift", "num_channels", "a"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int64_t i;
        if (pl_flex_map_find(&root, keys[k], &v, &found, &err) == PL_OK && found &&
            pl_flex_int(&v, &i, &err) == PL_OK)
            sink += (uint64_t)i;
    }
}

static void walk_operator(const pl_model *m, const pl_subgraph *sg, uint32_t i)
{
    pl_op_view op;
    pl_opcode_view oc;
    pl_tensor_view t;
    pl_model_operator(m, sg, i, &op);
    pl_model_opcode(m, op.opcode_index, &oc);
    sink += pl_model_builtin_name(oc.builtin_code)[0] + (uint64_t)oc.version + oc.custom_code.n;
    for (uint32_t k = 0; k < op.inputs.n; k++) {
        int32_t x = pl_vec_i32(op.inputs, k);
        if (x >= 0)
            pl_model_tensor(m, sg, (uint32_t)x, &t);
    }
    for (uint32_t k = 0; k < op.outputs.n; k++)
        pl_model_tensor(m, sg, (uint32_t)pl_vec_i32(op.outputs, k), &t);
    for (uint32_t k = 0; k < op.intermediates.n; k++)
        pl_model_tensor(m, sg, (uint32_t)pl_vec_i32(op.intermediates, k), &t);
    if (op.custom_options.n > 0)
        sink += op.custom_options.p[0] + op.custom_options.p[op.custom_options.n - 1];
    walk_custom_options(op.custom_options);
    sink += op.options_type + op.options2_type;
    walk_options(&op.options);
    walk_options(&op.options2);
}

static void walk_model(const pl_model *m)
{
    pl_subgraph sg;
    pl_metadata_view md;
    pl_buffer_view b;
    pl_tensor_view t;
    for (uint32_t s = 0; s < pl_model_subgraph_count(m); s++) {
        pl_model_subgraph(m, s, &sg);
        sink += pl_model_subgraph_name(m, s).n;
        for (uint32_t k = 0; k < sg.inputs.n; k++)
            pl_model_tensor(m, &sg, (uint32_t)pl_vec_i32(sg.inputs, k), &t);
        for (uint32_t k = 0; k < sg.outputs.n; k++)
            pl_model_tensor(m, &sg, (uint32_t)pl_vec_i32(sg.outputs, k), &t);
        for (uint32_t i = 0; i < sg.tensors.n; i++)
            walk_tensor(m, &sg, i);
        for (uint32_t i = 0; i < sg.operators.n; i++)
            walk_operator(m, &sg, i);
    }
    for (uint32_t i = 0; i < pl_model_metadata_count(m); i++) {
        pl_model_metadata(m, i, &md);
        sink += md.name.n;
        /* the verifier lets an entry name a buffer out of range (readers skip it, as LiteRT
        ** does): only an index in range is the caller's to read */
        if (md.buffer < pl_model_buffer_count(m)) {
            pl_model_buffer(m, md.buffer, &b);
            sink += b.data.n;
        }
    }
    sink += pl_model_metadata_find(m, "OfflineMemoryAllocation").n;
    sink += pl_model_version(m) + pl_model_signature_count(m);
}

/* ---- after verification: allocation and inference ----
** An interpreter on the input with a fixed arena: allocate, fill inputs, invoke twice and
** reset. Every failure must be a clean status with a message; sanitizers catch the rest.
** The arena is small on purpose, so the arena-too-small paths are fuzzed as well. */
static _Alignas(16) uint8_t arena[256 * 1024];

static void check_error(const pl_error *err)
{
    if (err->status == PL_OK || err->msg[0] == '\0')
        __builtin_trap(); /* a failure must say why */
}

static void fill_inputs(pl_interp *it)
{
    for (uint32_t i = 0; i < pl_interp_input_count(it); i++) {
        pl_tensor_info t;
        int32_t index = pl_interp_input_index(it, i);
        if (index >= 0 && pl_interp_tensor(it, (uint32_t)index, &t) == PL_OK &&
            t.data != NULL && !t.is_constant)
            memset(t.data, (int)(i * 37 + 1), t.bytes);
    }
}

#if defined(PL_FUZZ_FAST)
static void *host_alloc(void *self, size_t bytes)
{
    (void)self;
    return malloc(bytes);
}

static void host_release(void *self, void *block)
{
    (void)self;
    free(block);
}
#endif

static void allocate_and_run(const uint8_t *data, size_t size, const pl_resolver *resolver)
{
    pl_interp *it;
    pl_error err;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = resolver;
    opt.planner = (pl_planner)(size % PL_PLANNER_COUNT);
    if (pl_interp_create(data, size, &opt, arena, sizeof arena, &it, &err) != PL_OK) {
        check_error(&err);
        return;
    }
    if (pl_interp_allocate(it) != PL_OK) {
        check_error(&err);
        pl_interp_destroy(it);
        return;
    }
    /* every other input with the host's node views: the first invoke fills them, the
    ** second copies them */
    pl_node *views = NULL;
    if (size % 2 == 1) {
        const uint32_t nodes = pl_interp_node_total(it);
        views = calloc(nodes > 0 ? nodes : 1, sizeof *views);
        if (views != NULL && pl_interp_set_node_views(it, views, nodes) != PL_OK)
            __builtin_trap();
    }
    fill_inputs(it);
    for (int run = 0; run < 2; run++) {
        pl_status s = pl_interp_invoke(it);
        if (s != PL_OK && s != PL_ABORTED) /* PL_ABORTED: a kernel ended the run early */
            check_error(&err);
    }
    if (pl_interp_reset(it) != PL_OK)
        check_error(&err);
    pl_interp_destroy(it);
    free(views);
}

/* The model on the portable kernels, then (built with the host fast paths) on the fast
** resolver of an instruction set the input's size picks among those the CPU has: their plans
** read the same hostile shapes and data. */
static void run_everywhere(const uint8_t *data, size_t size)
{
    allocate_and_run(data, size, pl_builtin_resolver());
#if defined(PL_FUZZ_FAST)
    pl_isa isa = (pl_isa)(1 + size / PL_PLANNER_COUNT % (PL_ISA_COUNT - 1));
    if (!pl_fast_isa_available(isa))
        isa = pl_fast_best_isa();
    const pl_host_memory mem = {NULL, host_alloc, host_release};
    pl_fast_resolver fast;
    if (pl_fast_resolver_init(&fast, pl_builtin_resolver(), &mem, isa) != PL_OK)
        __builtin_trap();
    allocate_and_run(data, size, pl_fast_resolver_get(&fast));
    pl_fast_resolver_release(&fast);
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_model m;
    pl_error err;
    pl_error_clear(&err);
    if (pl_model_open(&m, data, size, &err) != PL_OK)
        return 0;
    walk_model(&m);
    run_everywhere(data, size);
    return 0;
}
