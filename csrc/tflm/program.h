/* program.h - TFLM's arena operations for one model, in TFLM's order, as a list of events.
**
** TFLM's allocator does the same head, temp and tail operations whatever the arena's size
** (until one fails), so the model's AllocateTensors is written down once as a program: the
** interpreter's own records, each operator's parse, init and prepare (from the kernel
** table), the plan and the input/output tensors. sim.c replays it for an arena size. */
#ifndef PL_TFLM_PROGRAM_H
#define PL_TFLM_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_interp.h"
#include "tflm/abi.h"

/* Arena operations (SingleArenaBufferAllocator's, as TFLM calls them). */
typedef enum pl_tflm_op {
    PL_TFLM_TAIL,      /* AllocatePersistentBuffer(size, align) */
    PL_TFLM_TEMP,      /* AllocateTemp(size, align) */
    PL_TFLM_FREE,      /* DeallocateTemp, count times */
    PL_TFLM_RESET,     /* ResetTempAllocations; AllocateTensors fails when it does */
    PL_TFLM_NODE_DONE, /* FinishPrepareNodeAllocations: the temp reset and the scratch request
                       ** buffer grown to size; TFLM ignores its failure */
    PL_TFLM_HEAD,      /* ResizeBuffer of the head to size: must succeed */
    PL_TFLM_PLAN       /* the planner's scratch: all that remains, for count buffers */
} pl_tflm_op;

/* A category of RecordingMicroAllocator's report, or none (allocator objects, builtin data,
** subgraph and scratch handle arrays are counted in the totals only). */
#define PL_TFLM_CAT_NONE 0xFF

typedef struct pl_tflm_event {
    uint8_t op;    /* pl_tflm_op */
    uint8_t cat;   /* pl_category or PL_TFLM_CAT_NONE (TAIL) */
    uint8_t align;
    uint8_t flags; /* PL_TFLM_EV_* */
    uint32_t size;
    uint32_t count; /* FREE: deallocations; TAIL: what the recording counts (TFLM counts a
                    ** subgraph's eval tensor array as its tensors); TEMP: the bytes from its
                    ** start that are read back before the temp section is reset */
} pl_tflm_event;

/* TAIL events made only by the wheel's recording allocator or only by a plain one. */
#define PL_TFLM_EV_RECORDING_ONLY 1u
#define PL_TFLM_EV_PLAIN_ONLY 2u


/* The kernels a TFLM target is built with: the reference kernels, or TFLM's cmsis_nn kernels
** over CMSIS-NN compiled for the core's features (its scratch sizes depend on them). */
typedef enum pl_tflm_kernels {
    PL_TFLM_REFERENCE = 0,
    PL_TFLM_CMSIS_NN_DSP,   /* ARM_MATH_DSP: Cortex-M4, M7, M33 */
    PL_TFLM_CMSIS_NN_MVE,   /* ARM_MATH_MVEI: Cortex-M55, M85 */
    PL_TFLM_CMSIS_NN_NODSP  /* neither: Cortex-M0, M0+, M3 */
} pl_tflm_kernels;

/* A kernel's scratch request, as TFLM keeps it until the plan. */
typedef struct pl_tflm_request {
    uint32_t bytes;
    int32_t node;
    int32_t subgraph;
} pl_tflm_request;

/* The program under construction. Counting runs with capacity 0 (events and requests are
** counted, not stored), so the caller can size the arrays first. */
typedef struct pl_tflm_program {
    const pl_interp *it;
    const pl_tflm_abi *abi;
    pl_tflm_kernels kernels;
    pl_tflm_event *events;
    uint32_t event_cap;
    uint32_t event_count;
    pl_tflm_request *requests;
    uint32_t request_cap;
    uint32_t request_count;
    uint32_t resource_vars;  /* MicroResourceVariables capacity (0: none made) */
    uint32_t planned_events; /* index of the PLAN event */
    int32_t subgraph;        /* the node being set up, for scratch requests */
    int32_t node;
    bool refused;            /* a kernel fails on this model whatever the arena (accept.c) */
    char refusal[160];       /* why, in words */
    pl_error *err;
} pl_tflm_program;

/* Writes (or counts) the program of it's model. PL_ERR_UNSUPPORTED naming the operator
** when the kernel table has no entry for one, or when a kernel refuses its tensors' types. */
pl_status pl_tflm_program_build(pl_tflm_program *p);

/* Appends an event (counted past the capacity). */
void pl_tflm_program_emit(pl_tflm_program *p, pl_tflm_op op, uint32_t size, uint32_t align,
                          uint8_t cat, uint32_t count);

/* Sets the flags (PL_TFLM_EV_*) of the last event. */
void pl_tflm_program_flag(pl_tflm_program *p, uint8_t flags);

/* Appends a temp allocation whose first read bytes are read back later (all of it for
** TFLM's own records; a TfLiteTensor's trailing padding, its quantization record's
** quantized_dimension and its zero points are not). */
void pl_tflm_program_temp(pl_tflm_program *p, uint32_t size, uint32_t align, uint32_t read);

/* Appends a scratch request of the node being set up. */
void pl_tflm_program_request(pl_tflm_program *p, uint32_t bytes);

#endif
