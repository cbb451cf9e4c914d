/* pl_tflm.h - TFLM's arena for a model, computed: what a TFLM firmware would need.
**
**   pl_tflm_arena_figures f;
**   size_t need;
**   pl_tflm_arena_scratch_size(it, PL_TARGET_TFLM, &need, &err);   // after pl_interp_allocate
**   pl_tflm_arena(it, PL_TARGET_TFLM, 0, scratch, need, &f, &err);
**   // f.min_arena_bytes: AllocateTensors succeeds with that many bytes, fails with one less
**
** The host runs picolite's own arena; a TFLM target's figures come from a model of TFLM's
** allocator (csrc/tflm/): its records at 32 or 64 bits, each reference kernel's op data,
** persistent buffers, scratch requests and temporary allocations during prepare, and its
** greedy plan, replayed for an arena size. The model and the shapes are those picolite's own
** allocate resolved. */
#ifndef PL_TFLM_H
#define PL_TFLM_H

#include <stddef.h>
#include <stdint.h>

#include "pl_interp.h"
#include "pl_status.h"
#include "pl_target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The figures of one TFLM target for one model. "The firmware" is the target's interpreter:
** for PL_TARGET_TFLM a MicroInterpreter on its own arena (resource variables, when the model
** has any, made first as TFLM's examples do); for PL_TARGET_TFLM_X86_64 what the tflite-micro
** wheel builds: a RecordingMicroAllocator, its resource variables, then the interpreter. */
typedef struct pl_tflm_arena_figures {
    pl_target target;
    size_t arena_size;       /* the arena the figures below are for (0 asked: a large one) */
    size_t arena_used_bytes; /* the firmware's arena_used_bytes() after AllocateTensors */
    size_t head;             /* its non-persistent section: planned tensors and scratch */
    size_t tail;             /* its persistent section */
    size_t min_arena_bytes;  /* AllocateTensors succeeds with this arena, fails one byte less */
    size_t min_arena_bytes_16; /* the smallest multiple of 16 that succeeds */
    uint32_t planned_buffers; /* tensors and scratch buffers the greedy planner placed */
    uint32_t scratch_buffers; /* kernels' scratch requests among them */
    /* RecordingMicroAllocator's report for the same model and arena size (the wheel's
    ** print_allocations(); a recording build of the firmware): total, head, tail and TFLM's
    ** categories (cat[PL_CAT_RESOURCE] stays empty: TFLM counts resource variables under
    ** 'Persistent buffer data'); lower_bound is the plan's live-bytes bound, peak the
    ** recording build's own minimum arena. */
    pl_recording recording;
} pl_tflm_arena_figures;

/* Scratch bytes pl_tflm_arena needs for this interpreter and target. it must have been
** allocated (pl_interp_allocate). Errors: PL_ERR_ARG (not a TFLM target), PL_ERR_STATE (not
** allocated), PL_ERR_UNSUPPORTED (an operator whose TFLM footprint is not modelled, named). */
pl_status pl_tflm_arena_scratch_size(const pl_interp *it, pl_target target, size_t *size,
                                     pl_error *err);

/* Computes the target's figures for an arena of arena_size bytes (0: a large arena whose
** size is a multiple of 16, as the figures TFLM prints for a generous static arena). The
** minimum is searched against the allocator model, so it does not depend on arena_size.
** scratch must hold pl_tflm_arena_scratch_size bytes, 8-byte aligned. Errors as above,
** PL_ERR_ARENA with err->required/available when arena_size is too small for TFLM. */
pl_status pl_tflm_arena(const pl_interp *it, pl_target target, size_t arena_size,
                        void *scratch, size_t scratch_size, pl_tflm_arena_figures *out,
                        pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
