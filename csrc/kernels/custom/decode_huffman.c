/* decode_huffman.c - TFLM_DECODE's Huffman method (see decode.h), as TFLM's
** DecodeStateHuffman: codewords packed most significant bit first (TFLM reads big-endian
** 32-bit words, the same bit order), Xtensa-format decode tables after the header.
**
** Header byte 5: bit 0 set for 32-bit table entries (else 16-bit, int8 output only), bits
** 4..7 the first lookup's width minus one. Each symbol starts with a lookup of that many
** bits; an entry either holds the symbol (top bit set, then how many of the bits just read
** belong to its code, then the value) or points to a next table (how many bits to read
** next, minus one, and the offset from this entry to that table, to which those bits are
** added). Bits read past a symbol's code are put back. */
#include "kernels/custom/decode.h"

/* Entry fields of the 16- and 32-bit tables: found flag, bit count, value or offset. */
typedef struct layout {
    uint32_t found, count_mask, count_shift, value_mask;
} layout;

static const layout NARROW = {0x8000u, 0x7800u, 11u, 0x07FFu};
static const layout WIDE = {0x80000000u, 0x78000000u, 27u, 0x07FFFFFFu};

pl_status pl_decode_huffman_setup(pl_context *ctx, uint32_t i, const uint8_t *header,
                                  const pl_tensor *out, pl_decode_pair *p)
{
    uint8_t params = header[5];
    p->wide = (params & 1u) != 0;
    p->width = (uint32_t)(params >> 4) + 1u;
    if (out->type != PL_INT8 && !(p->wide && out->type == PL_INT16))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: Huffman decodes int8 (16- or "
                         "32-bit tables) and int16 (32-bit tables), not %s with %s tables", i,
                         pl_type_name(out->type), p->wide ? "32-bit" : "16-bit");
    return PL_OK;
}

/* The bit stream: a position over data_bytes * 8 bits; bits past the end read as 0 (only
** a code's look-ahead reaches them, and the tables repeat a symbol for every look-ahead). */
typedef struct bits {
    const uint8_t *data;
    size_t total, pos;
} bits;

static uint32_t next_bits(bits *b, uint32_t n)
{
    uint32_t v = 0;
    for (uint32_t k = 0; k < n; k++, b->pos++) {
        uint32_t bit = b->pos < b->total ? (b->data[b->pos >> 3] >> (7u - (b->pos & 7u))) & 1u
                                         : 0u;
        v = (v << 1) | bit;
    }
    return v;
}

static uint32_t entry(const pl_decode_pair *p, size_t k)
{
    const uint8_t *e = p->table + k * (p->wide ? 4u : 2u);
    uint32_t v = (uint32_t)e[0] | (uint32_t)e[1] << 8;
    return p->wide ? v | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24 : v;
}

/* One symbol's table value; fails when a lookup starts past the stream or the table. */
static pl_status symbol(pl_context *ctx, const pl_decode_pair *p, bits *b, size_t k,
                        uint32_t *value)
{
    const layout *f = p->wide ? &WIDE : &NARROW;
    size_t entries = p->table_bytes / (p->wide ? 4u : 2u), offset = 0;
    uint32_t used = p->width, v = 0;
    for (bool first = true;; first = false) {
        if (b->pos >= b->total)
            return ctx->fail(ctx, PL_ERR_MODEL, "value %zu: the Huffman stream ends after "
                             "%zu bits", k, b->total);
        offset += first ? next_bits(b, used) : (v & f->value_mask) + next_bits(b, used);
        if (offset >= entries)
            return ctx->fail(ctx, PL_ERR_MODEL, "value %zu: Huffman table entry %zu past the "
                             "table's %zu", k, offset, entries);
        v = entry(p, offset);
        if (v & f->found)
            break;
        used = ((v & f->count_mask) >> f->count_shift) + 1u;
    }
    uint32_t code_bits = (v & f->count_mask) >> f->count_shift;
    if (used > code_bits)
        b->pos -= used - code_bits;
    *value = v;
    return PL_OK;
}

pl_status pl_decode_huffman_run(pl_context *ctx, const pl_decode_pair *p, uint8_t *out)
{
    bits b = {p->data, p->data_bytes * 8u, 0};
    for (size_t k = 0; k < p->count; k++) {
        uint32_t v = 0;
        PL_TRY(symbol(ctx, p, &b, k, &v));
        if (p->size == 1) {
            out[k] = (uint8_t)v; /* the entry's low bits, as TFLM's narrowing store */
        } else {
            out[2 * k] = (uint8_t)v;
            out[2 * k + 1] = (uint8_t)(v >> 8);
        }
    }
    if (b.pos > b.total)
        return ctx->fail(ctx, PL_ERR_MODEL, "the Huffman stream of %zu bits ends inside its "
                         "last code", b.total);
    return PL_OK;
}
