/* sim.c - TFLM's SingleArenaBufferAllocator and RecordingSingleArenaBufferAllocator, replayed.
**
** head, temp and tail are offsets from the arena's start (buffer_head_; buffer_tail_ is the
** arena's size). TFLM checks a tail allocation against head alone, and its size_t checks let
** a temp allocation or the planner's scratch pass once temp is above tail: a buffer then
** overlaps live temp memory, and the kernel or the planner writing it corrupts what the
** allocation was made for (the wheel crashes, a firmware computes garbage). A run where a
** buffer overlaps temp memory that is read back (a TfLiteTensor's fields, its quantization
** record's pointers, the planner's input) is a failure here; overlapping what nothing reads
** again (a temp tensor's zero points, its record's quantized_dimension, padding) is not. */
#include "tflm/sim.h"

#include <string.h>

typedef struct state {
    int64_t size;
    int64_t head, temp, tail;
    int64_t temps;    /* temp buffers not yet deallocated */
    int64_t read_top; /* the end of the temp memory read back before the next reset */
    bool recording;
    pl_tflm_sim *out;
    uint64_t used;     /* RecordingSingleArenaBufferAllocator::used_bytes_ */
} state;

static int64_t align_down(int64_t x, int64_t a)
{
    int64_t q = x / a;
    if (x % a != 0 && x < 0)
        q--;
    return q * a;
}

static int64_t align_up(int64_t x, int64_t a)
{
    return -align_down(-x, a);
}

static bool tail_alloc(state *s, const pl_tflm_event *e)
{
    int64_t r = align_down(s->tail - e->size, e->align == 0 ? 1 : e->align);
    if (r < s->head || r < s->read_top)
        return false;
    uint64_t used = (uint64_t)(s->tail - r);
    s->used += used;
    s->tail = r;
    if (e->cat < PL_CAT_COUNT) {
        pl_recording_entry *c = &s->out->rec.cat[e->cat];
        c->used += used;
        c->requested += e->size;
        c->count += e->count;
    }
    return true;
}

static bool temp_alloc(state *s, int64_t size, int64_t align, int64_t read)
{
    int64_t r = align_up(s->temp, align == 0 ? 1 : align);
    if (s->tail - r < size)
        return false;
    s->temp = r + size;
    if (read > 0 && r + read > s->read_top)
        s->read_top = r + read;
    s->temps++;
    if (s->temp > s->out->temp_peak)
        s->out->temp_peak = s->temp;
    return true;
}

/* ResizeBuffer of the buffer at the arena's start: only with no temp allocation above it. */
static bool resize(state *s, int64_t size)
{
    if (s->head != s->temp || s->tail < size)
        return false;
    s->used += (uint64_t)(size - s->head);
    s->head = s->temp = s->read_top = size;
    return true;
}

static void reset_temp(state *s)
{
    s->temp = s->read_top = s->head;
}

/* GreedyMemoryPlanner::Init on all that remains, then AddBuffer for every planned buffer:
** it fails once the buffers outnumber what the scratch holds. */
static bool plan(state *s, uint32_t buffers)
{
    int64_t at = align_up(s->temp, PL_TFLM_ALIGN);
    int64_t remaining = align_down(s->tail, PL_TFLM_ALIGN) - at;
    if (remaining < 0)
        return false;
    s->temp = s->read_top = at + remaining;
    s->temps++;
    if (s->temp > s->out->temp_peak)
        s->out->temp_peak = s->temp;
    return (uint64_t)buffers <= (uint64_t)remaining / PL_TFLM_PLANNER_PER_BUFFER;
}

static bool step(state *s, const pl_tflm_event *e)
{
    switch ((pl_tflm_op)e->op) {
    case PL_TFLM_TAIL:
        if ((e->flags & PL_TFLM_EV_RECORDING_ONLY) && !s->recording)
            return true;
        if ((e->flags & PL_TFLM_EV_PLAIN_ONLY) && s->recording)
            return true;
        return tail_alloc(s, e);
    case PL_TFLM_TEMP: return temp_alloc(s, e->size, e->align, e->count);
    case PL_TFLM_FREE: s->temps -= e->count; return true;
    case PL_TFLM_RESET:
        if (s->temps != 0)
            return false;
        reset_temp(s);
        return true;
    case PL_TFLM_NODE_DONE:
        if (s->temps != 0) /* the reset fails: TFLM returns before the resize, unchecked */
            return true;
        reset_temp(s);
        resize(s, e->size); /* a failure leaves the head as it was, unchecked */
        return true;
    case PL_TFLM_HEAD: return resize(s, e->size);
    case PL_TFLM_PLAN: return plan(s, e->count);
    }
    return false;
}

void pl_tflm_sim_run(const pl_tflm_event *events, uint32_t count, bool recording,
                     uint64_t size, pl_tflm_sim *out)
{
    state s = {(int64_t)size, 0, 0, (int64_t)size, 0, 0, recording, out, 0};
    memset(out, 0, sizeof *out);
    out->ok = true;
    for (uint32_t i = 0; i < count; i++) {
        if (!step(&s, &events[i])) {
            out->ok = false;
            out->failed_event = i;
            break;
        }
    }
    out->head = s.temp > s.head ? s.temp : s.head;
    out->tail = s.size - s.tail;
    out->rec.head = (size_t)out->head;
    out->rec.tail = (size_t)out->tail;
    out->rec.total = (size_t)s.used;
}
