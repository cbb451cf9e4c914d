/* kernels_signal.c - TFLM's Signal library operators: their arena footprint.
**
** Their state lives in persistent buffers sized from the custom options (FlexBuffer maps,
** read by key here) and, for the framers and delays, from the input's shape at prepare:
** kiss_fft's real-FFT state, circular buffers of int16 pairs, per-channel work areas. */
#include "tflm/kernels.h"

#include "model/flexbuffer.h"
#include "tflm/ops.h"

static uint32_t option(const pl_tflm_node *n, const char *key)
{
    pl_flex root, v;
    bool found = false;
    int64_t x = 0;
    if (pl_flex_root(n->op.custom_options, &root, NULL) != PL_OK ||
        pl_flex_map_find(&root, key, &v, &found, NULL) != PL_OK || !found ||
        pl_flex_int(&v, &x, NULL) != PL_OK || x < 0 || x > INT32_MAX)
        return 0;
    return (uint32_t)x;
}

static uint32_t word(const pl_tflm_node *n)
{
    return n->p->abi->word;
}

/* The flat size over the innermost dim of the node's input 0, and that dim. */
static void outer_inner(pl_tflm_node *n, uint32_t *outer, uint32_t *inner)
{
    pl_tflm_tensor in;
    pl_tflm_tensor_of(n, pl_tflm_input(n, 0), &in);
    *inner = in.ndims > 0 ? (uint32_t)in.dims[in.ndims - 1] : 1;
    *outer = *inner > 0 ? (uint32_t)(in.elements / *inner) : 0;
}

/* CircularBufferGetNeededMemory: the record and two int16 per element. */
static uint32_t circular_buffer(const pl_tflm_node *n, uint32_t capacity)
{
    return W(24, 40) + 4u * capacity;
}

/* --- FFTs: kiss_fftr_alloc's memory for a real FFT of fft_length (kiss_fft_state holds 64
** factor ints and one complex; kiss_fftr_state three pointers) --- */

#define TYPE_FLOAT32 0
#define TYPE_INT16 7

static uint32_t complex_bytes(uint32_t type)
{
    return type == TYPE_INT16 ? 4u : 8u;
}

static uint32_t kiss_fftr(const pl_tflm_node *n, uint32_t fft_length, uint32_t type)
{
    uint32_t half = fft_length / 2, c = complex_bytes(type);
    uint32_t state = 8u + 4u * 64u + c;
    return 3u * word(n) + state + c * (half - 1u) + c * (half * 3u / 2u);
}

static void rfft_init(pl_tflm_node *n)
{
    uint32_t type = option(n, "T");
    pl_tflm_persistent(n, W(32, 48));
    pl_tflm_persistent(n, kiss_fftr(n, option(n, "fft_length"), type));
}

static void rfft_prepare(pl_tflm_node *n)
{
    uint32_t type = option(n, "T");
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_scratch(n, option(n, "fft_length") * (type == TYPE_INT16 ? 2u : 4u));
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, o);
}

/* The float inverse FFT keeps its length and a pointer to kiss_fft's state before it. */
static void irfft_init(pl_tflm_node *n)
{
    uint32_t type = option(n, "T");
    uint32_t state = type == TYPE_FLOAT32 ? 2u * word(n) : 0u;
    pl_tflm_persistent(n, W(24, 32));
    pl_tflm_persistent(n, state + kiss_fftr(n, option(n, "fft_length"), type));
}

/* --- the filter bank and its stages --- */

static void filter_bank_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(36, 64));
    pl_tflm_persistent(n, (option(n, "num_channels") + 1u) * 8u);
}

/* Each of the six inputs taken and released in turn, then the output. */
static void filter_bank_prepare(pl_tflm_node *n)
{
    for (uint32_t k = 0; k < 6; k++)
        pl_tflm_free_tensor(n, pl_tflm_temp_input(n, k));
    pl_tflm_free_tensor(n, pl_tflm_temp_output(n, 0));
}

static void spectral_subtraction_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(44, 56));
    pl_tflm_persistent(n, option(n, "num_channels") * 4u);
}

/* --- framing, stacking, delays, overlap-add: state per outer dim --- */

static void framer_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(28, 40));
}

static void framer_prepare(pl_tflm_node *n)
{
    uint32_t outer, inner, size = option(n, "frame_size"), step = option(n, "frame_step");
    int32_t t[3] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_output(n, 0),
                    pl_tflm_temp_output(n, 1)};
    outer_inner(n, &outer, &inner);
    pl_tflm_persistent(n, outer * word(n));
    pl_tflm_persistent(n, outer * word(n));
    for (uint32_t k = 0; k < outer && step > 0; k++)
        pl_tflm_persistent(n, circular_buffer(n, (size + step - 1u) / step * step));
    for (int k = 0; k < 3; k++)
        pl_tflm_free_tensor(n, t[k]);
}

static void stacker_init(pl_tflm_node *n)
{
    uint32_t frames = option(n, "stacker_left_context") + option(n, "stacker_right_context") + 1;
    pl_tflm_persistent(n, W(36, 56));
    pl_tflm_persistent(n, circular_buffer(n, option(n, "num_channels") * frames));
}

static void delay_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(20, 32));
}

static void delay_prepare(pl_tflm_node *n)
{
    uint32_t outer, inner;
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    outer_inner(n, &outer, &inner);
    pl_tflm_persistent(n, outer * word(n));
    pl_tflm_persistent(n, outer * word(n));
    for (uint32_t k = 0; k < outer; k++)
        pl_tflm_persistent(n, circular_buffer(n, inner + option(n, "delay_length")));
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, o);
}

static void overlap_add_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(24, 32));
}

/* A frame of state per outer dim (int16 or float frames). */
static void overlap_add_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in;
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, i, &in);
    uint32_t frame = in.ndims > 0 ? (uint32_t)in.dims[in.ndims - 1] : 0;
    uint32_t frames = in.ndims > 1 ? (uint32_t)in.dims[in.ndims - 2] : 0;
    uint32_t outer = frame * frames > 0 ? (uint32_t)(in.elements / (frame * frames)) : 0;
    pl_tflm_persistent(n, outer * word(n));
    for (uint32_t k = 0; k < outer; k++)
        pl_tflm_persistent(n, frame * (option(n, "T") == TYPE_INT16 ? 2u : 4u));
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, o);
}

static void small_params_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 8);
}

static void pcan_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 4);
}

static void unary(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 1);
}

static void binary(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 2, 1);
}

static void one_in_two_out(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 2);
}

/* PCAN releases its output before its second and third inputs: the count is what matters. */
static void pcan_prepare(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 3, 1);
}

#define NONE {{0, 0}, {0, 0}}
#define SIGNAL(name, init, prepare) {PL_BUILTIN_CUSTOM, name, NONE, init, prepare}

static const pl_tflm_kernel entries[] = {
    SIGNAL("SignalWindow", small_params_init, binary),
    SIGNAL("SignalFftAutoScale", NULL, one_in_two_out),
    SIGNAL("SignalRfft", rfft_init, rfft_prepare),
    SIGNAL("SignalIrfft", irfft_init, unary),
    SIGNAL("SignalEnergy", small_params_init, unary),
    SIGNAL("SignalFilterBank", filter_bank_init, filter_bank_prepare),
    SIGNAL("SignalFilterBankSquareRoot", NULL, binary),
    SIGNAL("SignalFilterBankSpectralSubtraction", spectral_subtraction_init, one_in_two_out),
    SIGNAL("SignalPCAN", pcan_init, pcan_prepare),
    SIGNAL("SignalFilterBankLog", small_params_init, unary),
    SIGNAL("SignalFramer", framer_init, framer_prepare),
    SIGNAL("SignalStacker", stacker_init, one_in_two_out),
    SIGNAL("SignalDelay", delay_init, delay_prepare),
    SIGNAL("SignalOverlapAdd", overlap_add_init, overlap_add_prepare),
};

const pl_tflm_kernel_set pl_tflm_kernels_signal = {entries, sizeof entries / sizeof entries[0]};
