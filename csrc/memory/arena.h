/* arena.h - one caller buffer split into HEAD (planned), TEMP (scoped) and TAIL (persistent).
**
**  buffer_head                                                      buffer_tail
**  | HEAD (planned, shared) | TEMP (scoped) ->  free  <- | TAIL (persistent) |
**                           ^head            ^temp       ^tail
**
** The buffer's start is aligned up to 16 and its end down to 16, so every layout depends
** only on the usable size, never on where the caller's buffer happens to sit. Tail
** allocations are aligned down from the end, temp allocations up from head. Checks compare
** byte counts, never out-of-range pointers: a tail allocation may not cross temp (TFLM
** checks only head), temp may not cross tail. The pl_arena record itself is the first tail
** allocation: the arena bootstraps inside the buffer it manages. */
#ifndef PL_MEMORY_ARENA_H
#define PL_MEMORY_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_status.h"

#define PL_ARENA_ALIGN 16

typedef struct pl_arena pl_arena;

/* Places the arena record in buf's tail. PL_ERR_ARENA (err->required/available) when buf
** cannot hold it, PL_ERR_ARG for NULL. */
pl_status pl_arena_create(void *buf, size_t size, pl_arena **out, pl_error *err);

/* Persistent bytes from the tail, aligned to align (a power of two <= 16), zeroed with the
** alignment gap above them (the whole tail holds only bytes the interpreter wrote).
** PL_ERR_ARENA with err->required = the arena size that would have fit this request. */
pl_status pl_arena_alloc_tail(pl_arena *a, size_t size, size_t align, void **out,
                              pl_error *err);

/* Scoped bytes from temp (above head), aligned to align; valid until pl_arena_reset_temp. */
pl_status pl_arena_alloc_temp(pl_arena *a, size_t size, size_t align, void **out,
                              pl_error *err);

/* Releases every temp allocation (temp = head). */
void pl_arena_reset_temp(pl_arena *a);

/* Sets the head section to size bytes (rounded up to 16); PL_ERR_STATE while temp
** allocations are live, PL_ERR_ARENA when head + size would cross the tail. */
pl_status pl_arena_resize_head(pl_arena *a, size_t size, pl_error *err);

/* The aligned start (HEAD offset 0) and the usable size. */
uint8_t *pl_arena_base(const pl_arena *a);
size_t pl_arena_capacity(const pl_arena *a);

size_t pl_arena_head_size(const pl_arena *a);
size_t pl_arena_temp_size(const pl_arena *a);  /* live temp bytes */
size_t pl_arena_tail_size(const pl_arena *a);  /* includes the pl_arena record */
size_t pl_arena_free_size(const pl_arena *a);  /* between temp and tail */

/* High-water marks since create: temp section size, and head+temp+tail (the smallest
** usable size with which this exact sequence of calls would have succeeded). */
size_t pl_arena_temp_high_water(const pl_arena *a);
size_t pl_arena_peak(const pl_arena *a);

/* Offset of p from the base (p must point into the arena). */
uint32_t pl_arena_offset(const pl_arena *a, const void *p);

#endif
