/* abi.c - TFLM's record sizes per target (see abi.h for where they were measured). */
#include "tflm/abi.h"

#include <stddef.h>

/* Cortex-M4F, arm-none-eabi-gcc 12 (short enums: TfLiteType is one byte). */
static const pl_tflm_abi m4 = {
    .word = 4,
    .wheel = false,
    .tensor = {32, 4},
    .tensor_read = 31,
    .eval_tensor = {12, 4},
    .node = {32, 4},
    .quant = {12, 4},
    .scratch_handle = {4, 4},
    .scratch_request = {12, 4},
    .subgraph = {8, 4},
    .alloc_info = {24, 4},
    .arena = {36, 4},
    .rec_arena = {52, 4},
    .planner = {44, 4},
    .allocator = {36, 4},
    .rec_allocator = {124, 4},
    .builtin_alloc = {8, 4},
    .resource_vars = 12,
    .resource_var = 20,
};

/* x86-64, the tflite-micro wheel (USE_TFLM_COMPRESSION: SubgraphAllocations carries the
** compressed tensor list, RecordingMicroAllocator its compression record). */
static const pl_tflm_abi wheel = {
    .word = 8,
    .wheel = true,
    .tensor = {64, 8},
    .tensor_read = 57,
    .eval_tensor = {24, 8},
    .node = {64, 8},
    .quant = {24, 8},
    .scratch_handle = {8, 8},
    .scratch_request = {16, 8},
    .subgraph = {24, 8},
    .alloc_info = {32, 8},
    .arena = {72, 8},
    .rec_arena = {104, 8},
    .planner = {72, 8},
    .allocator = {72, 8},
    .rec_allocator = {272, 8},
    .builtin_alloc = {16, 8},
    .resource_vars = 16,
    .resource_var = 40,
};

const pl_tflm_abi *pl_tflm_abi_of(pl_target target)
{
    switch (target) {
    case PL_TARGET_TFLM:
    case PL_TARGET_TFLM_CMSIS_NN:
    case PL_TARGET_TFLM_CMSIS_NN_MVE:
    case PL_TARGET_TFLM_CMSIS_NN_NODSP: return &m4; /* the records are the same on every core */
    case PL_TARGET_TFLM_X86_64: return &wheel;
    default: return NULL;
    }
}
