/* abi.h - the sizes of TFLM's records on each TFLM target (sizeof and alignof).
**
** Measured from TFLM's headers compiled for each target (revision 90b983c2: arm-none-eabi-gcc
** for Cortex-M4F with TFLM's flags, short enums; the tflite-micro wheel's x86-64 build, which
** defines USE_TFLM_COMPRESSION and is a later revision). Kernel op data sizes live with each
** kernel in kernels.c; these are the allocator's own. */
#ifndef PL_TFLM_ABI_H
#define PL_TFLM_ABI_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_target.h"

/* A record's size and alignment. */
typedef struct pl_tflm_rec {
    uint16_t size;
    uint16_t align;
} pl_tflm_rec;

typedef struct pl_tflm_abi {
    uint8_t word;              /* sizeof(void *) = sizeof(size_t): 4 or 8 */
    bool wheel;                /* the tflite-micro wheel's build (facts of its own revision) */
    pl_tflm_rec tensor;        /* TfLiteTensor (TF_LITE_STATIC_MEMORY) */
    uint16_t tensor_read;      /* its bytes up to is_variable, the last field (no padding) */
    pl_tflm_rec eval_tensor;   /* TfLiteEvalTensor */
    pl_tflm_rec node;          /* NodeAndRegistration */
    pl_tflm_rec quant;         /* TfLiteAffineQuantization */
    pl_tflm_rec scratch_handle;  /* ScratchBufferHandle */
    pl_tflm_rec scratch_request; /* internal::ScratchBufferRequest */
    pl_tflm_rec subgraph;      /* SubgraphAllocations */
    pl_tflm_rec alloc_info;    /* AllocationInfo (the planner's input, in temp) */
    pl_tflm_rec arena;         /* SingleArenaBufferAllocator */
    pl_tflm_rec rec_arena;     /* RecordingSingleArenaBufferAllocator */
    pl_tflm_rec planner;       /* GreedyMemoryPlanner */
    pl_tflm_rec allocator;     /* MicroAllocator */
    pl_tflm_rec rec_allocator; /* RecordingMicroAllocator */
    pl_tflm_rec builtin_alloc; /* MicroBuiltinDataAllocator */
    uint16_t resource_vars;    /* MicroResourceVariables */
    uint16_t resource_var;     /* MicroResourceVariables::MicroResourceVariable */
} pl_tflm_abi;

/* The ABI of a TFLM target, or NULL for a target that is not TFLM. */
const pl_tflm_abi *pl_tflm_abi_of(pl_target target);

/* The greedy planner's scratch per buffer (GreedyMemoryPlanner::per_buffer_size): five int
** arrays' worth, the same at 32 and 64 bits. */
#define PL_TFLM_PLANNER_PER_BUFFER 40u

/* Scratch requests a node may make (kMaxScratchBuffersPerOp): the head keeps room for this
** many more than were made. */
#define PL_TFLM_MAX_SCRATCH_PER_OP 12u

/* MicroArenaBufferAlignment(). */
#define PL_TFLM_ALIGN 16u

#endif
