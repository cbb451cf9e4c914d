/* kernels_shape.c - TFLM's reference kernels that move data: reshapes, slices, pads,
** concatenation, gathers, transposes, resizes, reductions.
**
** Most take every input and the output as temp tensors in prepare; PACK, UNPACK, ARG_MAX
** and ARG_MIN have none, SPLIT and SPLIT_V look only at their axis, SHAPE at nothing. The
** reductions request their index scratch at prepare; MIRROR_PAD two arrays of dims. */
#include "tflm/kernels.h"

#include "tflm/ops.h"

static void unary(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 1);
}

static void binary(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 2, 1);
}

static void three_in(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 3, 1);
}

static void four_in(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 4, 1);
}

/* The output's shape is computed into a persistent copy of its dims: GATHER, GATHER_ND,
** DEPTH_TO_SPACE, SPACE_TO_DEPTH, with their tensors taken. */
static void sized_output(pl_tflm_node *n, uint32_t ins)
{
    int32_t t[3] = {pl_tflm_temp_input(n, 0), ins > 1 ? pl_tflm_temp_input(n, 1) : -1, -1};
    t[2] = pl_tflm_temp_output(n, 0);
    pl_tflm_dims_copy(n, t[2]);
    for (int k = 0; k < 3; k++)
        pl_tflm_free_tensor(n, t[k]);
}

static void gather_prepare(pl_tflm_node *n)
{
    sized_output(n, 2);
}

static void space_depth_prepare(pl_tflm_node *n)
{
    sized_output(n, 1);
}

/* RESHAPE: a -1 in the output's shape is filled into a persistent copy of its dims. */
static void reshape_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor out;
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, o, &out);
    if (out.unknown_dim)
        pl_tflm_dims_copy(n, o);
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, o);
}

static void split_prepare(pl_tflm_node *n)
{
    pl_tflm_free_tensor(n, pl_tflm_temp_input(n, 0));
}

static void split_v_prepare(pl_tflm_node *n)
{
    pl_tflm_free_tensor(n, pl_tflm_temp_input(n, 2));
}

/* The first input and the output, then every input in turn. */
static void concatenation_prepare(pl_tflm_node *n)
{
    int32_t first = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_free_tensor(n, first);
    for (uint32_t k = 0; k < n->op.inputs.n; k++)
        pl_tflm_free_tensor(n, pl_tflm_temp_input(n, k));
    pl_tflm_free_tensor(n, o);
}

static void mirror_pad_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in;
    int32_t i = pl_tflm_temp_input(n, 0), pad = pl_tflm_temp_input(n, 1);
    int32_t o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, i, &in);
    pl_tflm_scratch(n, 4u * (uint32_t)in.ndims);
    pl_tflm_scratch(n, 4u * (uint32_t)in.ndims);
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, pad);
    pl_tflm_free_tensor(n, o);
}

/* EMBEDDING_LOOKUP: the output's dims copied, then its op data. */
static void embedding_lookup_prepare(pl_tflm_node *n)
{
    int32_t t[3] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1), -1};
    t[2] = pl_tflm_temp_output(n, 0);
    pl_tflm_dims_copy(n, t[2]);
    pl_tflm_persistent(n, W(8, 16));
    for (int k = 0; k < 3; k++)
        pl_tflm_free_tensor(n, t[k]);
}

/* CUMSUM: op data for int8 only. */
static void cumsum_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor out;
    int32_t t[3] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1), -1};
    t[2] = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, t[2], &out);
    if (out.type == PL_INT8)
        pl_tflm_persistent(n, W(36, 36));
    for (int k = 0; k < 3; k++)
        pl_tflm_free_tensor(n, t[k]);
}

/* --- reductions (OpDataReduce) --- */

static void reduce_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(44, 44));
}

/* PrepareSimple: input, axis, and for int8 the output. */
static void reduce_simple(pl_tflm_node *n)
{
    pl_tflm_tensor in;
    int32_t i = pl_tflm_temp_input(n, 0), axis = pl_tflm_temp_input(n, 1);
    pl_tflm_tensor_of(n, i, &in);
    if (in.type == PL_INT8)
        pl_tflm_free_tensor(n, pl_tflm_temp_output(n, 0));
    pl_tflm_free_tensor(n, axis);
    pl_tflm_free_tensor(n, i);
}

/* Input, output and axis; scratch for the input's index and the resolved axes. */
static void reduce_take(pl_tflm_node *n, int32_t t[3], pl_tflm_tensor *in,
                        pl_tflm_tensor *out, pl_tflm_tensor *axis)
{
    t[0] = pl_tflm_temp_input(n, 0);
    t[1] = pl_tflm_temp_output(n, 0);
    t[2] = pl_tflm_temp_input(n, 1);
    pl_tflm_tensor_of(n, t[0], in);
    pl_tflm_tensor_of(n, t[1], out);
    pl_tflm_tensor_of(n, t[2], axis);
}

static void reduce_release(pl_tflm_node *n, const int32_t t[3])
{
    for (int k = 0; k < 3; k++)
        pl_tflm_free_tensor(n, t[k]);
}

static void reduce_min_max_prepare(pl_tflm_node *n)
{
    int32_t t[3];
    pl_tflm_tensor in, out, axis;
    reduce_simple(n);
    reduce_take(n, t, &in, &out, &axis);
    pl_tflm_scratch(n, 4u * (uint32_t)in.ndims);
    pl_tflm_scratch(n, 4u * (uint32_t)axis.elements);
    reduce_release(n, t);
}

static void reduce_all_prepare(pl_tflm_node *n)
{
    int32_t t[3];
    pl_tflm_tensor in, out, axis;
    reduce_take(n, t, &in, &out, &axis);
    reduce_simple(n);
    pl_tflm_scratch(n, 4u * (uint32_t)in.ndims);
    pl_tflm_scratch(n, 4u * (uint32_t)axis.elements);
    reduce_release(n, t);
}

/* MEAN and SUM: an int32 accumulator per output for quantized inputs, then PrepareSimple. */
static void reduce_mean_sum_prepare(pl_tflm_node *n)
{
    int32_t t[3];
    pl_tflm_tensor in, out, axis;
    reduce_take(n, t, &in, &out, &axis);
    if (in.type == PL_INT8 || in.type == PL_INT16)
        pl_tflm_scratch(n, 4u * (uint32_t)out.elements);
    pl_tflm_scratch(n, 4u * (uint32_t)in.ndims);
    pl_tflm_scratch(n, 4u * (uint32_t)axis.elements);
    reduce_simple(n);
    reduce_release(n, t);
}

static void strided_slice_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(84, 84));
}

static void pad_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(56, 56));
}

static void mirror_pad_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(20, 20));
}

static void concatenation_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(24, 80));
}

static void space_to_batch_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(4, 4));
}

#define NONE {{0, 0}, {0, 0}}
#define REDUCER {{1, 1}, {1, 1}}

static const pl_tflm_kernel entries[] = {
    {OP_RESHAPE, NULL, {{36, 4}, {36, 4}}, NULL, reshape_prepare},
    {OP_SQUEEZE, NULL, {{36, 4}, {36, 4}}, NULL, unary},
    {OP_EXPAND_DIMS, NULL, NONE, NULL, binary},
    {OP_STRIDED_SLICE, NULL, {{24, 4}, {24, 4}}, strided_slice_init, four_in},
    {OP_SLICE, NULL, NONE, NULL, three_in},
    {OP_PAD, NULL, NONE, pad_init, three_in},
    {OP_PADV2, NULL, NONE, pad_init, three_in},
    {OP_MIRROR_PAD, NULL, {{1, 1}, {4, 4}}, mirror_pad_init, mirror_pad_prepare},
    {OP_CONCATENATION, NULL, {{8, 4}, {8, 4}}, concatenation_init, concatenation_prepare},
    {OP_PACK, NULL, {{8, 4}, {8, 4}}, NULL, NULL},
    {OP_UNPACK, NULL, {{8, 4}, {8, 4}}, NULL, NULL},
    {OP_SPLIT, NULL, {{4, 4}, {4, 4}}, NULL, split_prepare},
    {OP_SPLIT_V, NULL, {{4, 4}, {4, 4}}, NULL, split_v_prepare},
    {OP_TRANSPOSE, NULL, NONE, NULL, binary},
    {OP_GATHER, NULL, {{8, 4}, {8, 4}}, NULL, gather_prepare},
    {OP_GATHER_ND, NULL, NONE, NULL, gather_prepare},
    {OP_DEPTH_TO_SPACE, NULL, {{4, 4}, {4, 4}}, NULL, space_depth_prepare},
    {OP_SPACE_TO_DEPTH, NULL, {{4, 4}, {4, 4}}, NULL, space_depth_prepare},
    {OP_BATCH_TO_SPACE_ND, NULL, NONE, NULL, unary},
    {OP_SPACE_TO_BATCH_ND, NULL, NONE, space_to_batch_init, unary},
    {OP_BROADCAST_TO, NULL, NONE, NULL, binary},
    {OP_BROADCAST_ARGS, NULL, NONE, NULL, binary},
    {OP_SHAPE, NULL, {{1, 1}, {4, 4}}, NULL, NULL},
    {OP_REVERSE_V2, NULL, NONE, NULL, binary},
    {OP_RESIZE_BILINEAR, NULL, {{2, 1}, {2, 1}}, NULL, binary},
    {OP_RESIZE_NEAREST_NEIGHBOR, NULL, {{2, 1}, {2, 1}}, NULL, binary},
    {OP_EMBEDDING_LOOKUP, NULL, NONE, NULL, embedding_lookup_prepare},
    {OP_DYNAMIC_UPDATE_SLICE, NULL, NONE, NULL, three_in},
    {OP_CUMSUM, NULL, {{2, 1}, {2, 1}}, NULL, cumsum_prepare},
    {OP_ARG_MAX, NULL, {{1, 1}, {4, 4}}, NULL, NULL},
    {OP_ARG_MIN, NULL, {{1, 1}, {4, 4}}, NULL, NULL},
    {OP_MEAN, NULL, REDUCER, reduce_init, reduce_mean_sum_prepare},
    {OP_SUM, NULL, REDUCER, reduce_init, reduce_mean_sum_prepare},
    {OP_REDUCE_MAX, NULL, REDUCER, reduce_init, reduce_min_max_prepare},
    {OP_REDUCE_MIN, NULL, REDUCER, reduce_init, reduce_min_max_prepare},
    {OP_REDUCE_ALL, NULL, REDUCER, reduce_init, reduce_all_prepare},
};

const pl_tflm_kernel_set pl_tflm_kernels_shape = {entries, sizeof entries / sizeof entries[0]};
