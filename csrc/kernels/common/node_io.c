/* node_io.c - the kernel preamble (picolite/pl_node_io.h): counts, presence, tensors, types. */
#include "picolite/pl_node_io.h"

#include <stdarg.h>

/* "expects 2 to 3 inputs (input, filter, optional bias), got 4" */
static pl_status count_error(pl_context *ctx, const char *what, uint32_t lo, uint32_t hi,
                             const char *roles, uint32_t got)
{
    const char *plural = lo == 1 && (hi == 1 || hi == PL_IO_ANY) ? "" : "s",
               *lparen = roles ? " (" : "",
               *rparen = roles ? ")" : "";
    roles = roles ? roles : "";
    if (lo == hi)
        return ctx->fail(ctx, PL_ERR_MODEL, "expects %u %s%s%s%s%s, got %u", lo, what, plural,
                         lparen, roles, rparen, got);
    if (hi == PL_IO_ANY)
        return ctx->fail(ctx, PL_ERR_MODEL, "expects at least %u %s%s%s%s%s, got %u", lo, what,
                         plural, lparen, roles, rparen, got);
    return ctx->fail(ctx, PL_ERR_MODEL, "expects %u to %u %ss%s%s%s, got %u", lo, hi, what,
                     lparen, roles, rparen, got);
}

pl_status pl_node_check(pl_context *ctx, const pl_node *node, pl_io_spec spec)
{
    if (node->inputs.n < spec.min_in || (spec.max_in != PL_IO_ANY && node->inputs.n > spec.max_in))
        return count_error(ctx, "input", spec.min_in, spec.max_in, spec.roles, node->inputs.n);
    if (node->outputs.n < spec.min_out ||
        (spec.max_out != PL_IO_ANY && node->outputs.n > spec.max_out))
        return count_error(ctx, "output", spec.min_out, spec.max_out, NULL, node->outputs.n);
    for (uint32_t i = 0; i < spec.min_in; i++) {
        if (pl_node_input(node, i) < 0 && !(i < 32 && (spec.optional & (1u << i))))
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u is absent", i);
    }
    for (uint32_t i = 0; i < node->outputs.n; i++) {
        if (pl_node_output(node, i) < 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "output %u is absent", i);
    }
    return PL_OK;
}

pl_status pl_node_tensors(pl_context *ctx, const pl_node *node, pl_io_spec spec, ...)
{
    PL_TRY(pl_node_check(ctx, node, spec));
    pl_status s = PL_OK;
    va_list ap;
    va_start(ap, spec);
    for (uint32_t k = 0; k < (uint32_t)spec.max_in + spec.max_out && s == PL_OK; k++) {
        pl_tensor **t = va_arg(ap, pl_tensor **);
        bool output = k >= spec.max_in;
        int32_t index = output ? pl_node_output(node, k - spec.max_in) : pl_node_input(node, k);
        *t = NULL;
        if (index >= 0)
            s = ctx->get_tensor(ctx, index, t);
    }
    va_end(ap);
    return s;
}

pl_status pl_node_tensor(pl_context *ctx, const pl_node *node, bool output, uint32_t i,
                         pl_tensor **out)
{
    int32_t index = output ? pl_node_output(node, i) : pl_node_input(node, i);
    if (index < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s %u is absent", output ? "output" : "input", i);
    return ctx->get_tensor(ctx, index, out);
}

pl_status pl_node_eval(pl_context *ctx, const pl_node *node, bool output, uint32_t i,
                       pl_tensor *out)
{
    return ctx->get_eval(ctx, output ? pl_node_output(node, i) : pl_node_input(node, i), out);
}

pl_status pl_node_evals(pl_context *ctx, const pl_node *node, uint32_t n_in, uint32_t n_out,
                        ...)
{
    pl_status s = PL_OK;
    va_list ap;
    va_start(ap, n_out);
    for (uint32_t k = 0; k < n_in + n_out && s == PL_OK; k++) {
        pl_tensor *t = va_arg(ap, pl_tensor *);
        s = ctx->get_eval(ctx, k < n_in ? pl_node_input(node, k) : pl_node_output(node, k - n_in),
                          t);
    }
    va_end(ap);
    return s;
}

/* "FLOAT32, INT8 or INT16" into buf. */
static void type_list(uint32_t types, char *buf, size_t cap)
{
    size_t n = 0;
    uint32_t left = types;
    for (uint32_t t = 0; left != 0 && t < 32; t++) {
        if (!(left & PL_TYPE_BIT(t)))
            continue;
        left &= ~PL_TYPE_BIT(t);
        const char *sep = n == 0 ? "" : left == 0 ? " or " : ", ";
        for (const char *p = sep; *p != '\0' && n + 1 < cap; p++)
            buf[n++] = *p;
        for (const char *p = pl_type_name((pl_type)t); *p != '\0' && n + 1 < cap; p++)
            buf[n++] = *p;
    }
    buf[n] = '\0';
}

pl_status pl_check_type(pl_context *ctx, const pl_tensor *t, bool output, uint32_t i,
                        uint32_t types)
{
    if ((uint32_t)t->type < 32 && (types & PL_TYPE_BIT(t->type)))
        return PL_OK;
    char expected[96];
    type_list(types, expected, sizeof expected);
    return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s %u is %s, expected %s",
                     output ? "output" : "input", i, pl_type_name(t->type), expected);
}

pl_status pl_check_types(pl_context *ctx, const pl_tensor *in, const pl_tensor *out,
                         uint32_t types)
{
    if (types == PL_TYPES_FIXED_SIZE && pl_type_size(in->type) == 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input 0 is %s, expected a type of fixed "
                         "size", pl_type_name(in->type));
    if (types != PL_TYPES_FIXED_SIZE)
        PL_TRY(pl_check_type(ctx, in, false, 0, types));
    return pl_check_same_type(ctx, in, out);
}

pl_status pl_check_rank(pl_context *ctx, const pl_tensor *t, bool output, uint32_t i,
                        int32_t ndims)
{
    if (t->ndims == ndims)
        return PL_OK;
    return ctx->fail(ctx, PL_ERR_MODEL, "%s %u has rank %d, expected %d",
                     output ? "output" : "input", i, (int)t->ndims, (int)ndims);
}

pl_status pl_check_same_type(pl_context *ctx, const pl_tensor *in, const pl_tensor *out)
{
    if (out->type == in->type)
        return PL_OK;
    return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "output 0 is %s, expected %s (input 0's type)",
                     pl_type_name(out->type), pl_type_name(in->type));
}
