/* kernel_harness.h - run one kernel registration on hand-made tensors, without a model.
**
** A fake pl_context over a fixed table of tensors: alloc_persistent and request_scratch come
** from a static pool, get_tensor/get_eval read the table. Test code only.
**
**   kh_setup();
**   int32_t in = kh_tensor(PL_INT8, 4, dims, data, &quant);   // returns tensor index
**   int32_t out = kh_tensor(PL_INT8, 4, dims, out_data, &quant);
**   pl_status s = kh_run(pl_add_registration(), inputs, 2, outputs, 1, &options_table);
*/
#ifndef PL_TEST_KERNEL_HARNESS_H
#define PL_TEST_KERNEL_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picolite/pl_kernel.h"

#define KH_MAX_TENSORS 32
#define KH_MAX_QUANT 512 /* scales and zero points per tensor */
#define KH_POOL_BYTES (1u << 20)

typedef struct kh_state {
    pl_tensor tensors[KH_MAX_TENSORS];
    float scales[KH_MAX_TENSORS][KH_MAX_QUANT];
    int32_t zero_points[KH_MAX_TENSORS][KH_MAX_QUANT];
    int32_t count;
    _Alignas(16) uint8_t pool[KH_POOL_BYTES];
    size_t pool_used;
    void *scratch[16];
    int32_t scratch_count;
    pl_phase phase;
    char message[256];
    uint8_t io[2][64 * 4]; /* little-endian int32 index vectors for node inputs/outputs */
    /* each tensor's shape_signature: its dims as made (a test may open one with -1) */
    int32_t signature[KH_MAX_TENSORS][PL_MAX_DIMS];
    int32_t signature_ndims[KH_MAX_TENSORS];
} kh_state;

static kh_state kh;

static inline void *kh_pool_take(size_t bytes)
{
    size_t start = (kh.pool_used + 15u) & ~(size_t)15u;
    if (start + bytes > KH_POOL_BYTES)
        return NULL;
    kh.pool_used = start + bytes;
    memset(kh.pool + start, 0, bytes);
    return kh.pool + start;
}

static inline pl_status kh_alloc_persistent(pl_context *ctx, size_t bytes, void **out)
{
    (void)ctx;
    *out = kh_pool_take(bytes);
    return *out != NULL ? PL_OK : PL_ERR_ARENA;
}

static inline pl_status kh_request_scratch(pl_context *ctx, size_t bytes, int32_t *index)
{
    (void)ctx;
    if (kh.phase != PL_PHASE_PREPARE || kh.scratch_count >= 16)
        return PL_ERR_STATE;
    kh.scratch[kh.scratch_count] = kh_pool_take(bytes);
    *index = kh.scratch_count++;
    return PL_OK;
}

static inline void *kh_get_scratch(pl_context *ctx, int32_t index)
{
    (void)ctx;
    return kh.phase == PL_PHASE_INVOKE && index >= 0 && index < kh.scratch_count
               ? kh.scratch[index] : NULL;
}

static inline pl_status kh_get_tensor(pl_context *ctx, int32_t index, pl_tensor **out)
{
    (void)ctx;
    if (kh.phase != PL_PHASE_PREPARE || index < 0 || index >= kh.count)
        return PL_ERR_ARG;
    *out = &kh.tensors[index];
    return PL_OK;
}

static inline pl_status kh_get_eval(pl_context *ctx, int32_t index, pl_tensor *out)
{
    (void)ctx;
    if (index < 0) {
        memset(out, 0, sizeof *out);
        out->index = -1;
        return PL_OK;
    }
    if (index >= kh.count)
        return PL_ERR_ARG;
    *out = kh.tensors[index];
    memset(&out->q, 0, sizeof out->q);
    return PL_OK;
}

static inline pl_status kh_fail(pl_context *ctx, pl_status status, const char *fmt, ...)
{
    (void)ctx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kh.message, sizeof kh.message, fmt, ap);
    va_end(ap);
    return status;
}

/* Takes the kernel's output shape when the test's buffer holds it (tests check dims after). */
static inline pl_status kh_set_shape(pl_context *ctx, int32_t index, int32_t ndims,
                                     const int32_t *dims)
{
    (void)ctx;
    if (kh.phase != PL_PHASE_PREPARE || index < 0 || index >= kh.count || ndims < 0 ||
        ndims > PL_MAX_DIMS)
        return PL_ERR_ARG;
    pl_tensor *t = &kh.tensors[index];
    size_t n = pl_type_size(t->type);
    for (int32_t i = 0; i < ndims; i++)
        n *= (size_t)dims[i];
    if (n > t->bytes)
        return kh_fail(ctx, PL_ERR_MODEL, "output %d: the computed shape needs %zu bytes, the "
                       "test's buffer holds %zu", (int)index, n, t->bytes);
    t->ndims = ndims;
    memcpy(t->dims, dims, sizeof(int32_t) * (size_t)ndims);
    return PL_OK;
}

/* The harness never folds: values reach invoke as in a model that was not resized. */
static inline pl_status kh_fold(pl_context *ctx, pl_node *node, bool shape_only)
{
    (void)ctx;
    (void)node;
    (void)shape_only;
    return kh.phase == PL_PHASE_PREPARE ? PL_OK : PL_ERR_STATE;
}

static inline pl_status kh_shape_signature(pl_context *ctx, int32_t index, int32_t *ndims,
                                           int32_t *dims)
{
    (void)ctx;
    if (index < 0 || index >= kh.count)
        return PL_ERR_ARG;
    *ndims = kh.signature_ndims[index];
    memcpy(dims, kh.signature[index], sizeof(int32_t) * (size_t)*ndims);
    return PL_OK;
}

static pl_context kh_ctx = {.alloc_persistent = kh_alloc_persistent,
                            .request_scratch = kh_request_scratch,
                            .get_scratch = kh_get_scratch, .get_tensor = kh_get_tensor,
                            .get_eval = kh_get_eval, .fail = kh_fail,
                            .set_shape = kh_set_shape, .fold = kh_fold,
                            .shape_signature = kh_shape_signature};

static inline void kh_setup(void)
{
    memset(&kh, 0, sizeof kh);
}

/* Adds a tensor over caller data; q may be NULL (not quantized). Returns its index. */
static inline int32_t kh_tensor(pl_type type, int32_t ndims, const int32_t *dims, void *data,
                         size_t bytes, const float *scales, const int64_t *zero_points,
                         uint32_t qcount, int32_t qdim)
{
    if (kh.count >= KH_MAX_TENSORS || qcount > KH_MAX_QUANT) {
        fprintf(stderr, "kh_tensor: the harness holds %d tensors of %d scales\n",
                KH_MAX_TENSORS, KH_MAX_QUANT);
        abort();
    }
    int32_t i = kh.count++;
    pl_tensor *t = &kh.tensors[i];
    memset(t, 0, sizeof *t);
    t->data = data;
    t->bytes = bytes;
    t->index = i;
    t->type = type;
    t->ndims = ndims;
    memcpy(t->dims, dims, sizeof(int32_t) * (size_t)ndims);
    kh.signature_ndims[i] = ndims;
    memcpy(kh.signature[i], dims, sizeof(int32_t) * (size_t)ndims);
    t->q.count = qcount;
    for (uint32_t k = 0; k < qcount; k++) {
        kh.scales[i][k] = scales[k];
        kh.zero_points[i][k] = (int32_t)zero_points[k];
    }
    t->q.scale = kh.scales[i];
    t->q.zero_point = kh.zero_points[i];
    t->q.quantized_dimension = qdim;
    return i;
}

static inline pl_vec kh_vec(int which, const int32_t *idx, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t v = (uint32_t)idx[k];
        for (int b = 0; b < 4; b++)
            kh.io[which][4 * k + (uint32_t)b] = (uint8_t)(v >> (8 * b));
    }
    pl_vec vec = {kh.io[which], n};
    return vec;
}

/* Runs init, prepare and invoke of reg on one node. options may be NULL (all defaults). */
static inline pl_status kh_run(const pl_registration *reg, const int32_t *inputs, uint32_t ninputs,
                        const int32_t *outputs, uint32_t noutputs, const pl_table *options)
{
    pl_node node;
    memset(&node, 0, sizeof node);
    node.builtin_code = reg->builtin_code;
    node.version = 1;
    node.registration = reg;
    node.inputs = kh_vec(0, inputs, ninputs);
    node.outputs = kh_vec(1, outputs, noutputs);
    if (options != NULL)
        node.options = *options;
    kh.message[0] = '\0';
    pl_status s = PL_OK;
    kh.phase = PL_PHASE_INIT;
    if ((s = pl_registration_init(reg, &kh_ctx, &node, &node.user_data)) != PL_OK)
        return s;
    kh.phase = PL_PHASE_PREPARE;
    if (reg->prepare != NULL && (s = reg->prepare(&kh_ctx, &node)) != PL_OK)
        return s;
    kh.phase = PL_PHASE_INVOKE;
    return reg->invoke(&kh_ctx, &node);
}

#endif
