/* lut_f32.c - the float int16 table (see lut_f32.h). */
#include "lut_f32.h"

#include "kernels/common/fixedpoint.h"

static int16_t clamp_s16(float v)
{
    return (int16_t)(v < -32768.0f ? -32768.0f : v > 32767.0f ? 32767.0f : v);
}

void pl_lut_populate_s16_f32(float input_scale, int32_t input_zero_point, float output_scale,
                             int32_t output_zero_point, float (*fn)(float, float),
                             float param, int16_t lut[PL_LUT_S16_SIZE])
{
    const float input_min = input_scale * (float)(-32768 - input_zero_point);
    const float input_max = input_scale * (float)(32767 - input_zero_point);
    const float output_min = output_scale * (float)(-32768 - output_zero_point);
    const float output_max = output_scale * (float)(32767 - output_zero_point);
    const float step = (input_max - input_min) / 512;
    const float half_step = step / 2;
    const float inv = 65536.0f / (output_max - output_min);
    for (int i = 0; i < 512; i++) {
        float val = fn(input_min + (float)i * step, param);
        float val_mid = fn(input_min + (float)i * step + half_step, param);
        float val_next = fn(input_min + (float)(i + 1) * step, param);
        float sample = pl_fx_roundf(val * inv);
        float interp = pl_fx_roundf((val_next * inv + pl_fx_roundf(val * inv)) / 2);
        float mid = pl_fx_roundf(val_mid * inv);
        /* bias each sample by half the interpolation error at the midpoint */
        float bias = pl_fx_roundf((interp - mid) / 2);
        lut[i] = clamp_s16(sample - bias);
    }
    lut[512] = clamp_s16(pl_fx_roundf(fn(input_max, param) * inv));
}
