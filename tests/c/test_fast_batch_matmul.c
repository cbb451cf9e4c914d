/* test_fast_batch_matmul.c - BATCH_MATMUL's host fast path against the portable kernel on
** random ranks, broadcast batch dims, adj_x/adj_y, sizes and zero points: int8 byte for byte,
** float32 equal. Every instruction set this CPU runs is tested; CI runs this under ASan and
** UBSan. */
#include <string.h>

#include "fast_harness.h"
#include "fast/gemm.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/conv/batch_matmul.h"

enum { BATCH_MATMUL = 126, MAX_N = 9 * 40 * 40 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == BATCH_MATMUL ? pl_batch_matmul_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static int8_t l8[MAX_N], r8[MAX_N], out8[2][MAX_N];
static float l32[MAX_N], r32[MAX_N], out32[2][MAX_N];

typedef struct bmm_case {
    int32_t rank, lb[2], rb[2], rows, cols, depth; /* lb/rb: batch dims (rank 4 uses both) */
    bool adj_x, adj_y, f32;
    float sl, sr, so;
    int64_t zl, zr, zo;
} bmm_case;

static void random_case(bmm_case *c)
{
    c->rank = between(2, 4);
    for (int i = 0; i < 2; i++) {
        int32_t b = between(1, 3);
        c->lb[i] = between(0, 3) == 0 ? 1 : b; /* size-1 batch dims broadcast */
        c->rb[i] = between(0, 3) == 0 ? 1 : b;
    }
    c->rows = between(1, 40);
    c->cols = between(1, 40);
    c->depth = between(1, 40);
    c->adj_x = between(0, 1) == 1;
    c->adj_y = between(0, 1) == 1;
    c->f32 = between(0, 2) == 0;
    c->sl = 0.01f + (float)between(1, 100) / 200.0f;
    c->sr = 0.01f + (float)between(1, 100) / 200.0f;
    c->so = 0.05f + (float)between(1, 100) / 20.0f;
    c->zl = between(-128, 127);
    c->zr = between(-128, 127);
    c->zo = between(-128, 127);
}

/* dims of one operand: batch dims of its rank, then the (maybe adjointed) matrix. */
static int32_t operand_dims(const bmm_case *c, const int32_t *batch, int32_t r, int32_t k,
                            bool adj, int32_t *dims)
{
    int32_t n = 0;
    for (int32_t i = 4 - c->rank; i < 2; i++)
        dims[n++] = batch[i];
    dims[n++] = adj ? k : r;
    dims[n++] = adj ? r : k;
    return n;
}

static size_t count(const int32_t *dims, int32_t n)
{
    size_t c = 1;
    for (int32_t i = 0; i < n; i++)
        c *= (size_t)dims[i];
    return c;
}

static bool case_matches(pl_fast_resolver *r, const bmm_case *c)
{
    int32_t ld[4], rd[4], od[4], ob[2];
    int32_t ln = operand_dims(c, c->lb, c->rows, c->depth, c->adj_x, ld);
    /* the right-hand matrix is [depth, cols], or [cols, depth] with adj_y */
    int32_t rn = c->adj_y ? operand_dims(c, c->rb, c->cols, c->depth, false, rd)
                          : operand_dims(c, c->rb, c->depth, c->cols, false, rd);
    for (int i = 0; i < 2; i++)
        ob[i] = c->lb[i] > c->rb[i] ? c->lb[i] : c->rb[i];
    int32_t on = operand_dims(c, ob, c->rows, c->cols, false, od);
    size_t nl = count(ld, ln), nr = count(rd, rn), no = count(od, on);
    for (size_t i = 0; i < nl; i++) {
        l8[i] = (int8_t)between(-128, 127);
        l32[i] = unit() * 2.0f;
    }
    for (size_t i = 0; i < nr; i++) {
        r8[i] = (int8_t)between(-128, 127);
        r32[i] = unit() * 2.0f;
    }
    for (int slot = 0; slot < 2; slot++) {
        kh_setup();
        int32_t ins[2], outs[1];
        if (c->f32) {
            ins[0] = kt_tensor_f32(ln, ld, l32, nl);
            ins[1] = kt_tensor_f32(rn, rd, r32, nr);
            outs[0] = kt_tensor_f32(on, od, out32[slot], no);
        } else {
            ins[0] = kh_tensor(PL_INT8, ln, ld, l8, nl, &c->sl, &c->zl, 1, 0);
            ins[1] = kh_tensor(PL_INT8, rn, rd, r8, nr, &c->sr, &c->zr, 1, 0);
            outs[0] = kh_tensor(PL_INT8, on, od, out8[slot], no, &c->so, &c->zo, 1, 0);
        }
        kt_opts o;
        const int32_t fields[2] = {c->adj_x, c->adj_y};
        const pl_registration *reg = slot == 0 ? pl_batch_matmul_registration()
                                               : r->resolver.find(r, BATCH_MATMUL, NULL, 0, 1);
        if (kh_run(reg, ins, 2, outs, 1, kt_make_opts(&o, fields, 2)) != PL_OK) {
            fprintf(stderr, "batch matmul refused: %s\n", kh.message);
            return false;
        }
    }
    fast_cases += r->host_bytes > 0;
    pl_fast_resolver_release(r);
    for (size_t i = 0; i < no; i++)
        if (c->f32 ? out32[0][i] != out32[1][i] : out8[0][i] != out8[1][i]) {
            fprintf(stderr, "batch matmul differs: %s rank %d %dx%dx%d adj %d,%d at %zu\n",
                    c->f32 ? "f32" : "int8", c->rank, c->rows, c->depth, c->cols, c->adj_x,
                    c->adj_y, i);
            return false;
        }
    return true;
}

static bool one_case(pl_fast_resolver *r)
{
    bmm_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void batch_matmul_fast_paths_equal_portable(void)
{
    fast_equals_portable(&portable, "batch matmul", 300, 300, one_case);
}

/* Batches over 3 threads (every job split), each worker with its own buffers. */
static void batch_matmul_threads_equal_portable(void)
{
    fast_threads_equal_portable(&portable, "batch matmul", 150, 20, one_case);
}

/* float cases of a fused target: VFMADD/FMLA where the instruction set has FMA */
static bool one_fused_case(pl_fast_resolver *r)
{
    bmm_case c;
    random_case(&c);
    c.f32 = true;
    return case_matches(r, &c);
}

static bool can_fuse(pl_isa isa)
{
    return pl_gemm_f32_run(pl_gemm_f32_for(isa), true) != NULL;
}

static void batch_matmul_fused_fast_paths_equal_portable(void)
{
    fast_fused_equals_portable(&portable, "batch matmul", 150, one_fused_case, can_fuse, &kh_ctx);
}

int main(void)
{
    RUN(batch_matmul_fast_paths_equal_portable);
    RUN(batch_matmul_threads_equal_portable);
    RUN(batch_matmul_fused_fast_paths_equal_portable);
    return HARNESS_END();
}
