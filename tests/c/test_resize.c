/* test_resize.c - resized inputs: shapes that follow, values known at prepare, sizing.
**
** Models are built here (model_builder.h): out = a + b with a [1, 4] (signature [-1, 4]) and
** b a constant [1, 4]; and out = RESHAPE(x, CONCATENATION(c1, c2)) whose shape tensor is
** computed from two int32 constants {2} and {-1}. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model_builder.h"
#include "picolite/picolite.h"

#define ARENA_BYTES (64 * 1024)

static _Alignas(16) uint8_t arena[ARENA_BYTES];
static pl_error err;

static uint8_t *add_model(size_t *size)
{
    mb_spec s;
    mb_default(&s);
    s.tensors[0].sig_rank = 2;
    s.tensors[0].sig[0] = -1;
    s.tensors[0].sig[1] = 4;
    s.ops[0].opt_field0 = 0; /* no activation */
    return mb_build(&s, size, NULL);
}

static uint8_t *reshape_model(size_t *size)
{
    static const int32_t two = 2, stretch = -1;
    mb_spec s;
    memset(&s, 0, sizeof s);
    s.ident = "TFL3";
    s.version = 3;
    s.nopcodes = 2;
    s.opcodes[0] = (mb_opcode){2, 2, NULL, 1};   /* CONCATENATION */
    s.opcodes[1] = (mb_opcode){22, 22, NULL, 1}; /* RESHAPE */
    s.nsubgraphs = 1;
    s.ntensors = 5;
    s.tensors[0] = (mb_tensor){.rank = 2, .shape = {1, 4}, .type = 0, .name = "x"};
    s.tensors[1] = (mb_tensor){.rank = 1, .shape = {1}, .type = 2, .buffer = 1, .name = "c1"};
    s.tensors[2] = (mb_tensor){.rank = 1, .shape = {1}, .type = 2, .buffer = 2, .name = "c2"};
    s.tensors[3] = (mb_tensor){.rank = 1, .shape = {2}, .type = 2, .name = "shape"};
    s.tensors[4] = (mb_tensor){.rank = 2, .shape = {2, 2}, .type = 0, .name = "y"};
    s.nin = 1;
    s.in[0] = 0;
    s.nout = 1;
    s.out[0] = 4;
    s.nops = 2;
    s.ops[0] = (mb_op){.opcode = 0, .nin = 2, .in = {1, 2}, .nout = 1, .out = {3}};
    s.ops[1] = (mb_op){.opcode = 1, .nin = 2, .in = {0, 3}, .nout = 1, .out = {4}};
    s.nbuffers = 3;
    s.buffers[1] = (mb_buffer){.n = 4, .data = (const uint8_t *)&two};
    s.buffers[2] = (mb_buffer){.n = 4, .data = (const uint8_t *)&stretch};
    s.sg_name = "main";
    return mb_build(&s, size, NULL);
}

/* y = RESHAPE(x, CONCATENATION(STRIDED_SLICE(SHAPE(x), [0], [1], [1]), [-1])): the chain a
** converter emits to flatten with a dynamic batch. x [1, 4]. */
static uint8_t *shape_chain_model(size_t *size)
{
    static const int32_t zero = 0, one = 1, stretch = -1;
    mb_spec s;
    memset(&s, 0, sizeof s);
    s.ident = "TFL3";
    s.version = 3;
    s.nopcodes = 4;
    s.opcodes[0] = (mb_opcode){77, 77, NULL, 1}; /* SHAPE */
    s.opcodes[1] = (mb_opcode){45, 45, NULL, 1}; /* STRIDED_SLICE */
    s.opcodes[2] = (mb_opcode){2, 2, NULL, 1};   /* CONCATENATION */
    s.opcodes[3] = (mb_opcode){22, 22, NULL, 1}; /* RESHAPE */
    s.nsubgraphs = 1;
    s.ntensors = 8;
    /* no shape_signature: a -1 there would make allocate fold the chain even unresized */
    s.tensors[0] = (mb_tensor){.rank = 2, .shape = {1, 4}, .type = 0, .name = "x"};
    s.tensors[1] = (mb_tensor){.rank = 1, .shape = {2}, .type = 2, .name = "shape"};
    s.tensors[2] = (mb_tensor){.rank = 1, .shape = {1}, .type = 2, .buffer = 1, .name = "0"};
    s.tensors[3] = (mb_tensor){.rank = 1, .shape = {1}, .type = 2, .buffer = 2, .name = "1"};
    s.tensors[4] = (mb_tensor){.rank = 1, .shape = {1}, .type = 2, .name = "batch"};
    s.tensors[5] = (mb_tensor){.rank = 1, .shape = {1}, .type = 2, .buffer = 3, .name = "-1"};
    s.tensors[6] = (mb_tensor){.rank = 1, .shape = {2}, .type = 2, .name = "new_shape"};
    s.tensors[7] = (mb_tensor){.rank = 2, .shape = {1, 4}, .type = 0, .name = "y"};
    s.nin = 1;
    s.in[0] = 0;
    s.nout = 1;
    s.out[0] = 7;
    s.nops = 4;
    s.ops[0] = (mb_op){.opcode = 0, .nin = 1, .in = {0}, .nout = 1, .out = {1}};
    s.ops[1] = (mb_op){.opcode = 1, .nin = 4, .in = {1, 2, 3, 3}, .nout = 1, .out = {4}};
    s.ops[2] = (mb_op){.opcode = 2, .nin = 2, .in = {4, 5}, .nout = 1, .out = {6}};
    s.ops[3] = (mb_op){.opcode = 3, .nin = 2, .in = {0, 6}, .nout = 1, .out = {7}};
    s.nbuffers = 4;
    s.buffers[1] = (mb_buffer){.n = 4, .data = (const uint8_t *)&zero};
    s.buffers[2] = (mb_buffer){.n = 4, .data = (const uint8_t *)&one};
    s.buffers[3] = (mb_buffer){.n = 4, .data = (const uint8_t *)&stretch};
    s.sg_name = "main";
    return mb_build(&s, size, NULL);
}

/* A stand-in SHAPE (builtin 77, int32 output): its output depends on the input's shape only,
** so it folds with shape_only. */
static pl_status shape_prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor in;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    const int32_t rank[1] = {in.ndims};
    PL_TRY(ctx->set_shape(ctx, pl_node_output(node, 0), 1, rank));
    return ctx->fold(ctx, node, true);
}

static pl_status shape_invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    memcpy(out.data, in.dims, sizeof(int32_t) * (size_t)in.ndims);
    return PL_OK;
}

static const pl_registration *with_shape(const void *self, int32_t code, const char *custom,
                                         uint32_t custom_len, int32_t version)
{
    static const pl_registration shape = {.name = "SHAPE", .builtin_code = 77,
                                          .prepare = shape_prepare, .invoke = shape_invoke};
    const pl_resolver *builtin = pl_builtin_resolver();
    (void)self;
    return code == 77 ? &shape
                      : builtin->find(builtin->self, code, custom, custom_len, version);
}

/* The defaults with every builtin kernel (create has no implicit resolver). */
static pl_interp_options builtin_options(void)
{
    pl_interp_options o = pl_interp_defaults();
    o.resolver = pl_builtin_resolver();
    return o;
}

static pl_interp *create(const uint8_t *model, size_t size, const pl_interp_options *opt)
{
    pl_interp *it = NULL;
    pl_interp_options o = opt != NULL ? *opt : builtin_options();
    if (pl_interp_create(model, size, &o, arena, sizeof arena, &it, &err) != PL_OK)
        return NULL;
    return it;
}

static void resized_add_broadcasts_and_runs(void)
{
    size_t size;
    uint8_t *m = add_model(&size);
    pl_interp *it = create(m, size, NULL);
    CHECK(it != NULL);
    const int32_t dims[2] = {3, 4};
    CHECK_EQ(pl_interp_resize_input(it, 0, 2, dims, true), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_tensor_info in, out;
    CHECK_EQ(pl_interp_tensor(it, 0, &in), PL_OK);
    CHECK_EQ(pl_interp_tensor(it, 2, &out), PL_OK);
    CHECK(in.ndims == 2 && in.dims[0] == 3 && in.dims[1] == 4 && in.bytes == 48);
    CHECK(out.ndims == 2 && out.dims[0] == 3 && out.dims[1] == 4 && out.bytes == 48);
    CHECK(out.ndims_signature == 2 && out.dims_signature[0] == 1); /* the model's */
    float *x = in.data;
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    const float b[4] = {1, 2, 3, 4};
    for (int i = 0; i < 12; i++)
        CHECK(((float *)out.data)[i] == (float)i + b[i % 4]);
    pl_interp_destroy(it);
    free(m);
}

/* An input resized to no elements (LiteRT's testEmptyInputTensor gives one): the empty
** tensors get no memory and the kernel runs on nothing. */
static void an_input_of_no_elements_runs(void)
{
    size_t size;
    uint8_t *m = add_model(&size);
    pl_interp *it = create(m, size, NULL);
    CHECK(it != NULL);
    const int32_t zero[2] = {0, 4};
    CHECK_EQ(pl_interp_resize_input(it, 0, 2, zero, false), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_tensor_info in, out;
    CHECK_EQ(pl_interp_tensor(it, 0, &in), PL_OK);
    CHECK_EQ(pl_interp_tensor(it, 2, &out), PL_OK);
    CHECK(in.bytes == 0 && out.bytes == 0 && out.dims[0] == 0 && out.dims[1] == 4);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(pl_interp_reset(it), PL_OK);
    pl_interp_destroy(it);
    free(m);
}

/* The tail holds the resized dims; an unresized model (or one resized to its own shape)
** costs not one byte more than before resizing existed. */
static void only_a_resize_costs_tail_bytes(void)
{
    size_t size;
    uint8_t *m = add_model(&size);
    pl_recording plain, same, grown;
    pl_interp *it = create(m, size, NULL);
    CHECK(it != NULL && pl_interp_allocate(it) == PL_OK);
    pl_interp_recording(it, &plain);
    pl_interp_destroy(it);
    const int32_t one[2] = {1, 4}, three[2] = {3, 4};
    it = create(m, size, NULL);
    CHECK(it != NULL && pl_interp_resize_input(it, 0, 2, one, false) == PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_interp_recording(it, &same);
    pl_interp_destroy(it);
    it = create(m, size, NULL);
    CHECK(it != NULL && pl_interp_resize_input(it, 0, 2, three, false) == PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_interp_recording(it, &grown);
    pl_interp_destroy(it);
    CHECK_EQ(same.tail, plain.tail);
    CHECK_EQ(same.cat[PL_CAT_PERSISTENT_BUFFER].used, 0);
    /* the request table, the input's dims and the output's dims */
    CHECK_EQ(grown.cat[PL_CAT_PERSISTENT_BUFFER].count, 3);
    CHECK(grown.tail > plain.tail && grown.head > plain.head);
    free(m);
}

static void required_size_follows_input_shapes(void)
{
    size_t size, need = 0, plain = 0;
    uint8_t *m = add_model(&size);
    const int32_t dims[2] = {32, 4};
    pl_input_shape shape = {0, 2, dims};
    pl_interp_options opt = builtin_options();
    CHECK_EQ(pl_required_arena_size(m, size, &opt, arena, sizeof arena, &plain, &err), PL_OK);
    opt.input_shapes = &shape;
    opt.input_shape_count = 1;
    CHECK_EQ(pl_required_arena_size(m, size, &opt, arena, sizeof arena, &need, &err), PL_OK);
    CHECK(need > plain);
    pl_interp *it = NULL;
    CHECK_EQ(pl_interp_create(m, size, &opt, arena, need, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_interp_destroy(it);
    CHECK_EQ(pl_interp_create(m, size, &opt, arena, need - 1, &it, &err), PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_ERR_ARENA);
    pl_interp_destroy(it);
    free(m);
}

static void bad_requests_are_refused(void)
{
    size_t size;
    uint8_t *m = add_model(&size);
    pl_interp *it = create(m, size, NULL);
    CHECK(it != NULL);
    const int32_t zero[2] = {0, 4}, neg[2] = {-2, 4}, wide[2] = {2, 5}, nine[9] = {1};
    CHECK_EQ(pl_interp_resize_input(it, 1, 2, zero, false), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "input 1 of 1");
    CHECK_EQ(pl_interp_resize_input(it, 0, 2, neg, false), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "[-2, 4] has a negative dim");
    CHECK_EQ(pl_interp_resize_input(it, 0, 9, nine, false), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "rank 9");
    CHECK_EQ(pl_interp_resize_input(it, 0, 2, wide, true), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "ResizeInputTensorStrict only allows mutating unknown "
                                "dimensions identified by -1.");
    CHECK_STR_CONTAINS(err.msg, "shape_signature [-1, 4], requested [2, 5]");
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    CHECK_EQ(pl_interp_resize_input(it, 0, 2, wide, false), PL_ERR_STATE);
    pl_interp_destroy(it);
    free(m);
}

/* The shape the model cannot take fails allocate naming the node and the op. */
static void a_shape_the_model_cannot_take_names_the_op(void)
{
    size_t size;
    uint8_t *m = add_model(&size);
    pl_interp *it = create(m, size, NULL);
    const int32_t wide[2] = {2, 5};
    CHECK(it != NULL && pl_interp_resize_input(it, 0, 2, wide, false) == PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "node 0 (ADD)");
    CHECK_STR_CONTAINS(err.msg, "do not broadcast");
    CHECK_EQ(err.node, 0);
    pl_interp_destroy(it);
    free(m);
}

/* Unresized, the run-time shape tensor is not read (TFLM's rule: the model's [2, 2]); once
** the input is resized, CONCATENATION is computed at prepare and RESHAPE reads {2, -1}. */
static void reshape_reads_a_shape_computed_at_prepare(void)
{
    size_t size;
    uint8_t *m = reshape_model(&size);
    pl_interp *it = create(m, size, NULL);
    CHECK(it != NULL);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_tensor_info y, shape;
    CHECK_EQ(pl_interp_tensor(it, 4, &y), PL_OK);
    CHECK(y.dims[0] == 2 && y.dims[1] == 2);
    CHECK_EQ(pl_interp_tensor(it, 3, &shape), PL_OK);
    CHECK(!shape.is_constant); /* planned in the head as usual */
    pl_interp_destroy(it);
    it = create(m, size, NULL);
    const int32_t dims[2] = {3, 4};
    CHECK(it != NULL && pl_interp_resize_input(it, 0, 2, dims, false) == PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    CHECK_EQ(pl_interp_tensor(it, 4, &y), PL_OK);
    CHECK(y.ndims == 2 && y.dims[0] == 2 && y.dims[1] == 6);
    CHECK_EQ(pl_interp_tensor(it, 3, &shape), PL_OK);
    CHECK(shape.is_constant && shape.data != NULL);
    CHECK(((int32_t *)shape.data)[0] == 2 && ((int32_t *)shape.data)[1] == -1);
    pl_tensor_info x;
    CHECK_EQ(pl_interp_tensor(it, 0, &x), PL_OK);
    for (int i = 0; i < 12; i++)
        ((float *)x.data)[i] = (float)i;
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    for (int i = 0; i < 12; i++)
        CHECK(((float *)y.data)[i] == (float)i);
    CHECK(((int32_t *)shape.data)[1] == -1); /* invoke wrote the same values again */
    pl_interp_destroy(it);
    free(m);
}

/* SHAPE -> STRIDED_SLICE -> CONCATENATION -> RESHAPE: unresized, the values are computed at
** invoke and the model's [1, 4] stands; resized, all three are computed at prepare (the tail
** holds them) and RESHAPE gives [3, 4]. */
static void shape_chain_is_computed_at_prepare_after_a_resize(void)
{
    size_t size;
    uint8_t *m = shape_chain_model(&size);
    pl_resolver resolver = {with_shape, NULL};
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = &resolver;
    pl_interp *it = create(m, size, &opt);
    CHECK(it != NULL);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    pl_tensor_info t;
    for (uint32_t i = 1; i < 7; i++) {
        CHECK_EQ(pl_interp_tensor(it, i, &t), PL_OK);
        CHECK(i == 2 || i == 3 || i == 5 || !t.is_constant);
    }
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(pl_interp_tensor(it, 6, &t), PL_OK);
    CHECK(((int32_t *)t.data)[0] == 1 && ((int32_t *)t.data)[1] == -1);
    pl_interp_destroy(it);
    const int32_t dims[2] = {3, 4};
    it = create(m, size, &opt);
    CHECK(it != NULL && pl_interp_resize_input(it, 0, 2, dims, false) == PL_OK);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    const int32_t known[3] = {1, 4, 6};
    for (int k = 0; k < 3; k++) {
        CHECK_EQ(pl_interp_tensor(it, (uint32_t)known[k], &t), PL_OK);
        CHECK(t.is_constant && t.data != NULL && ((int32_t *)t.data)[0] == 3);
    }
    CHECK_EQ(pl_interp_tensor(it, 7, &t), PL_OK);
    CHECK(t.ndims == 2 && t.dims[0] == 3 && t.dims[1] == 4);
    pl_tensor_info x;
    CHECK_EQ(pl_interp_tensor(it, 0, &x), PL_OK);
    for (int i = 0; i < 12; i++)
        ((float *)x.data)[i] = (float)(2 * i);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    for (int i = 0; i < 12; i++)
        CHECK(((float *)t.data)[i] == (float)(2 * i));
    pl_interp_destroy(it);
    free(m);
}

/* Before allocate, the tensor report shows a requested input shape (LiteRT shows it too). */
static void requested_shape_is_reported_before_allocate(void)
{
    size_t size;
    uint8_t *m = add_model(&size);
    pl_interp *it = create(m, size, NULL);
    const int32_t dims[2] = {5, 4};
    CHECK(it != NULL && pl_interp_resize_input(it, 0, 2, dims, false) == PL_OK);
    pl_tensor_info in, out;
    CHECK_EQ(pl_interp_tensor(it, 0, &in), PL_OK);
    CHECK(in.dims[0] == 5 && in.dims[1] == 4 && in.data == NULL);
    CHECK_EQ(pl_interp_tensor(it, 2, &out), PL_OK);
    CHECK(out.dims[0] == 1); /* outputs follow at allocate */
    pl_interp_destroy(it);
    free(m);
}

int main(void)
{
    RUN(resized_add_broadcasts_and_runs);
    RUN(an_input_of_no_elements_runs);
    RUN(only_a_resize_costs_tail_bytes);
    RUN(required_size_follows_input_shapes);
    RUN(bad_requests_are_refused);
    RUN(a_shape_the_model_cannot_take_names_the_op);
    RUN(reshape_reads_a_shape_computed_at_prepare);
    RUN(shape_chain_is_computed_at_prepare_after_a_resize);
    RUN(requested_shape_is_reported_before_allocate);
    return HARNESS_END();
}
