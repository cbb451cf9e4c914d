/* arena.c - one caller buffer split into HEAD, TEMP and TAIL; the record lives in its tail.
**
** All positions are byte offsets from the aligned base. Because the usable size is a
** multiple of 16 and every alignment is at most 16, the bytes a tail allocation takes from
** the end never depend on the usable size. That is what makes pl_arena_peak() exact: the
** largest (temp end + tail bytes) seen, rounded up to 16, is the smallest usable size with
** which the same calls succeed, and 16 bytes less fails at the call that reached the peak. */
#include "memory/arena.h"

#include <string.h>

#include "picolite/pl_status.h"
#include "picolite/pl_types.h"

/* 32 bytes on every target (the base in a slot, positions in 32 bits): a 32-bit
** microcontroller's arena needs what the host computes. */
struct pl_arena {
    PL_SLOT(uint8_t *, base); /* aligned start: HEAD offset 0 */
    uint32_t capacity;  /* usable bytes, a multiple of 16 */
    uint32_t head;      /* end of HEAD */
    uint32_t temp;      /* end of TEMP (>= head) */
    uint32_t tail;      /* start of TAIL (<= capacity) */
    uint32_t temp_high; /* largest temp - head */
    uint32_t peak;      /* largest temp + (capacity - tail), unrounded */
};
_Static_assert(sizeof(pl_arena) == 32, "the arena record's layout is the same on 32 and 64 bits");

/* The largest usable size: positions fit the record's 32-bit fields. */
#define PL_ARENA_MAX ((size_t)0xFFFFFFF0u)

static size_t align_up(size_t v, size_t align)
{
    return (v + align - 1) & ~(align - 1);
}

/* a + b, saturating: only ever used to report a requirement that cannot be met. */
static size_t add_sat(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* v rounded up to align, saturating, for requirements that can never be met. */
static size_t align_up_sat(size_t v, size_t align)
{
    return v > SIZE_MAX - (align - 1) ? SIZE_MAX : align_up(v, align);
}

/* The usable size that holds `end` bytes of head+temp and `tail_bytes` of tail. */
static size_t usable_for(size_t end, size_t tail_bytes)
{
    return align_up_sat(add_sat(end, tail_bytes), PL_ARENA_ALIGN);
}

static int align_ok(size_t align)
{
    return align != 0 && align <= PL_ARENA_ALIGN && (align & (align - 1)) == 0;
}

static void note_peak(pl_arena *a)
{
    uint32_t used = a->temp + (a->capacity - a->tail);
    if (used > a->peak)
        a->peak = used;
    if (a->temp - a->head > a->temp_high)
        a->temp_high = a->temp - a->head;
}

static pl_status too_small(pl_error *err, const char *what, size_t size, size_t required,
                           size_t capacity)
{
    pl_status s = pl_error_set(err, PL_ERR_ARENA,
                               "arena too small: %s of %zu bytes needs %zu bytes, arena has %zu",
                               what, size, required, capacity);
    if (err != NULL) {
        err->required = required;
        err->available = capacity;
    }
    return s;
}

pl_status pl_arena_create(void *buf, size_t size, pl_arena **out, pl_error *err)
{
    if (buf == NULL || out == NULL)
        return pl_error_set(err, PL_ERR_ARG, "arena: NULL %s", buf == NULL ? "buffer" : "out");
    size_t pad = (size_t)(-(uintptr_t)buf & (PL_ARENA_ALIGN - 1));
    size_t capacity = size > pad ? (size - pad) & ~(size_t)(PL_ARENA_ALIGN - 1) : 0;
    if (capacity > PL_ARENA_MAX)
        capacity = PL_ARENA_MAX;
    size_t record = align_up(sizeof(pl_arena), PL_ARENA_ALIGN);
    if (record > capacity)
        return too_small(err, "the arena record", sizeof(pl_arena), record, capacity);
    pl_arena tmp = {0};
    tmp.base = (uint8_t *)buf + pad;
    tmp.capacity = (uint32_t)capacity;
    tmp.tail = (uint32_t)(capacity - record);
    note_peak(&tmp);
    pl_arena *a = (pl_arena *)(void *)(tmp.base + tmp.tail);
    *a = tmp;
    *out = a;
    return PL_OK;
}

pl_status pl_arena_alloc_tail(pl_arena *a, size_t size, size_t align, void **out,
                              pl_error *err)
{
    if (!align_ok(align))
        return pl_error_set(err, PL_ERR_ARG, "arena: alignment %zu is not a power of two <= 16",
                            align);
    /* Tail bytes after this allocation: aligning down from a 16-aligned end is aligning
    ** the byte count up. Compared with the room above temp, not only above head. */
    size_t after = align_up_sat(add_sat(a->capacity - a->tail, size), align);
    if (after > a->capacity - a->temp)
        return too_small(err, "tail allocation", size, usable_for(a->temp, after), a->capacity);
    /* zeroed with its alignment gap: the seal hashes the whole tail (integrity.c), which
    ** must hold no byte the arena held before the interpreter */
    size_t start = a->capacity - after;
    memset(a->base + start, 0, a->tail - start);
    a->tail = (uint32_t)start;
    note_peak(a);
    *out = a->base + a->tail;
    return PL_OK;
}

pl_status pl_arena_alloc_temp(pl_arena *a, size_t size, size_t align, void **out,
                              pl_error *err)
{
    if (!align_ok(align))
        return pl_error_set(err, PL_ERR_ARG, "arena: alignment %zu is not a power of two <= 16",
                            align);
    size_t start = align_up(a->temp, align);
    size_t tail_bytes = a->capacity - a->tail;
    if (start > a->tail || size > a->tail - start)
        return too_small(err, "temp allocation", size, usable_for(add_sat(start, size),
                         tail_bytes), a->capacity);
    a->temp = (uint32_t)(start + size);
    note_peak(a);
    *out = a->base + start;
    return PL_OK;
}

void pl_arena_reset_temp(pl_arena *a)
{
    a->temp = a->head;
}

pl_status pl_arena_resize_head(pl_arena *a, size_t size, pl_error *err)
{
    if (a->temp != a->head)
        return pl_error_set(err, PL_ERR_STATE,
                            "arena: head resized while %zu bytes of temp are live",
                            a->temp - a->head);
    size_t tail_bytes = a->capacity - a->tail;
    if (size > a->tail || align_up(size, PL_ARENA_ALIGN) > a->tail)
        return too_small(err, "head", size, usable_for(size, tail_bytes), a->capacity);
    a->head = (uint32_t)align_up(size, PL_ARENA_ALIGN);
    a->temp = a->head;
    note_peak(a);
    return PL_OK;
}

uint8_t *pl_arena_base(const pl_arena *a)
{
    return a->base;
}

size_t pl_arena_capacity(const pl_arena *a)
{
    return a->capacity;
}

size_t pl_arena_head_size(const pl_arena *a)
{
    return a->head;
}

size_t pl_arena_temp_size(const pl_arena *a)
{
    return a->temp - a->head;
}

size_t pl_arena_tail_size(const pl_arena *a)
{
    return a->capacity - a->tail;
}

size_t pl_arena_free_size(const pl_arena *a)
{
    return a->tail - a->temp;
}

size_t pl_arena_temp_high_water(const pl_arena *a)
{
    return a->temp_high;
}

size_t pl_arena_peak(const pl_arena *a)
{
    return align_up(a->peak, PL_ARENA_ALIGN);
}

uint32_t pl_arena_offset(const pl_arena *a, const void *p)
{
    return (uint32_t)((const uint8_t *)p - a->base);
}
