/* pl_target.h - the firmware whose bytes and arena a run predicts.
**
** A target is data, not a fork of the runtime: the arithmetic its kernels do where the peers
** differ (pl_arith, which picolite's kernels read from the context) and the allocator whose
** arena figures are reported. The host always runs picolite's own arena; a TFLM target's
** figures are computed from a model of TFLM's allocator (see ARCHITECTURE.md). */
#ifndef PL_TARGET_H
#define PL_TARGET_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pl_target {
    PL_TARGET_PICOLITE = 0,      /* picolite's own runtime on a 32-bit MCU: TFLM's arithmetic */
    PL_TARGET_TFLM,              /* TFLM, reference kernels, 32-bit Cortex-M */
    PL_TARGET_TFLM_X86_64,       /* TFLM, reference kernels, 64-bit host (tflite-micro wheel:
                                 ** its release's arithmetic, PL_ARITH_TFLM_WIDE) */
    PL_TARGET_LITERT,            /* LiteRT's reference kernels (BUILTIN_REF) */
    PL_TARGET_TFLM_CMSIS_NN,     /* TFLM + CMSIS-NN, DSP extension (M4, M7, M33) */
    PL_TARGET_TFLM_CMSIS_NN_MVE, /* TFLM + CMSIS-NN, Helium (M55, M85) */
    PL_TARGET_TFLM_CMSIS_NN_NODSP, /* TFLM + CMSIS-NN, no DSP extension (M0, M0+, M3) */
    PL_TARGET_COUNT
} pl_target;

/* The arithmetic a kernel reproduces where the firmwares' kernels differ. Most operators
** compute the same bytes on every target and never look. */
typedef enum pl_arith {
    PL_ARITH_TFLM = 0,     /* TFLM's reference kernels: integer rescaling everywhere */
    PL_ARITH_LITERT,       /* LiteRT's reference kernels */
    PL_ARITH_CMSIS_NN_DSP, /* CMSIS-NN as built for a core with the DSP extension */
    PL_ARITH_CMSIS_NN_MVE, /* CMSIS-NN with Helium */
    PL_ARITH_CMSIS_NN_NODSP,
    /* TFLM's reference kernels as the tflite-micro wheel (releases from late 2026) builds
    ** them: PL_ARITH_TFLM's, but the multipliers of RELU, LEAKY_RELU, HARD_SWISH, ABS,
    ** RSQRT, SUB, DIV, SVDF, BATCH_MATMUL and per-tensor FULLY_CONNECTED (the integer LSTM's
    ** gates too) come from scales widened to double before their product or quotient.
    ** TFLM 90b983c (August 2026), which the Cortex-M oracle builds, still takes them in
    ** float; the two differ by one at near-ties. */
    PL_ARITH_TFLM_WIDE
} pl_arith;

/* Nonzero when arith takes a multiplier's scale arithmetic in double where LiteRT and
** TFLM 90b983c take it in float (PL_ARITH_TFLM_WIDE). */
static inline int pl_arith_wide(pl_arith arith)
{
    return arith == PL_ARITH_TFLM_WIDE;
}

/* Nonzero when arith is one of TFLM + CMSIS-NN's builds (DSP, Helium, no DSP): the kernels
** TFLM hands to CMSIS-NN compute their own way there (see README, "Where CMSIS-NN's bytes
** differ"). */
static inline int pl_arith_cmsis_nn(pl_arith arith)
{
    return arith == PL_ARITH_CMSIS_NN_DSP || arith == PL_ARITH_CMSIS_NN_MVE ||
           arith == PL_ARITH_CMSIS_NN_NODSP;
}

/* The target's name as the Python API and the CLI spell it ("tflm", "tflm-x86-64",
** "picolite", "litert", "tflm-cmsis-nn", ...); NULL for a value out of range. */
const char *pl_target_name(pl_target target);

/* The target named name (NUL-terminated); -1 when no target has that name. */
int pl_target_from_name(const char *name);

/* Nonzero when picolite reproduces the target's bytes (and, for TFLM targets, its arena):
** the CMSIS-NN targets are named for the API but refused until they are proven against
** their firmware. */
int pl_target_modelled(pl_target target);

/* The arithmetic the kernels do for target. */
pl_arith pl_target_arith(pl_target target);

/* Nonzero when the target's firmware computes float `a * b + c` as one fused multiply-add
** (one rounding): GCC contracts it by default (-ffp-contract=fast) where the FPU has VFMA,
** as TFLM's Cortex-M4F and M55 builds do. Not picolite's own runtime (built with
** -ffp-contract=off), the M3 (soft float), the x86-64 wheel nor LiteRT. A mask, not a
** column of target.c's table: inline, it costs the minimal runtime a few bytes, not 26. */
static inline int pl_target_fused_madd(pl_target target)
{
    const unsigned fused = 1u << PL_TARGET_TFLM | 1u << PL_TARGET_TFLM_CMSIS_NN |
                           1u << PL_TARGET_TFLM_CMSIS_NN_MVE;
    return (unsigned)target < PL_TARGET_COUNT && (fused >> target & 1u);
}

#ifdef __cplusplus
}
#endif

#endif
