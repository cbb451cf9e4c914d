/* test_fast_pad.c - PAD's and PADV2's host fast path against the portable kernel on random
** ranks (1 to 6), shapes (empty axes too), paddings (INT32 and INT64, none on some axes),
** element types, zero points and constant values: the same status, byte for byte the same
** output. Every case takes the fast path (the test fails otherwise). */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernels/shape/pad.h"

enum { PAD = 34, PADV2 = 60, MAX_ELEMS = 6 * 6 * 6 * 6 * 6 * 6, MAX_BYTES = MAX_ELEMS * 8 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == PAD ? pl_pad_registration() : code == PADV2 ? pl_padv2_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct pad_case {
    int32_t code;
    pl_type type, pad_type;
    bool quantized, value; /* PADV2: a constant_values input */
    int32_t zero_point;
    int32_t ndims, dims[6], before[6], after[6];
} pad_case;

static _Alignas(16) uint8_t input[MAX_BYTES], output[2][MAX_BYTES];
static _Alignas(16) uint8_t value[16];

static void random_case(pad_case *c)
{
    static const pl_type types[] = {PL_INT8, PL_UINT8, PL_INT16, PL_FLOAT32, PL_INT32,
                                    PL_INT64, PL_BOOL};
    memset(c, 0, sizeof *c);
    c->code = between(0, 1) ? PAD : PADV2;
    c->type = types[between(0, 6)];
    c->pad_type = between(0, 1) ? PL_INT32 : PL_INT64;
    c->quantized = (c->type == PL_INT8 || c->type == PL_UINT8 || c->type == PL_INT16) &&
                   between(0, 3) != 0;
    c->zero_point = c->type == PL_INT16 ? between(-300, 300) : between(-128, 127);
    c->zero_point = c->type == PL_UINT8 ? between(0, 255) : c->zero_point;
    c->value = c->code == PADV2 && between(0, 3) != 0;
    c->ndims = between(1, 6);
    for (int32_t a = 0; a < c->ndims; a++) {
        c->dims[a] = between(0, 9) == 0 ? 0 : between(1, c->ndims > 4 ? 3 : 5);
        bool padded = between(0, 2) != 0;
        c->before[a] = padded ? between(0, 2) : 0;
        c->after[a] = padded ? between(0, 2) : 0;
    }
    for (size_t i = 0; i < sizeof input; i++)
        input[i] = (uint8_t)rnd();
    for (size_t i = 0; i < sizeof value; i++)
        value[i] = (uint8_t)rnd();
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const pad_case *c = vc;
    static _Alignas(8) uint8_t paddings[6 * 2 * 8];
    kh_setup();
    size_t es = pl_type_size(c->type), n = 1, m = 1;
    int32_t out_dims[6];
    for (int32_t a = 0; a < c->ndims; a++) {
        n *= (size_t)c->dims[a];
        out_dims[a] = c->dims[a] + c->before[a] + c->after[a];
        m *= (size_t)out_dims[a];
        for (int k = 0; k < 2; k++) {
            int64_t v = k == 0 ? c->before[a] : c->after[a];
            int32_t v32 = (int32_t)v;
            if (c->pad_type == PL_INT32)
                memcpy(paddings + 8 * a + 4 * k, &v32, 4);
            else
                memcpy(paddings + 16 * a + 8 * k, &v, 8);
        }
    }
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    const float scale[1] = {0.5f};
    const int64_t zp[1] = {c->zero_point};
    uint32_t q = c->quantized ? 1 : 0;
    const int32_t pad_dims[2] = {c->ndims, 2}, one[1] = {1};
    int32_t t[4];
    t[0] = kh_tensor(c->type, c->ndims, c->dims, input, n * es, scale, zp, q, 0);
    t[1] = kh_tensor(c->pad_type, 2, pad_dims, paddings,
                     pl_type_size(c->pad_type) * 2 * (size_t)c->ndims, NULL, NULL, 0, 0);
    kh.tensors[t[1]].is_constant = true;
    t[2] = c->value ? kh_tensor(c->type, 1, one, value, es, scale, zp, q, 0) : -1;
    t[3] = kh_tensor(c->type, c->ndims, out_dims, output[slot], m * es, scale, zp, q, 0);
    int32_t outputs[1] = {t[3]};
    pl_status s = kh_run(reg, t, c->code == PADV2 ? 3 : 2, outputs, 1, NULL);
    *bytes = m * es;
    return s;
}

static bool case_matches(pl_fast_resolver *r, const pad_case *c)
{
    const pl_registration *base = c->code == PAD ? pl_pad_registration()
                                                 : pl_padv2_registration();
    fast_pair p = fast_run_pair(r, base, c->code, run_case, c, output[0], output[1]);
    bool same = p.agree && p.equal;
    bool expect_fast = p.want == PL_OK;
    if (!same || p.took_fast != expect_fast)
        fprintf(stderr, "pad %s: code %d type %s rank %d status %d/%d bytes %zu/%zu fast %d\n",
                same ? "path" : "differs", (int)c->code, pl_type_name(c->type), c->ndims,
                (int)p.want, (int)p.got, p.want_bytes, p.got_bytes, p.took_fast);
    return same && p.took_fast == expect_fast && p.want == PL_OK;
}

static bool one_case(pl_fast_resolver *r)
{
    pad_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void pad_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "pad", 1500, 1500, one_case);
}

int main(void)
{
    RUN(pad_fast_path_equals_portable);
    return HARNESS_END();
}
