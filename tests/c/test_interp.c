/* test_interp.c - the interpreter lifecycle, the context's phase checks, exact arena size.
**
** Kernels here are test stand-ins registered through a custom resolver, so the lifecycle is
** checked independently of the real kernels. Models come from ../shared (skipped without). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "picolite/picolite.h"

/* ---- models ---- */

static uint8_t *load(const char *rel, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/models/tflm/%s", PL_SHARED_DIR, rel);
    return harness_read(path, size);
}

#define HELLO "examples/hello_world/hello_world_int8.tflite"
#define KEYWORD "models/keyword_scrambled.tflite"

/* ---- stand-in kernels ---- */

enum { MODE_PLAIN, MODE_SCRATCH, MODE_TENSOR_IN_INVOKE, MODE_PERSIST_IN_INVOKE,
       MODE_SCRATCH_IN_INIT, MODE_SCRATCH_IN_PREPARE_GET, MODE_TOO_MANY_SCRATCH,
       MODE_FAIL_PREPARE };

static int mode;
static char events[4096];
static int scratch_handle[64];
static uint8_t *scratch_seen[64];

static void log_event(const char *what, uint32_t node)
{
    char e[32];
    snprintf(e, sizeof e, "%s%u ", what, node);
    strncat(events, e, sizeof events - strlen(events) - 1);
}

static pl_status k_init(pl_context *ctx, pl_node *node, void **data)
{
    log_event("i", node->index);
    if (mode == MODE_SCRATCH_IN_INIT) {
        int32_t h;
        return ctx->request_scratch(ctx, 16, &h);
    }
    return ctx->alloc_persistent(ctx, 24, data);
}

static pl_status k_prepare(pl_context *ctx, pl_node *node)
{
    log_event("p", node->index);
    pl_tensor *t;
    PL_TRY(ctx->get_tensor(ctx, pl_node_output(node, 0), &t));
    if (t->data != NULL && !t->is_constant)
        return ctx->fail(ctx, PL_ERR_STATE, "output has data during prepare");
    if (mode == MODE_SCRATCH || mode == MODE_TOO_MANY_SCRATCH) {
        int n = mode == MODE_SCRATCH ? 1 : PL_MAX_SCRATCH_PER_NODE + 1;
        for (int i = 0; i < n; i++) {
            int32_t h;
            PL_TRY(ctx->request_scratch(ctx, 100 + node->index, &h));
            scratch_handle[node->index] = h;
        }
    }
    if (mode == MODE_SCRATCH_IN_PREPARE_GET && ctx->get_scratch(ctx, 0) == NULL)
        return ctx->fail(ctx, PL_ERR_STATE, "get_scratch refused in prepare");
    if (mode == MODE_FAIL_PREPARE)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "stand-in refuses type %d", (int)t->type);
    return PL_OK;
}

static int quick_data_checks, quick_data_mismatches;

/* The quick accessor (host builds) gives each input's and output's bytes where get_eval
** puts them, and NULL for an absent or unknown tensor. */
static void check_quick_data(pl_context *ctx, const pl_node *node)
{
    if (ctx->tensor_data == NULL)
        return;
    for (uint32_t k = 0; k < node->inputs.n + node->outputs.n; k++) {
        int32_t index = k < node->inputs.n ? pl_node_input(node, k)
                                           : pl_node_output(node, k - node->inputs.n);
        pl_tensor t;
        if (ctx->get_eval(ctx, index, &t) != PL_OK || t.bytes == 0)
            continue;
        quick_data_checks++;
        quick_data_mismatches += ctx->tensor_data(ctx, index) != t.data;
    }
    quick_data_mismatches += ctx->tensor_data(ctx, -1) != NULL;
    quick_data_mismatches += ctx->tensor_data(ctx, INT32_MAX) != NULL;
}

static pl_status k_invoke(pl_context *ctx, pl_node *node)
{
    log_event("v", node->index);
    check_quick_data(ctx, node);
    pl_tensor out;
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    if (out.data == NULL)
        return ctx->fail(ctx, PL_ERR_STATE, "output has no data during invoke");
    memset(out.data, (int)(node->index + 1), out.bytes);
    if (node->user_data == NULL)
        return ctx->fail(ctx, PL_ERR_STATE, "op data lost");
    if (mode == MODE_SCRATCH) {
        uint8_t *s = ctx->get_scratch(ctx, scratch_handle[node->index]);
        if (s == NULL)
            return ctx->fail(ctx, PL_ERR_STATE, "no scratch");
        memset(s, 0xAB, 100 + node->index);
        scratch_seen[node->index] = s;
    }
    if (mode == MODE_TENSOR_IN_INVOKE) {
        pl_tensor *t;
        return ctx->get_tensor(ctx, pl_node_input(node, 0), &t);
    }
    if (mode == MODE_PERSIST_IN_INVOKE) {
        void *p;
        return ctx->alloc_persistent(ctx, 8, &p);
    }
    return PL_OK;
}

static const pl_registration standin = {.name = "STANDIN", .builtin_code = 0, .init = k_init,
                                        .prepare = k_prepare, .invoke = k_invoke};

static const pl_registration *find_all(const void *self, int32_t code, const char *custom,
                                       uint32_t custom_len, int32_t version)
{
    (void)self; (void)code; (void)custom; (void)custom_len; (void)version;
    return &standin;
}

static const pl_registration *find_none(const void *self, int32_t code, const char *custom,
                                        uint32_t custom_len, int32_t version)
{
    (void)self; (void)code; (void)custom; (void)custom_len; (void)version;
    return NULL;
}

static const pl_resolver all = {find_all, NULL};
static const pl_resolver none = {find_none, NULL};

static pl_error err; /* outlives every interpreter of a test */
static _Alignas(16) uint8_t arena[1 << 20];
static _Alignas(16) uint8_t arena2[1 << 20];

static pl_interp_options options(const pl_resolver *r)
{
    pl_interp_options o = pl_interp_defaults();
    o.resolver = r;
    return o;
}

#define NEED_MODEL(var, size, rel)                                   \
    size_t size;                                                     \
    uint8_t *var = load(rel, &size);                                 \
    if (var == NULL) {                                               \
        printf("skip: %s not found under %s\n", rel, PL_SHARED_DIR); \
        return;                                                      \
    }

static void phases_run_in_order(void)
{
    NEED_MODEL(m, n, HELLO);
    pl_interp *it;
    pl_interp_options o = options(&all);
    mode = MODE_PLAIN;
    events[0] = '\0';
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_node_count(it), 3);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    quick_data_checks = quick_data_mismatches = 0;
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK(strcmp(events, "i0 i1 i2 p0 p1 p2 v0 v1 v2 ") == 0);
#ifdef PL_TEST_FAST_HOOKS
    CHECK(quick_data_checks >= 9); /* three inputs and an output of each node, some model's */
#endif
    CHECK_EQ(quick_data_mismatches, 0);
    int32_t out = pl_interp_output_index(it, 0);
    pl_tensor_info info;
    CHECK_EQ(pl_interp_tensor(it, (uint32_t)out, &info), PL_OK);
    CHECK(info.data != NULL);
    CHECK_EQ(((uint8_t *)info.data)[0], 3); /* written by node 2 */
    free(m);
}

static void invoke_before_allocate_is_a_state_error(void)
{
    NEED_MODEL(m, n, HELLO);
    pl_interp *it;
    pl_interp_options o = options(&all);
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_STATE);
    CHECK_STR_CONTAINS(pl_interp_error(it)->msg, "allocate");
    CHECK_EQ(pl_interp_reset(it), PL_ERR_STATE);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_ERR_STATE);
    free(m);
}

/* The last run_mode's model: the interpreter reads it when queried afterwards. */
static uint8_t *run_model;

static pl_status run_mode(int m_mode, pl_interp **it_out, pl_status *invoke_status)
{
    size_t n;
    free(run_model);
    run_model = load(HELLO, &n);
    pl_interp_options o = options(&all);
    mode = m_mode;
    pl_status s = pl_interp_create(run_model, n, &o, arena, sizeof arena, it_out, &err);
    if (s == PL_OK)
        s = pl_interp_allocate(*it_out);
    *invoke_status = s == PL_OK ? pl_interp_invoke(*it_out) : s;
    return s;
}

static void get_tensor_during_invoke_is_refused(void)
{
    NEED_MODEL(m, n, HELLO);
    free(m);
    pl_interp *it;
    pl_status inv;
    CHECK_EQ(run_mode(MODE_TENSOR_IN_INVOKE, &it, &inv), PL_OK);
    CHECK_EQ(inv, PL_ERR_STATE);
    CHECK_STR_CONTAINS(pl_interp_error(it)->msg, "get_tensor is only allowed during prepare");
    CHECK_EQ(pl_interp_error(it)->node, 0);
}

static void persistent_allocation_during_invoke_is_refused(void)
{
    NEED_MODEL(m, n, HELLO);
    free(m);
    pl_interp *it;
    pl_status inv;
    CHECK_EQ(run_mode(MODE_PERSIST_IN_INVOKE, &it, &inv), PL_OK);
    CHECK_EQ(inv, PL_ERR_STATE);
    CHECK_STR_CONTAINS(pl_interp_error(it)->msg, "alloc_persistent");
}

static void scratch_request_during_init_is_refused(void)
{
    NEED_MODEL(m, n, HELLO);
    free(m);
    pl_interp *it;
    pl_status inv;
    CHECK_EQ(run_mode(MODE_SCRATCH_IN_INIT, &it, &inv), PL_ERR_STATE);
    CHECK_STR_CONTAINS(pl_interp_error(it)->msg, "request_scratch is only allowed during prepare");
}

static void get_scratch_during_prepare_is_refused(void)
{
    NEED_MODEL(m, n, HELLO);
    free(m);
    pl_interp *it;
    pl_status inv;
    CHECK_EQ(run_mode(MODE_SCRATCH_IN_PREPARE_GET, &it, &inv), PL_ERR_STATE);
    CHECK_STR_CONTAINS(pl_interp_error(it)->msg, "get_scratch refused in prepare");
}

static void too_many_scratch_requests_fail(void)
{
    NEED_MODEL(m, n, HELLO);
    free(m);
    pl_interp *it;
    pl_status inv;
    CHECK_EQ(run_mode(MODE_TOO_MANY_SCRATCH, &it, &inv), PL_ERR_ARG);
    CHECK_STR_CONTAINS(pl_interp_error(it)->msg, "scratch requests");
}

static void kernel_failure_names_node_and_op(void)
{
    NEED_MODEL(m, n, HELLO);
    free(m);
    pl_interp *it;
    pl_status inv;
    CHECK_EQ(run_mode(MODE_FAIL_PREPARE, &it, &inv), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(pl_interp_error(it)->msg, "node 0 (STANDIN): stand-in refuses type");
    CHECK(strcmp(pl_interp_error(it)->op_name, "STANDIN") == 0);
}

static void scratch_buffers_live_in_the_head(void)
{
    NEED_MODEL(m, n, HELLO);
    free(m);
    pl_interp *it;
    pl_status inv;
    CHECK_EQ(run_mode(MODE_SCRATCH, &it, &inv), PL_OK);
    CHECK_EQ(inv, PL_OK);
    pl_recording rec;
    CHECK_EQ(pl_interp_recording(it, &rec), PL_OK);
    CHECK_EQ(rec.head_scratch, 112 * 3);
    for (int i = 0; i < 3; i++) {
        CHECK(scratch_seen[i] >= arena && scratch_seen[i] + 100 <= arena + rec.head + 16);
    }
    /* 3 scratch buffers + tensors in the plan */
    uint32_t count = pl_interp_plan_count(it);
    pl_plan_buffer b;
    int32_t t;
    uint32_t sg = 99;
    CHECK_EQ(pl_interp_plan_buffer(it, count - 1, &b, &t, &sg), PL_OK);
    CHECK_EQ(t, -1);
    CHECK_EQ(sg, 0);
    CHECK_EQ(b.first, 3);
    CHECK_EQ(b.size, 112);
}

static void unsupported_op_names_op_code_version_node(void)
{
    NEED_MODEL(m, n, HELLO);
    pl_interp *it;
    pl_interp_options o = options(&none);
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_ERR_UNSUPPORTED);
    const pl_error *e = pl_interp_error(it);
    CHECK_STR_CONTAINS(e->msg, "node 0: operator FULLY_CONNECTED (builtin code 9, version");
    CHECK_EQ(e->node, 0);
    CHECK(strcmp(e->op_name, "FULLY_CONNECTED") == 0);
    free(m);
}

static void allocate_fails_cleanly_one_byte_below_required(const char *rel)
{
    NEED_MODEL(m, n, rel);
    pl_interp_options o = options(&all);
    size_t required = 0;
    mode = MODE_SCRATCH;
    CHECK_EQ(pl_required_arena_size(m, n, &o, arena, sizeof arena, &required, &err), PL_OK);
    CHECK(required > 0 && required % 16 == 0);
    pl_interp *it;
    pl_status s = pl_interp_create(m, n, &o, arena2, required, &it, &err);
    CHECK_EQ(s, PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    for (size_t size = required - 1; size + 64 >= required && size > 0; size--) {
        s = pl_interp_create(m, n, &o, arena2, size, &it, &err);
        if (s == PL_OK)
            s = pl_interp_allocate(it);
        CHECK_EQ(s, PL_ERR_ARENA);
        CHECK(err.available < required);
    }
    free(m);
}

static void required_size_is_exact(void)
{
    allocate_fails_cleanly_one_byte_below_required(HELLO);
    allocate_fails_cleanly_one_byte_below_required(KEYWORD);
}

/* The record in the caller's storage: the arena needs exactly PL_INTERP_RECORD_BYTES less
** (sized with the same options), one byte less fails, and the record is the storage. */
static void record_outside_the_arena_costs_it_nothing(void)
{
    NEED_MODEL(m, n, KEYWORD);
    static pl_interp_storage record;
    pl_interp_options inside = options(&all), outside = inside;
    outside.storage = &record;
    size_t with = 0, without = 0;
    mode = MODE_SCRATCH;
    CHECK_EQ(pl_required_arena_size(m, n, &inside, arena, sizeof arena, &with, &err), PL_OK);
    CHECK_EQ(pl_required_arena_size(m, n, &outside, arena, sizeof arena, &without, &err), PL_OK);
    CHECK_EQ(with - without, PL_INTERP_RECORD_BYTES);
    pl_interp *it;
    CHECK_EQ(pl_interp_create(m, n, &outside, arena2, without, &it, &err), PL_OK);
    CHECK((void *)it == (void *)&record);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    pl_interp_destroy(it);
    pl_status s = pl_interp_create(m, n, &outside, arena2, without - 1, &it, &err);
    if (s == PL_OK)
        s = pl_interp_allocate(it);
    CHECK_EQ(s, PL_ERR_ARENA);
    free(m);
}

static void two_interpreters_are_independent(void)
{
    NEED_MODEL(m, n, HELLO);
    pl_interp *a, *b;
    pl_error err_b;
    pl_interp_options o = options(&all);
    mode = MODE_PLAIN;
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &a, &err), PL_OK);
    CHECK_EQ(pl_interp_create(m, n, &o, arena2, sizeof arena2, &b, &err_b), PL_OK);
    CHECK_EQ(pl_interp_allocate(a), PL_OK);
    CHECK_EQ(pl_interp_invoke(b), PL_ERR_STATE);
    CHECK_EQ(pl_interp_allocate(b), PL_OK);
    CHECK_EQ(pl_interp_invoke(a), PL_OK);
    CHECK_EQ(pl_interp_invoke(b), PL_OK);
    pl_recording ra, rb;
    CHECK_EQ(pl_interp_recording(a, &ra), PL_OK);
    CHECK_EQ(pl_interp_recording(b, &rb), PL_OK);
    CHECK_EQ(ra.total, rb.total);
    free(m);
}

static void variable_tensors_are_zeroed_and_reset(void)
{
    NEED_MODEL(m, n, KEYWORD);
    pl_interp *it;
    pl_interp_options o = options(&all);
    mode = MODE_PLAIN;
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    uint32_t vars = 0;
    for (uint32_t i = 0; i < pl_interp_tensor_count(it); i++) {
        pl_tensor_info info;
        CHECK_EQ(pl_interp_tensor(it, i, &info), PL_OK);
        if (!info.is_variable)
            continue;
        vars++;
        CHECK(info.data != NULL);
        for (size_t k = 0; k < info.bytes; k++)
            CHECK_EQ(((uint8_t *)info.data)[k], 0);
        memset(info.data, 7, info.bytes);
    }
    CHECK(vars > 0);
    pl_recording rec;
    CHECK_EQ(pl_interp_recording(it, &rec), PL_OK);
    CHECK(rec.cat[PL_CAT_VARIABLE].count == vars);
    CHECK_EQ(pl_interp_reset(it), PL_OK);
    for (uint32_t i = 0; i < pl_interp_tensor_count(it); i++) {
        pl_tensor_info info;
        CHECK_EQ(pl_interp_tensor(it, i, &info), PL_OK);
        if (info.is_variable)
            CHECK_EQ(((uint8_t *)info.data)[info.bytes - 1], 0);
    }
    free(m);
}

static void preserve_all_tensors_plans_linearly(void)
{
    NEED_MODEL(m, n, HELLO);
    pl_interp *it;
    pl_interp_options o = options(&all);
    o.preserve_all_tensors = true;
    mode = MODE_PLAIN;
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    pl_recording rec;
    CHECK_EQ(pl_interp_recording(it, &rec), PL_OK);
    CHECK_EQ(rec.planner, PL_PLANNER_LINEAR);
    for (uint32_t i = 0; i < pl_interp_tensor_count(it); i++) {
        pl_tensor_info info;
        CHECK_EQ(pl_interp_tensor(it, i, &info), PL_OK);
        CHECK(!info.shared);
        CHECK(info.data != NULL);
    }
    free(m);
}

static void recording_format_is_tflms(void)
{
    NEED_MODEL(m, n, HELLO);
    pl_interp *it;
    pl_interp_options o = options(&all);
    mode = MODE_PLAIN;
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_recording rec;
    CHECK_EQ(pl_interp_recording(it, &rec), PL_OK);
    CHECK_EQ(rec.total, rec.head + rec.tail);
    CHECK(rec.peak >= rec.total);
    CHECK(rec.head >= rec.lower_bound);
    char text[2048];
    size_t len = pl_recording_format(&rec, text, sizeof text);
    CHECK(len > 0 && len < sizeof text);
    CHECK_STR_CONTAINS(text, "[picolite] Arena allocation total "); /* its own, not TFLM's */
    CHECK_STR_CONTAINS(text, "'TfLiteEvalTensor data' used ");
    CHECK_STR_CONTAINS(text, "'NodeAndRegistration struct' used ");
    free(m);
}

static void bad_arguments_are_rejected(void)
{
    pl_interp *it;
    pl_interp_options o = pl_interp_defaults();
    CHECK_EQ(pl_interp_create(NULL, 0, &o, arena, sizeof arena, &it, &err), PL_ERR_ARG);
    o.planner = PL_PLANNER_COUNT;
    uint8_t junk[64] = {0};
    CHECK_EQ(pl_interp_create(junk, sizeof junk, &o, arena, sizeof arena, &it, &err),
             PL_ERR_ARG);
    o = pl_interp_defaults();
    CHECK_EQ(pl_interp_create(junk, sizeof junk, &o, arena, sizeof arena, &it, &err),
             PL_ERR_ARG); /* no resolver: never an implicit fallback to every kernel */
    o.resolver = pl_builtin_resolver();
    CHECK_EQ(pl_interp_create(junk, sizeof junk, &o, arena, sizeof arena, &it, &err),
             PL_ERR_MODEL);
}

int main(void)
{
    RUN(phases_run_in_order);
    RUN(invoke_before_allocate_is_a_state_error);
    RUN(get_tensor_during_invoke_is_refused);
    RUN(persistent_allocation_during_invoke_is_refused);
    RUN(scratch_request_during_init_is_refused);
    RUN(get_scratch_during_prepare_is_refused);
    RUN(too_many_scratch_requests_fail);
    RUN(kernel_failure_names_node_and_op);
    RUN(scratch_buffers_live_in_the_head);
    RUN(unsupported_op_names_op_code_version_node);
    RUN(required_size_is_exact);
    RUN(record_outside_the_arena_costs_it_nothing);
    RUN(two_interpreters_are_independent);
    RUN(variable_tensors_are_zeroed_and_reset);
    RUN(preserve_all_tensors_plans_linearly);
    RUN(recording_format_is_tflms);
    RUN(bad_arguments_are_rejected);
    return HARNESS_END();
}
