/* test_kernels_circular_buffer.c - CIRCULAR_BUFFER: the shift on every invoke, PL_ABORTED
** on the invokes between runs (TFLM's kTfLiteAbort), reset restarting the count, TFLM's
** default cycles_max by output shape. Equality with TFLM is checked on the zoo's models. */
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/custom/list.h"

/* A node over input [1, 1, 1, depth] and output [1, slots, h, depth / h], no options. */
static pl_status make_node(pl_node *node, int8_t *x, int8_t *y, int32_t slots, int32_t h,
                           int32_t depth)
{
    int32_t in_dims[4] = {1, 1, h, depth / h}, out_dims[4] = {1, slots, h, depth / h};
    int32_t in = kh_tensor(PL_INT8, 4, in_dims, x, (size_t)depth, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_INT8, 4, out_dims, y, (size_t)(slots * depth), NULL, NULL, 0, 0);
    const pl_registration *reg = pl_circular_buffer_registration();
    memset(node, 0, sizeof *node);
    node->builtin_code = 32;
    node->inputs = kh_vec(0, &in, 1);
    node->outputs = kh_vec(1, &out, 1);
    kh.phase = PL_PHASE_INIT;
    PL_TRY(pl_registration_init(reg, &kh_ctx, node, &node->user_data));
    kh.phase = PL_PHASE_PREPARE;
    PL_TRY(reg->prepare(&kh_ctx, node));
    kh.phase = PL_PHASE_INVOKE;
    return PL_OK;
}

/* 4 slots: TFLM's default is 2 cycles; every invoke shifts, every second one runs on. */
static void circular_buffer_aborts_between_runs_and_reset_restarts(void)
{
    int8_t x[2] = {0}, y[8] = {0};
    pl_node node;
    kh_setup();
    CHECK_EQ(make_node(&node, x, y, 4, 1, 2), PL_OK);
    const pl_registration *reg = pl_circular_buffer_registration();
    pl_status want[5] = {PL_ABORTED, PL_OK, PL_ABORTED, PL_OK, PL_ABORTED};
    for (int k = 0; k < 5; k++) {
        x[0] = (int8_t)(10 + k);
        x[1] = (int8_t)(-10 - k);
        CHECK_EQ(reg->invoke(&kh_ctx, &node), want[k]);
        CHECK_EQ(y[6], 10 + k);
        CHECK_EQ(y[7], -10 - k);
    }
    CHECK_EQ(y[0], 11); /* the oldest of the last four */
    CHECK_EQ(reg->reset(&kh_ctx, &node), PL_OK);
    CHECK_EQ(reg->invoke(&kh_ctx, &node), PL_ABORTED);
    CHECK_EQ(reg->invoke(&kh_ctx, &node), PL_OK);
}

/* 5 slots: TFLM's default is 1, every invoke runs on. */
static void circular_buffer_with_five_slots_runs_every_invoke(void)
{
    int8_t x[3] = {0}, y[15] = {0};
    pl_node node;
    kh_setup();
    CHECK_EQ(make_node(&node, x, y, 5, 1, 3), PL_OK);
    for (int k = 0; k < 3; k++)
        CHECK_EQ(pl_circular_buffer_registration()->invoke(&kh_ctx, &node), PL_OK);
}

/* [.., 2, 96]: TFLM's default depends on a count of prepares across models. */
static void circular_buffer_refuses_the_shape_dependent_default(void)
{
    static int8_t x[192], y[4 * 192];
    pl_node node;
    kh_setup();
    CHECK_EQ(make_node(&node, x, y, 4, 2, 192), PL_ERR_UNSUPPORTED);
    CHECK(strstr(kh.message, "count of earlier prepares") != NULL);
}

int main(void)
{
    RUN(circular_buffer_aborts_between_runs_and_reset_restarts);
    RUN(circular_buffer_with_five_slots_runs_every_invoke);
    RUN(circular_buffer_refuses_the_shape_dependent_default);
    return HARNESS_END();
}
