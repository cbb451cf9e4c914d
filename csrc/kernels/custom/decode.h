/* decode.h - the decode methods of TFLM_DECODE (decode.c) beside its lookup table: pruning
** (decode_prune.c) and Huffman (decode_huffman.c), as TFLM's DecodeStatePrune and
** DecodeStateHuffman compute them. Each method checks its pair at prepare (setup) and
** writes the output at invoke (run); data and table are refreshed from the eval tensors. */
#ifndef PL_KERNELS_DECODE_H
#define PL_KERNELS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Bytes of the ancillary data's common header; byte 0 is the method, byte 1 the header's
** version, byte 4 the method's version, bytes 5.. the method's parameters. */
#define PL_DECODE_HEADER_BYTES 16u

enum { PL_DECODE_LUT = 0, PL_DECODE_HUFFMAN = 1, PL_DECODE_PRUNE = 2 };

/* One (encoded, ancillary) -> output pair. Slots: one layout on 32- and 64-bit targets. */
typedef struct pl_decode_pair {
    PL_SLOT(const uint8_t *, data);         /* the encoded tensor's bytes */
    PL_SLOT(const uint8_t *, table);        /* the ancillary data after its header */
    PL_SLOT(const int8_t *, zero_points);   /* pruning, int8 per channel; else NULL */
    PL_SLOT(size_t, data_bytes);
    PL_SLOT(size_t, table_bytes);
    PL_SLOT(size_t, count);                 /* output elements */
    PL_SLOT(size_t, channels);
    PL_SLOT(size_t, per_channel);           /* elements per channel (blocks along axis 0) */
    PL_SLOT(size_t, stride);                /* lookup table: entries per channel */
    PL_SLOT(size_t, size);                  /* bytes per output element */
    uint32_t width;    /* lookup table: index bits; Huffman: bits of the first lookup */
    uint8_t method;
    bool alternate;    /* channels along the last axis, element by element */
    bool wide;         /* Huffman: 32-bit table entries (else 16-bit) */
    int8_t zero_point; /* pruning: the value of pruned elements */
} pl_decode_pair;

/* Pruning: a bitmap (1 bit per element, most significant first) picks the next value of
** the table (1) or the zero point (0). Fails on quantization TFLM refuses. */
pl_status pl_decode_prune_setup(pl_context *ctx, uint32_t i, const pl_tensor *out,
                                pl_decode_pair *p);
pl_status pl_decode_prune_run(pl_context *ctx, const pl_decode_pair *p, uint8_t *out);

/* Huffman with Xtensa-format decode tables: int8 (16- or 32-bit entries) or int16 (32-bit
** entries). A stream that ends early or leaves its table fails with PL_ERR_MODEL. */
pl_status pl_decode_huffman_setup(pl_context *ctx, uint32_t i, const uint8_t *header,
                                  const pl_tensor *out, pl_decode_pair *p);
pl_status pl_decode_huffman_run(pl_context *ctx, const pl_decode_pair *p, uint8_t *out);

#endif
