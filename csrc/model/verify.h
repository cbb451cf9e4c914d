/* verify.h - the TFLite model verifier: run once, before anything else reads the bytes.
**
** Proves that every object the accessors in model.h read lies inside the buffer and is
** aligned, that every index points at an existing tensor, buffer, operator code or
** subgraph, and that shapes, sizes, quantization and union types are sane. */
#ifndef PL_MODEL_VERIFY_H
#define PL_MODEL_VERIFY_H

#include <stdint.h>

#include "picolite/pl_status.h"

/* PL_OK, or PL_ERR_MODEL with a message naming table, index and field ("tensor 12: buffer 99
** out of range (43 buffers)"); PL_ERR_UNSUPPORTED for schema tensor types picolite lacks. */
pl_status pl_verify_model(const uint8_t *buf, uint32_t size, pl_error *err);

#endif
