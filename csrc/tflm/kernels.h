/* kernels.h - each TFLM kernel's arena footprint: builtin data, init, prepare.
**
** An entry says what TFLM's parse function allocates for the operator's builtin data and
** what its kernel's Init and Prepare do to the arena: op data and persistent buffers (tail),
** TfLiteTensor structs and temp buffers during prepare (temp), scratch requests (planned in
** the head). Entries are per kernel set: the reference kernels' table is the default, and a
** kernel set (CMSIS-NN) overrides the entries that differ. Sizes that differ between the
** targets' ABIs are written W(m4, wheel). */
#ifndef PL_TFLM_KERNELS_H
#define PL_TFLM_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "tflm/program.h"

/* The node whose footprint a kernel writes, and what it may read of the model. */
typedef struct pl_tflm_node {
    pl_tflm_program *p;
    const pl_model *model;
    pl_subgraph sg;
    uint32_t subgraph;
    uint32_t index;
    pl_op_view op;
    int32_t builtin;
    pl_bytes custom; /* a custom operator's code */
    int32_t version;
} pl_tflm_node;

/* A tensor as TFLM's prepare sees it (shapes: those picolite's allocate resolved). */
typedef struct pl_tflm_tensor {
    int32_t index;        /* -1: absent */
    pl_type type;
    int32_t ndims;
    int32_t dims[PL_MAX_DIMS];
    uint64_t elements;
    uint64_t bytes;
    uint32_t channels;    /* quantization parameters TFLM copies (0: not quantized) */
    float scale;          /* TfLiteTensor.params: the first scale and zero point (or 0) */
    int32_t zero_point;
    const uint8_t *data;  /* a constant's bytes (the model's buffer), else NULL */
    bool variable;
    bool unknown_dim;     /* the model's shape has a -1 (TFLM's dims are the model's) */
} pl_tflm_tensor;

typedef void (*pl_tflm_kernel_fn)(pl_tflm_node *n);

typedef struct pl_tflm_kernel {
    int32_t builtin;        /* BuiltinOperator, or 32 (CUSTOM) with custom set */
    const char *custom;     /* the custom code TFLM registers the kernel under */
    pl_tflm_rec params[2];  /* builtin data TFLM's parser allocates: [0] 32-bit, [1] wheel */
    pl_tflm_kernel_fn init;     /* NULL: no init */
    pl_tflm_kernel_fn prepare;  /* NULL: no prepare */
} pl_tflm_kernel;

/* The builtin data TFLM's parser allocates for an operator ({32-bit, wheel} records): a fact
** of the operator, not of the kernel set, so the reference and CMSIS-NN tables share them. */
#define PL_TFLM_PARAMS_FULLY_CONNECTED {{5, 1}, {32, 8}}
#define PL_TFLM_PARAMS_CONV {{28, 4}, {28, 4}} /* CONV_2D and DEPTHWISE_CONV_2D */
#define PL_TFLM_PARAMS_TRANSPOSE_CONV {{16, 4}, {20, 4}}
#define PL_TFLM_PARAMS_BATCH_MATMUL {{3, 1}, {3, 1}}
#define PL_TFLM_PARAMS_POOL {{40, 4}, {40, 4}}
#define PL_TFLM_PARAMS_SOFTMAX {{4, 4}, {4, 4}}
#define PL_TFLM_PARAMS_SVDF {{8, 4}, {12, 4}}
#define PL_TFLM_PARAMS_LSTM {{16, 4}, {16, 4}}

/* A size that differs between the 32-bit firmware and the wheel's 64-bit build. */
#define W(m4, wheel) (pl_tflm_wheel(n) ? (uint32_t)(wheel) : (uint32_t)(m4))

static inline bool pl_tflm_wheel(const pl_tflm_node *n)
{
    return n->p->abi->wheel;
}

/* The kernel for a builtin code or custom name in the program's kernel set: a CMSIS-NN
** build's own kernel where TFLM has one, else the reference kernel (NULL when none). */
const pl_tflm_kernel *pl_tflm_kernel_find(const pl_tflm_program *p, int32_t builtin,
                                          pl_bytes custom);

/* Nonzero when the node's firmware runs TFLM's cmsis_nn kernels. */
static inline bool pl_tflm_cmsis_nn(const pl_tflm_node *n)
{
    return n->p->kernels != PL_TFLM_REFERENCE;
}

/* Tensor index of the node's input k or output k (-1: absent). */
int32_t pl_tflm_input(const pl_tflm_node *n, uint32_t k);
int32_t pl_tflm_output(const pl_tflm_node *n, uint32_t k);

/* The tensor at index of the node's subgraph (index -1: an absent one, index -1 in out). */
void pl_tflm_tensor_of(const pl_tflm_node *n, int32_t index, pl_tflm_tensor *out);

/* --- what a kernel does to the arena --- */

/* AllocateTempTfLiteTensor: the struct, and its quantization record and zero points when the
** tensor is quantized; nothing for index -1. Returns index. */
int32_t pl_tflm_temp_tensor(pl_tflm_node *n, int32_t index);

/* The same for a tensor whose zero points the kernel reads after a later tail allocation (a
** tail buffer over them then corrupts what the kernel copies). */
int32_t pl_tflm_temp_tensor_zero_points_read(pl_tflm_node *n, int32_t index);

/* AllocateTempInputTensor(k) / AllocateTempOutputTensor(k). */
int32_t pl_tflm_temp_input(pl_tflm_node *n, uint32_t k);
int32_t pl_tflm_temp_output(pl_tflm_node *n, uint32_t k);

/* DeallocateTempTfLiteTensor (nothing for index -1). */
void pl_tflm_free_tensor(pl_tflm_node *n, int32_t index);

/* context->AllocatePersistentBuffer (16-aligned, 'Persistent buffer data'). */
void pl_tflm_persistent(pl_tflm_node *n, uint32_t bytes);

/* context->RequestScratchBufferInArena. */
void pl_tflm_scratch(pl_tflm_node *n, uint32_t bytes);

/* CreateWritableTensorDimsWithCopy for tensor index: its dims moved to a persistent array. */
void pl_tflm_dims_copy(pl_tflm_node *n, int32_t index);

/* The common prepare: temp tensors for inputs 0..ins-1 then outputs 0..outs-1, all freed. */
void pl_tflm_temps_io(pl_tflm_node *n, uint32_t ins, uint32_t outs);

/* --- prepares the reference and CMSIS-NN kernel sets share --- */

void pl_tflm_svdf_prepare(pl_tflm_node *n);
void pl_tflm_lstm_prepare(pl_tflm_node *n);

/* TRANSPOSE_CONV: output, input, filter; per-channel arrays whatever the type; the int8
** kernel's buffer (CMSIS-NN's two) or the int16 accumulators; then CalculateOpData. */
void pl_tflm_transpose_conv_prepare(pl_tflm_node *n);

/* CMSIS-NN's int8 transpose convolution buffers (kernels_cmsis_nn.c). */
void pl_tflm_cmsis_nn_transpose_conv_scratch(pl_tflm_node *n, const pl_tflm_tensor *in,
                                             const pl_tflm_tensor *filter,
                                             const pl_tflm_tensor *out);

/* TRANSPOSE_CONV's CalculateOpData for a quantized input: input, filter, bias, output; an
** int16 bias widened to int64 in scratch. */
void pl_tflm_transpose_conv_op_data(pl_tflm_node *n, pl_type type);

/* --- what TFLM's kernels run (accept.c) --- */

/* Refuses the node when TFLM's kernel rejects or has no code for its tensors' types: the
** model then fails on the target whatever the arena (pl_tflm_program_build says so). */
void pl_tflm_accept(pl_tflm_node *n);

/* Records why the node's kernel fails (the first refusal is kept). */
void pl_tflm_refuse(pl_tflm_node *n, const char *fmt, ...);

/* --- the kernel families' tables (kernels_*.c) --- */

typedef struct pl_tflm_kernel_set {
    const pl_tflm_kernel *entries;
    uint32_t count;
} pl_tflm_kernel_set;

extern const pl_tflm_kernel_set pl_tflm_kernels_math;     /* elementwise, activations */
extern const pl_tflm_kernel_set pl_tflm_kernels_nn;       /* conv, fc, pooling, softmax */
extern const pl_tflm_kernel_set pl_tflm_kernels_shape;    /* reshapes, slices, gathers */
extern const pl_tflm_kernel_set pl_tflm_kernels_state;    /* recurrent, variables, control */
extern const pl_tflm_kernel_set pl_tflm_kernels_custom;   /* CIRCULAR_BUFFER, detection, decode */
extern const pl_tflm_kernel_set pl_tflm_kernels_signal;   /* the Signal library */
extern const pl_tflm_kernel_set pl_tflm_kernels_cmsis_nn; /* TFLM's cmsis_nn folder */

#endif
