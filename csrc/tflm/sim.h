/* sim.h - TFLM's single-arena allocator, replayed: a program's events for one arena size.
**
** Positions are byte offsets from the arena's 16-aligned start, so TFLM's pointer alignment
** (tail allocations align down from the arena's end) is reproduced exactly; its checks are
** TFLM's, including the one it ignores (a failed resize after a node's prepare); where TFLM
** would let a buffer overlap temp memory still in use, the run fails (see sim.c). */
#ifndef PL_TFLM_SIM_H
#define PL_TFLM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_interp.h"
#include "tflm/program.h"

typedef struct pl_tflm_sim {
    bool ok;
    uint32_t failed_event; /* the event that failed, when !ok */
    int64_t head;          /* non-persistent used bytes (TFLM's max(head, temp) at the end) */
    int64_t tail;          /* persistent used bytes */
    int64_t temp_peak;     /* the highest temp position seen */
    pl_recording rec;      /* what RecordingMicroAllocator reports (recording runs) */
} pl_tflm_sim;

/* Replays events[0..count) for an arena of size bytes: recording chooses the recording
** allocator's objects (the wheel, a recording firmware) over the plain ones. */
void pl_tflm_sim_run(const pl_tflm_event *events, uint32_t count, bool recording,
                     uint64_t size, pl_tflm_sim *out);

#endif
