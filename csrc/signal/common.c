/* common.c - options, counts and tensor checks shared by the Signal kernels (see common.h). */
#include "signal/common.h"

#include "model/flexbuffer.h"

/* The option's value in the root map, *found false when absent; PL_ERR_MODEL when the
** options are malformed. */
static pl_status lookup(pl_context *ctx, const pl_node *node, const char *key, pl_flex *v,
                        bool *found)
{
    pl_error err;
    pl_flex root;
    pl_status s = pl_flex_root(node->custom_options, &root, &err);
    if (s == PL_OK)
        s = pl_flex_map_find(&root, key, v, found, &err);
    if (s != PL_OK)
        return ctx->fail(ctx, s, "custom options: %s", err.msg);
    return PL_OK;
}

static pl_status find(pl_context *ctx, const pl_node *node, const char *key, pl_flex *v)
{
    bool found = false;
    PL_TRY(lookup(ctx, node, key, v, &found));
    if (!found)
        return ctx->fail(ctx, PL_ERR_MODEL, "custom option '%s' is missing", key);
    return PL_OK;
}

pl_status pl_signal_opt_has(pl_context *ctx, const pl_node *node, const char *key, bool *has)
{
    pl_flex v;
    *has = false;
    PL_TRY(lookup(ctx, node, key, &v, has));
    *has = *has && v.type != PL_FLEX_NULL; /* TFLite reads a null value as absent */
    return PL_OK;
}

pl_status pl_signal_opt_int(pl_context *ctx, const pl_node *node, const char *key, int64_t lo,
                            int64_t hi, int32_t *out)
{
    pl_flex v;
    pl_error err;
    int64_t x;
    PL_TRY(find(ctx, node, key, &v));
    if (pl_flex_int(&v, &x, &err) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "custom option '%s': %s", key, err.msg);
    if (x < lo || x > hi)
        return ctx->fail(ctx, PL_ERR_MODEL, "custom option '%s' = %lld is outside %lld..%lld",
                         key, (long long)x, (long long)lo, (long long)hi);
    *out = (int32_t)x;
    return PL_OK;
}

pl_status pl_signal_opt_bool(pl_context *ctx, const pl_node *node, const char *key, bool *out)
{
    pl_flex v;
    pl_error err;
    PL_TRY(find(ctx, node, key, &v));
    if (pl_flex_bool(&v, out, &err) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "custom option '%s': %s", key, err.msg);
    return PL_OK;
}

pl_status pl_signal_opt_float(pl_context *ctx, const pl_node *node, const char *key,
                              float *out)
{
    pl_flex v;
    pl_error err;
    double d;
    PL_TRY(find(ctx, node, key, &v));
    if (pl_flex_double(&v, &d, &err) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "custom option '%s': %s", key, err.msg);
    *out = (float)d;
    return PL_OK;
}

pl_status pl_signal_io(pl_context *ctx, const pl_node *node, uint32_t n_in, uint32_t n_out)
{
    if (node->inputs.n != n_in || node->outputs.n != n_out)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs %u inputs and %u outputs, has %u and %u",
                         n_in, n_out, node->inputs.n, node->outputs.n);
    for (uint32_t i = 0; i < n_in; i++) {
        if (pl_node_input(node, i) < 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u is absent", i);
    }
    return PL_OK;
}

pl_status pl_signal_tensor(pl_context *ctx, const pl_node *node, bool output, uint32_t i,
                           pl_type type, int32_t ndims, pl_tensor **out)
{
    int32_t index = output ? pl_node_output(node, i) : pl_node_input(node, i);
    const char *what = output ? "output" : "input";
    if (index < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s %u is absent", what, i);
    PL_TRY(ctx->get_tensor(ctx, index, out));
    if ((*out)->type != type)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s %u is %s, expected %s", what, i,
                         pl_type_name((*out)->type), pl_type_name(type));
    if (ndims >= 0 && (*out)->ndims != ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s %u has rank %d, expected %d", what, i,
                         (*out)->ndims, ndims);
    return PL_OK;
}

pl_status pl_signal_state(pl_context *ctx, uint64_t need, void **buf, size_t *cap)
{
    if (need > UINT32_MAX)
        return ctx->fail(ctx, PL_ERR_MODEL, "state of %llu bytes exceeds 32 bits",
                         (unsigned long long)need);
    if (*buf != NULL && need <= *cap)
        return PL_OK;
    PL_TRY(ctx->alloc_persistent(ctx, (size_t)need, buf));
    *cap = (size_t)need;
    return PL_OK;
}

pl_status pl_signal_same_shape(pl_context *ctx, const pl_node *node, uint32_t i,
                               const pl_tensor *t)
{
    return ctx->set_shape(ctx, pl_node_output(node, i), t->ndims, t->dims);
}
