/* lut_f32.c - the float int16 table, entry by entry (see lut_f32.h). */
#include "lut_f32.h"

#include "kernels/common/fixedpoint.h"

/* NaN (a transform's answer outside its domain) gives 0 rather than an undefined cast. */
static int16_t clamp_s16(float v)
{
    if (v != v)
        return 0;
    return (int16_t)(v < -32768.0f ? -32768.0f : v > 32767.0f ? 32767.0f : v);
}

void pl_lut_f32_init(pl_lut_f32 *t, float input_scale, int32_t input_zero_point,
                     float output_scale, int32_t output_zero_point)
{
    t->input_min = input_scale * (float)(-32768 - input_zero_point);
    t->input_max = input_scale * (float)(32767 - input_zero_point);
    const float output_min = output_scale * (float)(-32768 - output_zero_point);
    const float output_max = output_scale * (float)(32767 - output_zero_point);
    t->step = (t->input_max - t->input_min) / 512;
    t->half_step = t->step / 2;
    t->inv = 65536.0f / (output_max - output_min);
}

int16_t pl_lut_f32_entry(const pl_lut_f32 *t, pl_lut_f32_fn fn, float param, int32_t i)
{
    if (i >= 512)
        return clamp_s16(pl_fx_roundf(fn(t->input_max, param) * t->inv));
    float val = fn(t->input_min + (float)i * t->step, param);
    float val_mid = fn(t->input_min + (float)i * t->step + t->half_step, param);
    float val_next = fn(t->input_min + (float)(i + 1) * t->step, param);
    float sample = pl_fx_roundf(val * t->inv);
    float interp = pl_fx_roundf((val_next * t->inv + pl_fx_roundf(val * t->inv)) / 2);
    float mid = pl_fx_roundf(val_mid * t->inv);
    /* bias each sample by half the interpolation error at the midpoint */
    float bias = pl_fx_roundf((interp - mid) / 2);
    return clamp_s16(sample - bias);
}

int16_t pl_lut_f32_lookup(const pl_lut_f32 *t, pl_lut_f32_fn fn, float param, int16_t value)
{
    int32_t index = 256 + (value >> 7);
    int32_t offset = value & 0x7f;
    int16_t base = pl_lut_f32_entry(t, fn, param, index);
    int16_t slope = (int16_t)(pl_lut_f32_entry(t, fn, param, index + 1) - base);
    int32_t delta = (slope * offset + 64) >> 7;
    return (int16_t)(base + delta);
}
