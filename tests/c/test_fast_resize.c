/* test_fast_resize.c - RESIZE_BILINEAR's and RESIZE_NEAREST_NEIGHBOR's host fast paths
** against the portable kernels on random batches, sides (up and down, 1 too), channels,
** element types and options (align_corners, half_pixel_centers), on unfused and fused
** targets: the same status, byte for byte the same output. Every case of a constant size
** takes the fast path (the test fails otherwise); float bilinear on a fused target
** (ctx->fused_madd) does where the set has FMA (AVX2, AVX-512, NEON) and keeps the portable
** kernel on SSE4.1, as a size read at invoke does everywhere. */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/image/resize.h"

enum { BILINEAR = 23, NEAREST = 97, MAX_ELEMS = 2 * 24 * 24 * 9, MAX_BYTES = MAX_ELEMS * 8 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == BILINEAR  ? pl_resize_bilinear_registration()
           : code == NEAREST ? pl_resize_nearest_neighbor_registration()
                             : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct resize_case {
    int32_t code;
    pl_type type;
    bool constant, fused;
    int32_t dims[4], size[2];
    int32_t options[4]; /* bilinear: fields 2 and 3; nearest: 0 and 1 */
} resize_case;

static _Alignas(16) uint8_t input[MAX_BYTES], output[2][MAX_BYTES];

static void random_input(pl_type type, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (type == PL_FLOAT32) {
            float v = unit() * 100.0f;
            memcpy(input + 4 * i, &v, 4);
        } else {
            for (size_t b = 0; b < pl_type_size(type); b++)
                input[pl_type_size(type) * i + b] = (uint8_t)rnd();
        }
    }
}

static void random_case(resize_case *c)
{
    static const pl_type types[] = {PL_FLOAT32, PL_UINT8, PL_INT8, PL_INT16, PL_INT32,
                                    PL_INT64, PL_BOOL};
    memset(c, 0, sizeof *c);
    c->code = between(0, 1) ? BILINEAR : NEAREST;
    c->type = types[between(0, c->code == BILINEAR ? 3 : 6)];
    c->constant = between(0, 7) != 0;
    c->fused = between(0, 2) == 0;
    c->dims[0] = between(1, 2);
    c->dims[1] = between(1, 12), c->dims[2] = between(1, 12), c->dims[3] = between(1, 9);
    c->size[0] = between(1, 24), c->size[1] = between(1, 24);
    int32_t mode = between(0, c->code == BILINEAR ? 2 : 3); /* none, align, half, both */
    int32_t first = c->code == BILINEAR ? 2 : 0;
    c->options[first] = mode == 1 || mode == 3;
    c->options[first + 1] = mode == 2 || mode == 3;
    random_input(c->type, MAX_ELEMS);
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const resize_case *c = vc;
    static int32_t size[2];
    kh_setup();
    kh_ctx.fused_madd = c->fused;
    size_t es = pl_type_size(c->type), n = (size_t)c->dims[0] * (size_t)c->dims[1] *
                                           (size_t)c->dims[2] * (size_t)c->dims[3];
    const int32_t size_dims[1] = {2};
    int32_t out_dims[4] = {c->dims[0], c->size[0], c->size[1], c->dims[3]};
    size_t m = (size_t)out_dims[0] * (size_t)out_dims[1] * (size_t)out_dims[2] *
               (size_t)out_dims[3];
    memcpy(size, c->size, sizeof size);
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    int32_t t[3];
    t[0] = kh_tensor(c->type, 4, c->dims, input, n * es, NULL, NULL, 0, 0);
    t[1] = kh_tensor(PL_INT32, 1, size_dims, size, sizeof size, NULL, NULL, 0, 0);
    kh.tensors[t[1]].is_constant = c->constant;
    t[2] = kh_tensor(c->type, 4, out_dims, output[slot], m * es, NULL, NULL, 0, 0);
    kt_opts o;
    pl_status s = kh_run(reg, t, 2, t + 2, 1, kt_make_opts(&o, c->options, 4));
    kh_ctx.fused_madd = false;
    *bytes = m * es;
    return s;
}

static bool case_matches(pl_fast_resolver *r, const resize_case *c)
{
    const pl_isa isa = r->isa;
    fast_pair p = fast_run_pair(r, portable_find(NULL, c->code, NULL, 0, 1), c->code, run_case,
                                c, output[0], output[1]);
    bool same = p.agree && p.equal;
    bool fused_float = c->code == BILINEAR && c->type == PL_FLOAT32 && c->fused;
    bool can_fuse = isa != PL_ISA_SSE41;
    bool expect_fast = p.want == PL_OK && c->constant && (!fused_float || can_fuse);
    if (!same || p.took_fast != expect_fast)
        fprintf(stderr, "resize %s: code %d type %s %dx%d -> %dx%d status %d/%d fast %d\n",
                same ? "path" : "differs", (int)c->code, pl_type_name(c->type),
                (int)c->dims[1], (int)c->dims[2], (int)c->size[0], (int)c->size[1],
                (int)p.want, (int)p.got, p.took_fast);
    return same && p.took_fast == expect_fast;
}

static bool one_case(pl_fast_resolver *r)
{
    resize_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void resize_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "resize", 2000, 1000, one_case);
}

int main(void)
{
    RUN(resize_fast_path_equals_portable);
    return HARNESS_END();
}
