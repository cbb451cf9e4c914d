/* hybrid.c - on-the-fly input quantization and weight scales of the hybrid kernels. */
#include "hybrid.h"

#include <string.h>

#include "kernels/common/fixedpoint.h"

static float abs_f32(float v)
{
    return v < 0.0f ? -v : v;
}

static void min_max(const float *x, int32_t n, float *lo, float *hi)
{
    *lo = x[0];
    *hi = x[0];
    for (int32_t i = 1; i < n; i++) {
        *lo = x[i] < *lo ? x[i] : *lo;
        *hi = x[i] > *hi ? x[i] : *hi;
    }
}

/* A rounded float clamped before the conversion, so inf and NaN (from denormal ranges or
** hostile inputs) convert defined-ly; NaN goes to lo. */
static int32_t to_int_clamped(float r, int32_t lo, int32_t hi)
{
    if (!(r > (float)lo))
        return lo;
    return r < (float)hi ? (int32_t)r : hi;
}

bool pl_hybrid_symmetric_params(float lo, float hi, float *scale, float *inv)
{
    float range = abs_f32(lo) < abs_f32(hi) ? abs_f32(hi) : abs_f32(lo);
    if (range == 0.0f) {
        *scale = 1.0f;
        return false;
    }
    *scale = range / 127.0f;
    *inv = 127.0f / range;
    return true;
}

void pl_hybrid_quantize_symmetric(const float *x, int32_t n, int8_t *q, float *scale)
{
    float lo, hi, inv;
    min_max(x, n, &lo, &hi);
    if (!pl_hybrid_symmetric_params(lo, hi, scale, &inv)) {
        memset(q, 0, (size_t)n);
        return;
    }
    for (int32_t i = 0; i < n; i++)
        q[i] = (int8_t)to_int_clamped(pl_fx_roundf(x[i] * inv), -127, 127);
}

bool pl_hybrid_asymmetric_params(float lo, float hi, float *scale, int32_t *zero_point,
                                 float *inv)
{
    lo = lo < 0.0f ? lo : 0.0f;
    hi = hi > 0.0f ? hi : 0.0f;
    if (lo == hi) {
        *scale = 1.0f;
        *zero_point = 0;
        return false;
    }
    /* LiteRT 2.3 measured: the scale in float, the zero point in double from it */
    const float s = (hi - lo) / 255.0f;
    const double sd = (double)s, rmin = (double)lo, rmax = (double)hi;
    const double from_min = -128.0 - rmin / sd, from_max = 127.0 - rmax / sd;
    const double err_min = 128.0 + (rmin / sd < 0 ? -rmin / sd : rmin / sd);
    const double err_max = 127.0 + (rmax / sd < 0 ? -rmax / sd : rmax / sd);
    const double z = err_min < err_max ? from_min : from_max;
    *zero_point = z <= -128.0 ? -128 : z >= 127.0 ? 127 : (int32_t)pl_fx_round(z);
    *scale = s;
    *inv = 1.0f / s;
    return true;
}

void pl_hybrid_quantize_asymmetric(const float *x, int32_t n, int8_t *q, float *scale,
                                   int32_t *zero_point)
{
    float lo, hi, inv;
    min_max(x, n, &lo, &hi);
    if (!pl_hybrid_asymmetric_params(lo, hi, scale, zero_point, &inv)) {
        memset(q, 0, (size_t)n);
        return;
    }
    /* zero point + round(x / scale): the zero point is added after the rounding */
    const int32_t zp = *zero_point;
    for (int32_t i = 0; i < n; i++) /* |zp| <= 128: clamping to +-512 first changes nothing */
        q[i] = (int8_t)pl_fx_clamp(zp + to_int_clamped(pl_fx_roundf(x[i] * inv), -512, 512),
                                   -128, 127);
}

pl_status pl_hybrid_filter_scales(pl_context *ctx, const pl_convq_names *names,
                                  const pl_tensor *f, int32_t channels, int32_t qdim,
                                  const float **scales)
{
    if (f->q.count == 0 || (f->q.count != 1 && (f->q.count != (uint32_t)channels ||
                                                f->q.quantized_dimension != qdim)))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: the hybrid %s must have one scale or one per "
                         "%s (got %u)", names->op, names->filter, names->channel, f->q.count);
    float *s = NULL;
    PL_TRY(ctx->alloc_persistent(ctx, sizeof(float) * f->q.count, (void **)&s));
    for (uint32_t i = 0; i < f->q.count; i++) {
        if (f->q.zero_point[i] != 0)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: hybrid %s zero point %lld is not 0",
                             names->op, names->filter, (long long)f->q.zero_point[i]);
        s[i] = f->q.scale[i];
    }
    *scales = s;
    return PL_OK;
}
