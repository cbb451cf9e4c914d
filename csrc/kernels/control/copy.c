/* copy.c - tensors between a control-flow node and its subgraphs. */
#include "copy.h"
#include "picolite/pl_node_io.h"

#include <string.h>

static pl_status end_tensor(pl_context *ctx, const pl_node *node, pl_copy_end e, uint32_t i,
                            pl_tensor *out)
{
    if (e.subgraph >= 0)
        return ctx->subgraph_io(ctx, e.subgraph, e.output, e.first + i, out);
    PL_TRY(pl_node_eval(ctx, node, e.output, e.first + i, out));
    if (out->index < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s %u is absent", e.output ? "output" : "input",
                         (unsigned)(e.first + i));
    return PL_OK;
}

pl_status pl_copy_tensors(pl_context *ctx, const pl_node *node, pl_copy_end from,
                          pl_copy_end to, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        pl_tensor src, dst;
        PL_TRY(end_tensor(ctx, node, from, i, &src));
        PL_TRY(end_tensor(ctx, node, to, i, &dst));
        if (src.bytes != dst.bytes)
            return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d has %zu bytes, the tensor %d it "
                             "is copied to %zu", (int)src.index, src.bytes, (int)dst.index,
                             dst.bytes);
        if (src.bytes > 0 && src.data != dst.data)
            memmove(dst.data, src.data, src.bytes);
    }
    return PL_OK;
}

pl_status pl_copy_check_count(pl_context *ctx, int32_t subgraph, bool output, uint32_t want)
{
    uint32_t have;
    PL_TRY(ctx->subgraph_io_count(ctx, subgraph, output, &have));
    if (have != want)
        return ctx->fail(ctx, PL_ERR_MODEL, "subgraph %d has %u %s, the node has %u",
                         (int)subgraph, (unsigned)have, output ? "outputs" : "inputs",
                         (unsigned)want);
    return PL_OK;
}
