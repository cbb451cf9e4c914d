/* custom_options.c - custom operators' options by key (picolite/pl_node_io.h): the
** FlexBuffer map in node->custom_options, read through the model layer's reader so kernels
** never parse model bytes. A separate file: a firmware links it only with a kernel that reads
** custom options. */
#include "picolite/pl_node_io.h"

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

pl_status pl_custom_opt_has(pl_context *ctx, const pl_node *node, const char *key, bool *has)
{
    pl_flex v;
    *has = false;
    PL_TRY(lookup(ctx, node, key, &v, has));
    *has = *has && v.type != PL_FLEX_NULL; /* TFLite reads a null value as absent */
    return PL_OK;
}

pl_status pl_custom_opt_int(pl_context *ctx, const pl_node *node, const char *key, int64_t lo,
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

pl_status pl_custom_opt_bool(pl_context *ctx, const pl_node *node, const char *key, bool *out)
{
    pl_flex v;
    pl_error err;
    PL_TRY(find(ctx, node, key, &v));
    if (pl_flex_bool(&v, out, &err) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "custom option '%s': %s", key, err.msg);
    return PL_OK;
}

pl_status pl_custom_opt_float(pl_context *ctx, const pl_node *node, const char *key,
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
