/* lut8.h - out[i] = table[in[i]] over bytes: the lookup of the 8-bit activations whose output
** byte depends on the input byte alone (lut8.c), with vector byte shuffles where the CPU has
** them. */
#ifndef PL_FAST_LUT8_H
#define PL_FAST_LUT8_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_fast.h"

/* The first byte of a LOGISTIC, TANH or GELU node's block, which lut8.c made (8-bit types:
** a table) or logistic_tanh.c (float: lanes): the invoke tells them apart by it, reading no
** tensor's view. */
enum { PL_LUT8_BLOCK = 1, PL_LANES_BLOCK = 2 };

typedef void (*pl_lut8_fn)(const uint8_t table[256], const uint8_t *in, uint8_t *out,
                           size_t n);

/* The fastest lookup for isa on this CPU (the scalar loop where no vector one applies). */
pl_lut8_fn pl_lut8_for(pl_isa isa);

/* out[i] = table[in[i]] for n bytes by node's set, in spans split over its threads. */
void pl_fast_lut8_table(const pl_node *node, const uint8_t table[256], const void *in,
                        void *out, size_t n);

/* AVX-512 VBMI (VPERMI2B: a 128-byte table per instruction); checked apart from the avx512
** set, which does not require it (pl_fast_x86_has_vbmi). */
void pl_lut8_avx512vbmi(const uint8_t table[256], const uint8_t *in, uint8_t *out, size_t n);
/* NEON TBL/TBX over four 64-byte quarters. */
void pl_lut8_neon(const uint8_t table[256], const uint8_t *in, uint8_t *out, size_t n);

#endif
