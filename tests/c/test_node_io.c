/* test_node_io.c - the kernel preamble (pl_node_io.h): counts, presence, tensors, types, and
** one wording of each error. */
#include "harness.h"
#include "kernel_harness.h"
#include "picolite/pl_node_io.h"

static float data[4][4];
static const int32_t dims4[4] = {1, 2, 2, 1};

/* A node over the harness's tensors: inputs first (-1 for absent), then outputs. */
static pl_node node_of(const int32_t *inputs, uint32_t n_in, const int32_t *outputs,
                       uint32_t n_out)
{
    pl_node node;
    memset(&node, 0, sizeof node);
    node.inputs = kh_vec(0, inputs, n_in);
    node.outputs = kh_vec(1, outputs, n_out);
    return node;
}

static void setup_three(void)
{
    kh_setup();
    kh.phase = PL_PHASE_PREPARE;
    for (int i = 0; i < 3; i++)
        kh_tensor(i == 1 ? PL_INT8 : PL_FLOAT32, 4, dims4, data[i], sizeof data[i], NULL, NULL,
                  0, 0);
}

static void counts_have_one_wording(void)
{
    setup_three();
    const int32_t in[3] = {0, 1, 0}, out[2] = {2, 2};
    pl_node n = node_of(in, 3, out, 1);
    CHECK_EQ(pl_node_check(&kh_ctx, &n, PL_IO(2, 1)), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "expects 2 inputs, got 3");
    n = node_of(in, 1, out, 1);
    CHECK_EQ(pl_node_check(&kh_ctx, &n, PL_IO_NAMED(2, 3, 1, "input, filter, optional bias")),
             PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "expects 2 to 3 inputs (input, filter, optional bias), "
                                   "got 1");
    n = node_of(in, 3, out, 2);
    CHECK_EQ(pl_node_check(&kh_ctx, &n, PL_IO_OPT(1, PL_IO_ANY, 1)), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "expects 1 output, got 2");
    n = node_of(in, 0, out, 1);
    CHECK_EQ(pl_node_check(&kh_ctx, &n, PL_IO_OPT(1, PL_IO_ANY, 1)), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "expects at least 1 input, got 0");
}

static void required_inputs_are_present_unless_marked_optional(void)
{
    setup_three();
    const int32_t in[3] = {0, -1, 1}, out[1] = {2};
    pl_node n = node_of(in, 3, out, 1);
    CHECK_EQ(pl_node_check(&kh_ctx, &n, PL_IO(3, 1)), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "input 1 is absent");
    CHECK_EQ(pl_node_check(&kh_ctx, &n, ((pl_io_spec){3, 3, 1, 1, NULL, 1u << 1})), PL_OK);
}

static void tensors_come_in_order_with_absent_optionals_null(void)
{
    setup_three();
    const int32_t in[2] = {0, -1}, out[1] = {2};
    pl_node n = node_of(in, 2, out, 1);
    pl_tensor *a = NULL, *b = &kh.tensors[0], *o = NULL;
    CHECK_EQ(pl_node_tensors(&kh_ctx, &n, PL_IO_OPT(1, 2, 1), &a, &b, &o), PL_OK);
    CHECK(a == &kh.tensors[0] && b == NULL && o == &kh.tensors[2]);
    kh.phase = PL_PHASE_INVOKE;
    pl_tensor ea, eb, eo;
    CHECK_EQ(pl_node_evals(&kh_ctx, &n, 2, 1, &ea, &eb, &eo), PL_OK);
    CHECK(ea.index == 0 && eb.index == -1 && eb.data == NULL && eo.index == 2);
}

static void types_have_one_wording(void)
{
    setup_three();
    const pl_tensor *f = &kh.tensors[0], *q = &kh.tensors[1];
    CHECK_EQ(pl_check_type(&kh_ctx, q, false, 1, PL_TYPES2(PL_FLOAT32, PL_INT16)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "input 1 is INT8, expected FLOAT32 or INT16");
    CHECK_EQ(pl_check_types(&kh_ctx, f, q, PL_TYPES1(PL_FLOAT32)), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "output 0 is INT8, expected FLOAT32 (input 0's type)");
    CHECK_EQ(pl_check_types(&kh_ctx, f, f, PL_TYPES_FIXED_SIZE), PL_OK);
    CHECK_EQ(pl_check_rank(&kh_ctx, f, true, 0, 3), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "output 0 has rank 4, expected 3");
}

static void nhwc_names_the_dims(void)
{
    setup_three();
    const int32_t d[4] = {2, 3, 5, 7};
    pl_tensor t = kh.tensors[0];
    memcpy(t.dims, d, sizeof d);
    pl_nhwc s = pl_nhwc_of(&t);
    CHECK(s.n == 2 && s.h == 3 && s.w == 5 && s.c == 7);
}

int main(void)
{
    RUN(counts_have_one_wording);
    RUN(required_inputs_are_present_unless_marked_optional);
    RUN(tensors_come_in_order_with_absent_optionals_null);
    RUN(types_have_one_wording);
    RUN(nhwc_names_the_dims);
    return HARNESS_END();
}
