/* fft.h - the real FFT and inverse real FFT of TFLM's Signal library (kiss_fft v130's
** mixed-radix algorithm) in int16 (Q15), int32 (Q31) and float, bit-exact with TFLM.
**
** A plan holds the factorization; the twiddles and the work buffer live in caller memory
** of pl_fft_mem_count() samples (a kernel's persistent buffer), filled by pl_fft_init_*. */
#ifndef PL_SIGNAL_FFT_H
#define PL_SIGNAL_FFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_status.h"

/* Enough (radix, length) pairs for any length below 2^31. */
#define PL_FFT_MAX_FACTORS 32

typedef struct pl_fft {
    int32_t ncfft; /* fft_length / 2: the complex transform's length */
    int32_t factors[2 * PL_FFT_MAX_FACTORS];
} pl_fft;

/* Plans a real transform of fft_length samples: even, >= 4, and of radices 2, 3, 4 and 5
** only (TFLM's kiss_fft build has no memory for its generic radix). PL_ERR_UNSUPPORTED
** with the reason otherwise. */
pl_status pl_fft_plan(int32_t fft_length, pl_fft *out, pl_error *err);

/* Samples of caller memory a plan needs: twiddles, half-length twiddles, work buffer. */
size_t pl_fft_mem_count(const pl_fft *plan);

/* Twiddles for the forward (inverse false) or inverse transform. */
void pl_fft_init_s16(const pl_fft *plan, bool inverse, int16_t *mem);
void pl_fft_init_s32(const pl_fft *plan, bool inverse, int32_t *mem);
void pl_fft_init_f32(const pl_fft *plan, bool inverse, float *mem);

/* Forward: n <= fft_length real samples (zero-padded) -> ncfft + 1 interleaved bins. */
void pl_fft_rfft_s16(const pl_fft *plan, int16_t *mem, const int16_t *in, size_t n,
                     int16_t *out);
void pl_fft_rfft_s32(const pl_fft *plan, int32_t *mem, const int32_t *in, size_t n,
                     int32_t *out);
/* float: fused computes kiss_fft as the Cortex-M4F firmware does, its products fused into
** VFMA (ctx->fused_madd). */
void pl_fft_rfft_f32(const pl_fft *plan, float *mem, const float *in, size_t n, bool fused,
                     float *out);

/* Inverse: ncfft + 1 interleaved bins -> fft_length real samples (unscaled, as kiss). */
void pl_fft_irfft_s16(const pl_fft *plan, int16_t *mem, const int16_t *in, int16_t *out);
void pl_fft_irfft_s32(const pl_fft *plan, int32_t *mem, const int32_t *in, int32_t *out);
void pl_fft_irfft_f32(const pl_fft *plan, float *mem, const float *in, bool fused, float *out);

#endif
