/* pl_node_io.h - the kernel preamble: a node's tensors by position, their counts and types
** checked, with one wording of each error.
**
** Every message goes through ctx->fail, which names the node and the operator, so a message
** here says which tensor and what was expected: "node 3 (CONV_2D): expects 2 to 3 inputs,
** got 4", "input 0 is INT16, expected FLOAT32 or INT8". Implemented over the pl_context
** callbacks alone (kernels/common/node_io.c), so it links with the kernels that use it. */
#ifndef PL_NODE_IO_H
#define PL_NODE_IO_H

#include "pl_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The inputs and outputs a kernel accepts. Inputs below min_in must be present, but for
** those whose bit is set in optional (SVDF's bias); those from min_in to max_in - 1 are
** optional (absent: index -1, or past the end of the list). Every output below the node's
** count must be present. roles, when not NULL, names the inputs for the count's message
** ("input, filter, optional bias"). */
typedef struct pl_io_spec {
    uint8_t min_in, max_in, min_out, max_out;
    const char *roles;
    uint32_t optional;
} pl_io_spec;

/* No upper bound (ADD_N's inputs, SPLIT's outputs). */
#define PL_IO_ANY 255u

/* Exactly n_in inputs and n_out outputs. */
#define PL_IO(n_in, n_out) ((pl_io_spec){(n_in), (n_in), (n_out), (n_out), NULL, 0})
/* min_in..max_in inputs, exactly n_out outputs. */
#define PL_IO_OPT(min_in, max_in, n_out) \
    ((pl_io_spec){(min_in), (max_in), (n_out), (n_out), NULL, 0})
/* The same with the inputs' roles named. */
#define PL_IO_NAMED(min_in, max_in, n_out, roles) \
    ((pl_io_spec){(min_in), (max_in), (n_out), (n_out), (roles), 0})

/* Checks the node's input and output counts and that the required ones are present.
** PL_ERR_MODEL: "expects 2 to 3 inputs (input, filter, optional bias), got 4", "expects 1
** output, got 2", "input 1 is absent". */
pl_status pl_node_check(pl_context *ctx, const pl_node *node, pl_io_spec spec);

/* Prepare: pl_node_check, then the full tensors (ctx->get_tensor) of inputs 0..max_in - 1
** and outputs 0..max_out - 1, in that order, into the pl_tensor ** arguments that follow
** (one per tensor; an absent optional input gives NULL). spec's maxima must be bounded. */
pl_status pl_node_tensors(pl_context *ctx, const pl_node *node, pl_io_spec spec, ...);

/* Invoke: the eval views (ctx->get_eval) of inputs 0..n_in - 1 and outputs 0..n_out - 1, in
** that order, into the pl_tensor * arguments that follow (an absent input gets index -1
** and NULL data). The counts were checked at prepare. */
pl_status pl_node_evals(pl_context *ctx, const pl_node *node, uint32_t n_in, uint32_t n_out,
                        ...);

/* Prepare: the full tensor of input i (output i when output is true); PL_ERR_MODEL when it is
** absent. For operators whose tensor count varies (ADD_N, PACK, SPLIT) after pl_node_check. */
pl_status pl_node_tensor(pl_context *ctx, const pl_node *node, bool output, uint32_t i,
                         pl_tensor **out);

/* Prepare and invoke: the eval view of input i (output i when output is true); an absent
** input gets index -1 and NULL data. */
pl_status pl_node_eval(pl_context *ctx, const pl_node *node, bool output, uint32_t i,
                       pl_tensor *out);

/* A set of tensor types for pl_check_type: PL_TYPES2(PL_FLOAT32, PL_INT8). */
#define PL_TYPE_BIT(t) (1u << (uint32_t)(t))
#define PL_TYPES1(a) PL_TYPE_BIT(a)
#define PL_TYPES2(a, b) (PL_TYPE_BIT(a) | PL_TYPE_BIT(b))
#define PL_TYPES3(a, b, c) (PL_TYPES2(a, b) | PL_TYPE_BIT(c))
#define PL_TYPES4(a, b, c, d) (PL_TYPES3(a, b, c) | PL_TYPE_BIT(d))

/* PL_ERR_UNSUPPORTED unless t (input i, or output i when output is true) has one of the
** types in the set: "input 0 is INT16, expected FLOAT32 or INT8". */
pl_status pl_check_type(pl_context *ctx, const pl_tensor *t, bool output, uint32_t i,
                        uint32_t types);

/* Every type with a fixed element size (pl_type_size > 0): what data movement runs. */
#define PL_TYPES_FIXED_SIZE 0xFFFFFFFFu

/* The usual pair: input 0 has one of the types (pl_check_type) and output 0 the same
** (pl_check_same_type). With PL_TYPES_FIXED_SIZE: "input 0 is STRING, expected a type of
** fixed size". */
pl_status pl_check_types(pl_context *ctx, const pl_tensor *in, const pl_tensor *out,
                         uint32_t types);

/* PL_ERR_MODEL unless t (input or output i) has rank ndims: "input 0 has rank 3, expected 4". */
pl_status pl_check_rank(pl_context *ctx, const pl_tensor *t, bool output, uint32_t i,
                        int32_t ndims);

/* PL_ERR_UNSUPPORTED unless output 0 has input 0's type: "output 0 is INT8, expected
** FLOAT32 (input 0's type)". */
pl_status pl_check_same_type(pl_context *ctx, const pl_tensor *in, const pl_tensor *out);

/* Custom operators' options (node->custom_options, a FlexBuffer map), read by key through
** the runtime (runtime/custom_options.c): kernels never parse the model's bytes. Each
** records "custom option 'key' ..." through ctx->fail when the value is missing, of the
** wrong kind or out of range, or the options are malformed (PL_ERR_MODEL). */
pl_status pl_custom_opt_int(pl_context *ctx, const pl_node *node, const char *key, int64_t lo,
                            int64_t hi, int32_t *out);
pl_status pl_custom_opt_bool(pl_context *ctx, const pl_node *node, const char *key, bool *out);
pl_status pl_custom_opt_float(pl_context *ctx, const pl_node *node, const char *key,
                              float *out);
/* Whether the map has key with a non-null value (an optional option keeps its default). */
pl_status pl_custom_opt_has(pl_context *ctx, const pl_node *node, const char *key, bool *has);

/* An NHWC tensor's dimensions by name (conv, pool, resize): dims[0..3]. A filter (OHWI)
** reads as n = output channels, c = input channels, as CMSIS-NN's filter_dims. */
typedef struct pl_nhwc {
    int32_t n, h, w, c;
} pl_nhwc;

/* The dims of a rank-4 tensor by name (the caller has checked the rank). */
static inline pl_nhwc pl_nhwc_of(const pl_tensor *t)
{
    pl_nhwc d = {t->dims[0], t->dims[1], t->dims[2], t->dims[3]};
    return d;
}

#ifdef __cplusplus
}
#endif

#endif
