/* gelu.c - float GELU's fast path: gelu_body.h's vector copies of glibc's erfcf (exact form)
** and tanhf (tanh form), each taken only where it gives the host libm's bits. The portable
** elements call the platform's erfcf and tanhf, so their bits are that libm's: the copies
** follow glibc 2.36's (both forms checked against it on all 2^32 inputs); a libm that
** differs on any of a few thousand probes (another C library or version, a correctly
** rounded erfcf) leaves that form's nodes to the portable kernel. */
#include <stdatomic.h>
#include <string.h>

#include "fast/exp.h"
#include "fast/fast.h"
#include "kernels/activation/gelu_fast.h"

enum { PROBES = 4096 };

/* A reproducible spread of GELU inputs: most over [-12, 12] (every interval of erfc's copy
** and its boundaries), some to +-45 (its saturated ends), some of any bits but NaN. */
static float probe(uint32_t i, uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    uint32_t r = *state >> 8; /* 24 random bits */
    if (i % 4 == 3) {
        uint32_t bits = *state ^ (r << 9);
        float x;
        memcpy(&x, &bits, sizeof x);
        return x == x ? x : 1.0f;
    }
    float span = i % 4 == 2 ? 45.0f : 12.0f;
    return ((float)r / 16777216.0f * 2.0f - 1.0f) * span;
}

/* Whether gelu gives the portable element's bits on every probe. */
static bool agrees_with_libm(pl_fast_lanes_fn *gelu, bool approximate)
{
    enum { BLOCK = 256 };
    uint32_t state = 12345u;
    for (uint32_t at = 0; at < PROBES; at += BLOCK) {
        float in[BLOCK], out[BLOCK];
        for (uint32_t i = 0; i < BLOCK; i++)
            in[i] = probe(at + i, &state);
        gelu(in, out, BLOCK);
        for (uint32_t i = 0; i < BLOCK; i++) {
            float want = approximate ? pl_gelu_approx_f32(in[i]) : pl_gelu_f32(in[i]);
            if (memcmp(&want, &out[i], sizeof want) != 0)
                return false;
        }
    }
    return true;
}

/* The probes' verdict on each instruction set's copy of each form: 0 not asked yet, 1
** agrees, -1 not. Two threads asking at once both compute the same answer. */
static atomic_int verdicts[PL_ISA_COUNT][2];

pl_fast_lanes_fn *pl_fast_gelu_for(pl_isa isa, bool approximate)
{
    const pl_exp_kernels *k = pl_exp_for(isa);
    pl_fast_lanes_fn *gelu = k == NULL ? NULL : approximate ? k->gelu_tanh : k->gelu;
    if (gelu == NULL)
        return NULL;
    atomic_int *verdict = &verdicts[isa][approximate];
    int v = atomic_load_explicit(verdict, memory_order_relaxed);
    if (v == 0) {
        v = agrees_with_libm(gelu, approximate) ? 1 : -1;
        atomic_store_explicit(verdict, v, memory_order_relaxed);
    }
    return v > 0 ? gelu : NULL;
}
