/* error.c - the error record: one formatter, no allocation. */
#include "picolite/pl_status.h"

#include <stdarg.h>

#include "fmt.h"

void pl_error_clear(pl_error *err)
{
    err->status = PL_OK;
    err->required = 0;
    err->available = 0;
    err->node = -1;
    err->op_name[0] = '\0'; /* both are strings: runs before every node, so no memset */
    err->msg[0] = '\0';
}

pl_status pl_error_status(pl_error *err, pl_status status)
{
    if (err != NULL) {
        err->msg[0] = '\0';
        err->status = status;
    }
    return status;
}

pl_status(pl_error_set)(pl_error *err, pl_status status, const char *fmt, ...)
{
    if (err == NULL)
        return status;
    va_list ap;
    va_start(ap, fmt);
    pl_fmt_v(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->status = status;
    return status;
}

const char *pl_status_name(pl_status status)
{
    switch (status) {
    case PL_ABORTED: return "aborted";
    case PL_OK: return "ok";
    case PL_ERR_MODEL: return "model";
    case PL_ERR_ARENA: return "arena";
    case PL_ERR_UNSUPPORTED: return "unsupported";
    case PL_ERR_STATE: return "state";
    case PL_ERR_ARG: return "argument";
    }
    return "unknown";
}
