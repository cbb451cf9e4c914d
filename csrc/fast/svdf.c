/* svdf.c - SVDF's fast path: its integer kernels (the feature product, the time product and
** their rescales) built for the instruction set from the portable kernels' own body
** (kernels/recurrent/svdf_int_body.h, compiled again with the set's flags: the compiler
** vectorizes the int8 and int16 products, whose int32 sums wrap, so any order gives the
** portable bytes). A float SVDF keeps the portable kernel (its sums are ordered). */
#include "fast/fast.h"
#include "fast/isa_pick.h"
#include "kernels/recurrent/svdf.h"

extern const pl_svdf_int_kernels pl_svdf_int_avx2, pl_svdf_int_sse41, pl_svdf_int_neon;

/* AVX-512 runs the AVX2 build: on SVDF's short products (8 to 96 elements) the AVX-512 one's
** masked tails made TFLM's keyword_scrambled slower than the portable kernels (10.9 against
** 9.6 us; AVX2 7.5). */
static const pl_svdf_int_kernels *kernels_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_svdf_int_avx2, &pl_svdf_int_avx2, &pl_svdf_int_sse41,
                 &pl_svdf_int_neon, &pl_svdf_int_neon);
    return NULL;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    (void)ctx;
    const pl_svdf_int_kernels *k = kernels_for(pl_fast_isa_of(node));
    return k != NULL && pl_svdf_is_integer(node) && pl_fast_block_put(node, &k, sizeof k);
}

pl_status pl_fast_svdf_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

pl_status pl_fast_svdf_invoke(pl_context *ctx, pl_node *node)
{
    const pl_svdf_int_kernels *const *k = pl_fast_block(node);
    if (k == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    return pl_svdf_invoke_with(ctx, node, *k);
}
