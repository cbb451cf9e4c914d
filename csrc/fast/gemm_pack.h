/* gemm_pack.h - the integer matrix products' weight panels (gemm.h, gemm16.h), one loop for
** every instruction set's layout. A panel holds nr channels; per group of `group` k, per run
** of `run` k in it, each channel's w[k..k+run) (0 past n or k): int16 for the multiplies that
** take int16 pairs or lanes (PMADDWD, VPDPWSSD, SMLAL), bytes for the byte dot products
** (VPDPBUSD, SDOT). Packing runs once at prepare, so the layout is data, not code. */
#ifndef PL_FAST_GEMM_PACK_H
#define PL_FAST_GEMM_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pl_gemm_layout {
    int32_t nr, group, run;
    bool wide; /* int16 entries, else int8 */
} pl_gemm_layout;

/* The panel of channels n0.. of w (n rows of k, kp a multiple of group) into p; returns
** the entries written. */
static inline size_t pl_gemm_pack_panel(const pl_gemm_layout *l, const int8_t *w, int32_t n,
                                        int32_t k, int32_t kp, int32_t n0, void *p)
{
    size_t e = 0;
    for (int32_t k0 = 0; k0 < kp; k0 += l->group)
        for (int32_t r0 = 0; r0 < l->group; r0 += l->run)
            for (int32_t j = 0; j < l->nr; j++)
                for (int32_t q = 0; q < l->run; q++, e++) {
                    int32_t c = n0 + j, i = k0 + r0 + q;
                    int8_t v = c < n && i < k ? w[(size_t)c * (size_t)k + (size_t)i] : 0;
                    if (l->wide)
                        ((int16_t *)p)[e] = v;
                    else
                        ((int8_t *)p)[e] = v;
                }
    return e;
}

static inline size_t pl_gemm_packed_bytes(const pl_gemm_layout *l, int32_t n, int32_t kp)
{
    size_t panels = (size_t)((n + l->nr - 1) / l->nr);
    return panels * (size_t)l->nr * (size_t)kp * (l->wide ? sizeof(int16_t) : 1);
}

/* Every panel, one after the other. */
static inline void pl_gemm_pack(const pl_gemm_layout *l, const int8_t *w, int32_t n, int32_t k,
                                int32_t kp, void *packed)
{
    char *p = packed;
    for (int32_t n0 = 0; n0 < n; n0 += l->nr)
        p += pl_gemm_pack_panel(l, w, n, k, kp, n0, p) * (l->wide ? sizeof(int16_t) : 1);
}

/* A table's packed_bytes and pack for one layout. */
#define PL_GEMM_PACKING(NR_, GROUP, RUN, WIDE)                                             \
    static const pl_gemm_layout layout = {NR_, GROUP, RUN, WIDE};                          \
    static size_t packed_bytes(int32_t n, int32_t kp)                                      \
    {                                                                                      \
        return pl_gemm_packed_bytes(&layout, n, kp);                                       \
    }                                                                                      \
    static void pack(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed)      \
    {                                                                                      \
        pl_gemm_pack(&layout, w, n, k, kp, packed);                                        \
    }

#endif
