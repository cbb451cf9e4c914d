/* kernels_custom.c - TFLM's custom operators: their arena footprint.
**
** CIRCULAR_BUFFER, TFLite_Detection_PostProcess (eleven scratch requests sized by its custom
** options' max_detections and num_classes) and TFLM_DECODE (a decoder per output, chosen by
** the first byte of its ancillary tensor). Custom operators have no builtin data; their
** options are read from custom_options as TFLM's init reads them. */
#include "tflm/kernels.h"

#include "model/flexbuffer.h"
#include "tflm/ops.h"

/* An integer of the node's custom options map, or dflt when absent or unreadable. */
static int64_t option(const pl_tflm_node *n, const char *key, int64_t dflt)
{
    pl_flex root, v;
    bool found = false;
    int64_t x = dflt;
    if (pl_flex_root(n->op.custom_options, &root, NULL) != PL_OK ||
        pl_flex_map_find(&root, key, &v, &found, NULL) != PL_OK || !found ||
        pl_flex_int(&v, &x, NULL) != PL_OK)
        return dflt;
    return x;
}

static void circular_buffer_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(8, 8));
}

static void unary(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 1);
}

static void detection_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(112, 112));
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* Box encodings, class predictions, anchors; the decoding and non-max suppression buffers. */
static void detection_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor boxes, classes;
    int32_t t[3] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1),
                    pl_tflm_temp_input(n, 2)};
    pl_tflm_tensor_of(n, t[0], &boxes);
    pl_tflm_tensor_of(n, t[1], &classes);
    uint32_t nb = boxes.ndims > 1 ? (uint32_t)boxes.dims[1] : 0;
    uint32_t nc = (uint32_t)option(n, "num_classes", 0);
    uint32_t md = (uint32_t)option(n, "max_detections", 0);
    uint32_t scores = classes.ndims > 2 ? (uint32_t)(classes.dims[1] * classes.dims[2]) : 0;
    pl_tflm_scratch(n, nb);
    pl_tflm_scratch(n, nb * 4u * 4u);
    pl_tflm_scratch(n, scores * 4u);
    pl_tflm_scratch(n, nb * 4u);
    pl_tflm_scratch(n, nb * 4u);
    pl_tflm_scratch(n, md * nb * 4u);
    pl_tflm_scratch(n, md * nb * 4u);
    pl_tflm_scratch(n, nb * 4u);
    pl_tflm_scratch(n, md * nb * 4u);
    pl_tflm_scratch(n, (nc > md ? nc : md) * nb * 4u);
    pl_tflm_scratch(n, min_u32(nb, md) * nb * 4u);
    for (int k = 0; k < 3; k++)
        pl_tflm_free_tensor(n, t[k]);
}

/* --- TFLM_DECODE: (encoded, ancillary) input pairs, one output each --- */

enum { DECODE_LUT = 0, DECODE_HUFFMAN = 1, DECODE_PRUNE = 2 };

static uint8_t decode_type(pl_tflm_node *n, int32_t ancillary)
{
    pl_tflm_tensor t;
    pl_tflm_tensor_of(n, ancillary, &t);
    return t.data != NULL ? t.data[0] : 0xFF;
}

/* DecodeStatePrune::Setup copies per-channel zero points (a byte each) when some is not
** zero: into a persistent buffer allocated before it reads them from the output's temp
** tensor. The channels it keeps, or 0. */
static uint32_t prune_zero_points(pl_tflm_node *n, int32_t out)
{
    pl_tensor_view v;
    pl_model_tensor(n->model, &n->sg, (uint32_t)out, &v);
    bool nonzero = false;
    for (uint32_t c = 0; c < v.zero_point.n; c++)
        nonzero |= pl_vec_i64(v.zero_point, c) != 0;
    return v.scale.n > 1 && v.zero_point.n > 0 && nonzero ? v.scale.n : 0;
}

static void decode_state(pl_tflm_node *n, uint8_t type, uint32_t zero_points)
{
    if (type == DECODE_LUT)
        pl_tflm_persistent(n, W(36, 72));
    if (type == DECODE_HUFFMAN)
        pl_tflm_persistent(n, W(28, 56));
    if (type == DECODE_PRUNE) {
        pl_tflm_persistent(n, W(40, 80));
        if (zero_points > 0)
            pl_tflm_persistent(n, zero_points);
    }
}

static void decode_prepare(pl_tflm_node *n)
{
    uint32_t outputs = n->op.outputs.n;
    pl_tflm_persistent(n, outputs * n->p->abi->word);
    for (uint32_t k = 0; k < outputs; k++) {
        int32_t in = pl_tflm_temp_input(n, 2 * k), anc = pl_tflm_temp_input(n, 2 * k + 1);
        uint8_t type = decode_type(n, anc);
        int32_t out_index = pl_tflm_output(n, k);
        uint32_t zero_points =
            type == DECODE_PRUNE && out_index >= 0 ? prune_zero_points(n, out_index) : 0;
        int32_t out = zero_points > 0 ? pl_tflm_temp_tensor_zero_points_read(n, out_index)
                                      : pl_tflm_temp_output(n, k);
        decode_state(n, type, zero_points);
        pl_tflm_free_tensor(n, in);
        pl_tflm_free_tensor(n, anc);
        pl_tflm_free_tensor(n, out);
    }
}

#define NONE {{0, 0}, {0, 0}}

static const pl_tflm_kernel entries[] = {
    {PL_BUILTIN_CUSTOM, "CIRCULAR_BUFFER", NONE, circular_buffer_init, unary},
    {PL_BUILTIN_CUSTOM, "TFLite_Detection_PostProcess", NONE, detection_init, detection_prepare},
    {PL_BUILTIN_CUSTOM, "TFLM_DECODE", NONE, NULL, decode_prepare},
};

const pl_tflm_kernel_set pl_tflm_kernels_custom = {entries, sizeof entries / sizeof entries[0]};
