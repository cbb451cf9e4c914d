/* test_fast_gelu.c - float GELU's host fast path (fast/gelu.c, gelu_body.h) against the
** portable kernel: the vector lanes of both forms on a stride through every float bit
** pattern (NaN lanes among them), and whole nodes, exact and tanh form, through the fast
** resolver on random shapes and 3 threads, and 8-bit nodes (their table, looked up). Where
** the host libm is the one the lanes copy (glibc 2.36 on x86-64 with AVX2), the float fast
** path must be taken; elsewhere it may decline, and then the nodes must not take it. */
#include <math.h>
#include <string.h>

#include "fast/exp.h"
#include "fast/fast.h"
#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/activation/gelu_fast.h"
#include "opts_table.h"

#if defined(__GLIBC__) && !defined(__ANDROID__)
#include <gnu/libc-version.h>
#endif

enum { GELU = 150, MAX_N = 30000, STRIDE = 251 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == GELU ? pl_gelu_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

/* Whether this host's libm must be the copied one: glibc 2.36, the version the lanes were
** checked against, on x86-64 (the copy runs on AVX2 and AVX-512, whose CPUs have FMA: glibc
** then runs its FMA expf). */
static bool copy_must_match(pl_isa isa)
{
#if defined(__GLIBC__) && defined(__x86_64__)
    int major = 0, minor = 0;
    if (sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2)
        return false;
    return (isa == PL_ISA_AVX2 || isa == PL_ISA_AVX512) && major == 2 && minor == 36;
#else
    (void)isa;
    return false;
#endif
}

static float lanes_in[MAX_N], lanes_out[MAX_N];

/* Every STRIDE-th bit pattern (and NaN lanes in the same vectors as numbers) through the
** kernel of each form, against the portable element bit for bit. */
static void gelu_lanes_equal_element(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        for (int approximate = 0; approximate < 2; approximate++) {
            pl_fast_lanes_fn *gelu = pl_fast_gelu_for((pl_isa)isa, approximate);
            printf("  %s: float GELU (%s) lanes %s\n", pl_fast_isa_name((pl_isa)isa),
                   approximate ? "tanh" : "exact", gelu != NULL ? "taken" : "declined");
            CHECK(gelu != NULL || !copy_must_match((pl_isa)isa));
            if (gelu == NULL)
                continue;
            uint64_t differ = 0, checked = 0, bits = approximate;
            while (bits < (UINT64_C(1) << 32)) {
                size_t n = 0;
                for (; n < MAX_N && bits < (UINT64_C(1) << 32); n++, bits += STRIDE) {
                    uint32_t b = (uint32_t)bits;
                    memcpy(&lanes_in[n], &b, sizeof b);
                }
                gelu(lanes_in, lanes_out, n);
                for (size_t i = 0; i < n; i++) {
                    float want = approximate ? pl_gelu_approx_f32(lanes_in[i])
                                             : pl_gelu_f32(lanes_in[i]);
                    differ += memcmp(&want, &lanes_out[i], sizeof want) != 0;
                }
                checked += n;
            }
            CHECK_EQ(differ, 0);
            CHECK(checked >= (UINT64_C(1) << 32) / STRIDE);
        }
    }
}

static float in32[MAX_N], out32[2][MAX_N];

static float value(void)
{
    static const float special[] = {INFINITY, -INFINITY, NAN, -NAN, 0.0f, -0.0f, 1e-40f,
                                    -1e-45f, 0.84375f, -1.25f, 2.857142686843872f,
                                    -8.4852814f, 28.0f, -39.59798f, 1e30f, -1e30f};
    uint32_t r = rnd() % 64;
    if (r < sizeof special / sizeof special[0])
        return special[r];
    return unit() * (r < 48 ? 5.0f : 60.0f);
}

/* A GELU node's tensors: a 2-d input of type and its two outputs (the portable kernel's,
** the fast resolver's); 8-bit ones with the scales and zero points of input and output. */
typedef struct gelu_io {
    pl_type type;
    int32_t dims[2];
    void *in, *out[2];
    float scale[2];
    int64_t zero[2];
} gelu_io;

/* The node (tanh form when approximate) through the portable kernel and the resolver r;
** false (and why, printed) when either refuses. *took_fast: whether r took its path. */
static bool run_both(pl_fast_resolver *r, const gelu_io *io, bool approximate, bool *took_fast)
{
    opt_buf ob;
    int32_t vals[1] = {approximate ? 1 : OPT_ABSENT};
    pl_table opts = make_opts(&ob, 1, vals);
    const size_t n = (size_t)io->dims[0] * (size_t)io->dims[1];
    const size_t bytes = io->type == PL_FLOAT32 ? n * sizeof(float) : n;
    for (int slot = 0; slot < 2; slot++) {
        const pl_registration *reg =
            slot == 0 ? pl_gelu_registration() : r->resolver.find(r, GELU, NULL, 0, 1);
        kh_setup();
        const bool f32 = io->type == PL_FLOAT32; /* no quantization */
        int32_t in = kh_tensor(io->type, 2, io->dims, io->in, bytes, &io->scale[0],
                               &io->zero[0], f32 ? 0 : 1, 0);
        int32_t out = kh_tensor(io->type, 2, io->dims, io->out[slot], bytes, &io->scale[1],
                                &io->zero[1], f32 ? 0 : 1, 0);
        if (kh_run(reg, &in, 1, &out, 1, &opts) != PL_OK) {
            fprintf(stderr, "GELU refused: %s\n", kh.message);
            return false;
        }
    }
    *took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += *took_fast;
    pl_fast_resolver_release(r);
    return true;
}

/* Whether the drawn case is the tanh form, for the fast-case count. */
static bool approximate;

static bool one_case(pl_fast_resolver *r)
{
    int32_t rows = between(1, 6), cols = between(1, MAX_N / 6);
    size_t n = (size_t)rows * (size_t)cols;
    for (size_t i = 0; i < n; i++)
        in32[i] = value();
    approximate = between(0, 3) == 0;
    bool took_fast;
    const gelu_io io = {PL_FLOAT32, {rows, cols}, in32, {out32[0], out32[1]}, {0}, {0}};
    if (!run_both(r, &io, approximate, &took_fast))
        return false;
    bool same = memcmp(out32[0], out32[1], n * sizeof(float)) == 0;
    bool want_fast = pl_fast_gelu_for(r->isa, approximate) != NULL;
    if (!same || took_fast != want_fast)
        fprintf(stderr, "GELU %s %dx%d: %s\n", approximate ? "tanh" : "exact", (int)rows,
                (int)cols, same ? "wrong path" : "differs");
    return same && took_fast == want_fast;
}

static uint8_t in8[MAX_N], out8[2][MAX_N];

/* An int8 or uint8 GELU of either form, every input byte present: the node's table looked
** up (lut8.c) must give the portable kernel's bytes. */
static bool one_byte_case(pl_fast_resolver *r)
{
    const bool u8 = between(0, 1) == 0;
    int32_t n = between(256, MAX_N);
    for (int32_t i = 0; i < n; i++)
        in8[i] = (uint8_t)(i < 256 ? i : between(0, 255));
    const float si = 0.01f + (float)between(1, 100) / 500.0f;
    const float so = 0.005f + (float)between(1, 100) / 1000.0f;
    const int64_t zi = u8 ? between(0, 255) : between(-128, 127);
    const int64_t zo = u8 ? between(0, 255) : between(-128, 127);
    bool took_fast;
    const gelu_io io = {u8 ? PL_UINT8 : PL_INT8, {1, n}, in8, {out8[0], out8[1]}, {si, so},
                        {zi, zo}};
    if (!run_both(r, &io, between(0, 1) == 1, &took_fast))
        return false;
    bool same = memcmp(out8[0], out8[1], (size_t)n) == 0;
    if (!same || !took_fast)
        fprintf(stderr, "GELU %s n %d: %s\n", u8 ? "uint8" : "int8", (int)n,
                same ? "wrong path" : "differs");
    return same && took_fast;
}

static void gelu_byte_nodes_equal_portable(void)
{
    fast_equals_portable(&portable, "gelu (8-bit)", 60, 60, one_byte_case);
}

static void gelu_nodes_equal_portable(void)
{
    fast_equals_portable(&portable, "gelu", 120, 0, one_case);
}

static bool lanes_taken(pl_isa isa)
{
    return pl_fast_gelu_for(isa, false) != NULL;
}

/* On 3 threads with every job split: where the lanes are taken, their spans must have split. */
static void gelu_threads_equal_portable(void)
{
    fast_threads_split_where(&portable, "gelu", 60, 1, one_case, lanes_taken);
}

int main(void)
{
    RUN(gelu_lanes_equal_element);
    RUN(gelu_nodes_equal_portable);
    RUN(gelu_threads_equal_portable);
    RUN(gelu_byte_nodes_equal_portable);
    return HARNESS_END();
}
