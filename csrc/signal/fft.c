/* fft.c - kiss_fft's real FFT in int16, int32 and float (see fft.h).
**
** Fixed point follows kiss_fft's macros: products rounded by (x + 2^(b-1)) >> b, every
** stage divides by its radix (C_FIXDIV), sums wrap to the sample width as the C code's
** stores do. The wrapping helpers go through unsigned types so that no step is undefined. */
#include "signal/fft.h"

#include <math.h>

pl_status pl_fft_plan(int32_t fft_length, pl_fft *out, pl_error *err)
{
    if (fft_length < 4 || fft_length % 2 != 0)
        return pl_error_set(err, PL_ERR_UNSUPPORTED,
                            "fft_length %d must be even and at least 4", fft_length);
    int32_t n = fft_length / 2, p = 4, k = 0;
    double floor_sqrt = floor(sqrt((double)n));
    out->ncfft = n;
    do { /* kiss kf_factor: powers of 4, then 2, then odd primes */
        while (n % p != 0) {
            p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
            if (p > floor_sqrt)
                p = n;
        }
        if (p > 5)
            return pl_error_set(err, PL_ERR_UNSUPPORTED,
                                "fft_length %d has the factor %d: only radices 2 to 5 run",
                                fft_length, p);
        n /= p;
        out->factors[k++] = p;
        out->factors[k++] = n;
    } while (n > 1);
    return PL_OK;
}

size_t pl_fft_mem_count(const pl_fft *plan)
{
    size_t nc = (size_t)plan->ncfft;
    return 2u * nc + 2u * (nc / 2u) + 2u * nc;
}

/* ---- int16, Q15 ---- */
static int16_t w16(int32_t x)
{
    return (int16_t)(uint16_t)(uint32_t)x;
}

static int16_t round15(uint32_t x) /* x: a wrapped int32 product sum */
{
    return w16((int32_t)(x + 16384u) >> 15);
}

#define SC int16_t
#define NAME(x) x##_s16
#define ADD(a, b) w16((int32_t)(a) + (b))
#define SUB(a, b) w16((int32_t)(a) - (b))
#define NEG(a) w16(-(int32_t)(a))
#define SMUL(a, b) round15((uint32_t)((int32_t)(a) * (b)))
#define CMUL_R(ar, ai, br, bi) round15((uint32_t)((int32_t)(ar) * (br)) - \
                                       (uint32_t)((int32_t)(ai) * (bi)))
#define CMUL_I(ar, ai, br, bi) round15((uint32_t)((int32_t)(ar) * (bi)) + \
                                       (uint32_t)((int32_t)(ai) * (br)))
#define FIXDIV(x, k) SMUL(x, 32767 / (k))
#define HALF_OF(x) w16((x) >> 1)
#define HALF_SUM(a, b) w16(((int32_t)(a) + (b)) >> 1)
#define HALF_DIFF(a, b) w16(((int32_t)(a) - (b)) >> 1)
#define COS(ph) (int16_t)floor(.5 + 32767 * cos(ph))
#define SIN(ph) (int16_t)floor(.5 + 32767 * sin(ph))
#include "signal/fft_impl.h"
#undef SC
#undef NAME
#undef ADD
#undef SUB
#undef NEG
#undef SMUL
#undef CMUL_R
#undef CMUL_I
#undef FIXDIV
#undef HALF_OF
#undef HALF_SUM
#undef HALF_DIFF
#undef COS
#undef SIN

/* ---- int32, Q31 ---- */
static int32_t w32(int64_t x)
{
    return (int32_t)(uint32_t)(uint64_t)x;
}

static int32_t round31(uint64_t x) /* x: a wrapped int64 product sum */
{
    return w32((int64_t)(x + 1073741824u) >> 31);
}

#define SC int32_t
#define NAME(x) x##_s32
#define ADD(a, b) w32((int64_t)(a) + (b))
#define SUB(a, b) w32((int64_t)(a) - (b))
#define NEG(a) w32(-(int64_t)(a))
#define SMUL(a, b) round31((uint64_t)((int64_t)(a) * (b)))
#define CMUL_R(ar, ai, br, bi) round31((uint64_t)((int64_t)(ar) * (br)) - \
                                       (uint64_t)((int64_t)(ai) * (bi)))
#define CMUL_I(ar, ai, br, bi) round31((uint64_t)((int64_t)(ar) * (bi)) + \
                                       (uint64_t)((int64_t)(ai) * (br)))
#define FIXDIV(x, k) SMUL(x, 2147483647 / (k))
#define HALF_OF(x) ((x) >> 1)
#define HALF_SUM(a, b) (ADD(a, b) >> 1)
#define HALF_DIFF(a, b) (SUB(a, b) >> 1)
#define COS(ph) (int32_t)floor(.5 + 2147483647 * cos(ph))
#define SIN(ph) (int32_t)floor(.5 + 2147483647 * sin(ph))
#include "signal/fft_impl.h"
#undef SC
#undef NAME
#undef ADD
#undef SUB
#undef NEG
#undef SMUL
#undef CMUL_R
#undef CMUL_I
#undef FIXDIV
#undef HALF_OF
#undef HALF_SUM
#undef HALF_DIFF
#undef COS
#undef SIN

/* ---- float ---- */
#define SC float
#define NAME(x) x##_f32
#define ADD(a, b) ((a) + (b))
#define SUB(a, b) ((a) - (b))
#define NEG(a) (-(a))
#define SMUL(a, b) ((a) * (b))
#define CMUL_R(ar, ai, br, bi) ((ar) * (br) - (ai) * (bi))
#define CMUL_I(ar, ai, br, bi) ((ar) * (bi) + (ai) * (br))
#define FIXDIV(x, k) ((void)(k), (x))
#define HALF_OF(x) ((x) * 0.5f)
#define HALF_SUM(a, b) (((a) + (b)) * 0.5f)
#define HALF_DIFF(a, b) (((a) - (b)) * 0.5f)
#define COS(ph) (float)cos(ph)
#define SIN(ph) (float)sin(ph)
#include "signal/fft_impl.h"

/* ---- float, fused as the Cortex-M4F firmware computes it (C_MUL: the first product fused,
** the second rounded and added or subtracted) ---- */
#undef NAME
#undef CMUL_R
#undef CMUL_I
#define NAME(x) x##_f32_fused
#define CMUL_R(ar, ai, br, bi) fmaf(ar, br, -((ai) * (bi)))
#define CMUL_I(ar, ai, br, bi) fmaf(ar, bi, (ai) * (br))
#define FUSED
#include "signal/fft_impl.h"

void pl_fft_init_s16(const pl_fft *plan, bool inverse, int16_t *mem)
{
    twiddles_s16(mem, mem + 2 * plan->ncfft, plan->ncfft, inverse);
}

void pl_fft_init_s32(const pl_fft *plan, bool inverse, int32_t *mem)
{
    twiddles_s32(mem, mem + 2 * plan->ncfft, plan->ncfft, inverse);
}

void pl_fft_init_f32(const pl_fft *plan, bool inverse, float *mem)
{
    twiddles_f32(mem, mem + 2 * plan->ncfft, plan->ncfft, inverse);
}

void pl_fft_rfft_s16(const pl_fft *plan, int16_t *mem, const int16_t *in, size_t n,
                     int16_t *out)
{
    rfft_s16(plan, mem, in, n, out);
}

void pl_fft_rfft_s32(const pl_fft *plan, int32_t *mem, const int32_t *in, size_t n,
                     int32_t *out)
{
    rfft_s32(plan, mem, in, n, out);
}

void pl_fft_rfft_f32(const pl_fft *plan, float *mem, const float *in, size_t n, bool fused,
                     float *out)
{
    if (fused)
        rfft_f32_fused(plan, mem, in, n, out);
    else
        rfft_f32(plan, mem, in, n, out);
}

void pl_fft_irfft_s16(const pl_fft *plan, int16_t *mem, const int16_t *in, int16_t *out)
{
    irfft_s16(plan, mem, in, out);
}

void pl_fft_irfft_s32(const pl_fft *plan, int32_t *mem, const int32_t *in, int32_t *out)
{
    irfft_s32(plan, mem, in, out);
}

void pl_fft_irfft_f32(const pl_fft *plan, float *mem, const float *in, bool fused, float *out)
{
    if (fused)
        irfft_f32_fused(plan, mem, in, out);
    else
        irfft_f32(plan, mem, in, out);
}
