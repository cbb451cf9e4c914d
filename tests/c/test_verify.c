/* test_verify.c - the model verifier: one test per rejection, each checking its message. */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "model/model.h"
#include "model_builder.h"

static pl_status try_open(uint8_t *p, size_t n, pl_error *e)
{
    pl_model m;
    pl_error_clear(e);
    pl_status s = pl_model_open(&m, p, n, e);
    free(p);
    return s;
}

static pl_status try_spec(const mb_spec *s, pl_error *e)
{
    size_t n;
    uint8_t *p = mb_build(s, &n, NULL);
    return try_open(p, n, e);
}

static void wr32(uint8_t *p, uint32_t pos, uint32_t v)
{
    memcpy(p + pos, &v, 4);
}

static void wr16(uint8_t *p, uint32_t pos, uint16_t v)
{
    memcpy(p + pos, &v, 2);
}

static uint32_t rd32(const uint8_t *p, uint32_t pos)
{
    uint32_t v;
    memcpy(&v, p + pos, 4);
    return v;
}

/* Position of the vtable of the table at pos. */
static uint32_t vt_of(const uint8_t *p, uint32_t pos)
{
    return pos - rd32(p, pos);
}

/* Position of field `field` of the table at pos (it must be present). */
static uint32_t field_at(const uint8_t *p, uint32_t pos, uint32_t field)
{
    uint16_t off;
    memcpy(&off, p + vt_of(p, pos) + 4 + 2 * field, 2);
    return pos + off;
}

/* Position of the object the uoffset field `field` of the table at pos points to. */
static uint32_t target_of(const uint8_t *p, uint32_t pos, uint32_t field)
{
    uint32_t at = field_at(p, pos, field);
    return at + rd32(p, at);
}

#define EXPECT(status, e, needle)          \
    do {                                   \
        CHECK_EQ((status), PL_ERR_MODEL);  \
        CHECK_STR_CONTAINS((e).msg, needle); \
    } while (0)

/* ---- the default model is accepted ---- */

static void accepts_default_model(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

/* ---- header ---- */

static void rejects_too_small_file(void)
{
    pl_error e;
    uint8_t *p = calloc(1, 7);
    EXPECT(try_open(p, 7, &e), e, "model: 7 bytes is too small");
}

static void rejects_wrong_identifier(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ident = "ABCD";
    EXPECT(try_spec(&s, &e), e, "model: file identifier is \"ABCD\", expected \"TFL3\"");
}

static void rejects_root_offset_outside_buffer(void)
{
    mb_spec s;
    pl_error e;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, NULL);
    wr32(p, 0, (uint32_t)n + 64);
    EXPECT(try_open(p, n, &e), e, "model (root): table at byte");
}

static void rejects_misaligned_table(void)
{
    mb_spec s;
    pl_error e;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, NULL);
    wr32(p, 0, rd32(p, 0) + 2);
    EXPECT(try_open(p, n, &e), e, "is not 4-byte aligned");
}

/* ---- vtables and tables ---- */

static void rejects_vtable_outside_buffer(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr32(p, w.tensor[1], (uint32_t)(-(int32_t)n)); /* vtable = pos + n */
    EXPECT(try_open(p, n, &e), e, "tensor 1: vtable at byte");
}

static void rejects_misaligned_vtable(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr32(p, w.tensor[1], rd32(p, w.tensor[1]) + 1);
    EXPECT(try_open(p, n, &e), e, "is not 2-byte aligned");
}

static void rejects_odd_vtable_size(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr16(p, vt_of(p, w.tensor[0]), 7);
    EXPECT(try_open(p, n, &e), e, "tensor 0: vtable size 7 is invalid");
}

static void rejects_vtable_past_end(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr16(p, vt_of(p, w.tensor[2]), 0xfffe);
    EXPECT(try_open(p, n, &e), e, "runs past the buffer end");
}

static void rejects_table_size_past_end(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr16(p, vt_of(p, w.op[0]) + 2, 0xfff0);
    EXPECT(try_open(p, n, &e), e, "subgraph 0 operator 0: table size 65520");
}

static void rejects_field_outside_table(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t vt = vt_of(p, w.tensor[1]);
    uint16_t tbl;
    memcpy(&tbl, p + vt + 2, 2);
    wr16(p, vt + 4 + 2 * 2, tbl); /* buffer field at the table's end */
    EXPECT(try_open(p, n, &e), e, "tensor 1: field 2 at table byte");
}

static void rejects_field_straddling_table_end(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t vt = vt_of(p, w.tensor[1]);
    uint16_t tbl;
    memcpy(&tbl, p + vt + 2, 2);
    wr16(p, vt + 4 + 2 * 2, (uint16_t)(tbl - 2)); /* 4-byte buffer field, 2 bytes inside */
    EXPECT(try_open(p, n, &e), e, "tensor 1 (buffer): field 2 (4 bytes");
}

static void rejects_misaligned_field(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t vt = vt_of(p, w.op[0]);
    uint16_t off;
    memcpy(&off, p + vt + 4, 2); /* opcode_index */
    wr16(p, vt + 4, (uint16_t)(off - 1));
    EXPECT(try_open(p, n, &e), e, "subgraph 0 operator 0 (opcode_index): field 0 at byte");
}

/* ---- offsets, vectors, strings ---- */

static void rejects_offset_outside_buffer(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr32(p, field_at(p, w.tensor[0], 3), 0x10000000);
    EXPECT(try_open(p, n, &e), e, "tensor 0 (name): offset 268435456");
}

static void rejects_zero_offset(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr32(p, field_at(p, w.tensor[0], 3), 0);
    EXPECT(try_open(p, n, &e), e, "tensor 0 (name): offset 0 at byte");
}

static void rejects_vector_header_outside_buffer(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    s.pad_after = 2; /* a 4-aligned position 2 bytes before the end */
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t at = field_at(p, w.tensor[0], 3);
    wr32(p, at, (uint32_t)(n - 2) - at);
    EXPECT(try_open(p, n, &e), e, "tensor 0 (name): vector at byte");
}

static void rejects_misaligned_vector(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t at = field_at(p, w.op[0], 1);
    wr32(p, at, rd32(p, at) + 2);
    EXPECT(try_open(p, n, &e), e, "subgraph 0 operator 0 (inputs): vector at byte");
}

static void rejects_vector_past_end(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    wr32(p, w.shape[2], 0x40000000);
    EXPECT(try_open(p, n, &e), e, "tensor 2 (shape): vector of 1073741824 x 4 bytes");
}

static void rejects_misaligned_int64_elements(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    s.tensors[0].has_quant = 1;
    s.tensors[0].nscale = 1;
    s.tensors[0].scale[0] = 0.5f;
    s.tensors[0].nzp = 1;
    s.tensors[0].zp[0] = 0; /* read as a length of 0 once shifted */
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t at = field_at(p, w.quant[0], 3);
    wr32(p, at, rd32(p, at) + 4);
    EXPECT(try_open(p, n, &e), e, "(quantization zero_point): vector elements at byte");
}

static void rejects_unterminated_string(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    p[w.tensor_name[0] + 4 + 1] = 'x'; /* "a" then its NUL */
    EXPECT(try_open(p, n, &e), e, "tensor 0 (name): string not terminated");
}

static void rejects_shared_offsets_beyond_budget(void)
{
    /* 60000 subgraph entries all pointing at one subgraph of 8 tensors. */
    mb b;
    pl_error e;
    mb_spec s;
    mb_where w;
    uint32_t r[32];
    mb_default(&s);
    s.ntensors = 8;
    s.tensors[1].buffer = 0;
    for (int i = 3; i < 8; i++)
        s.tensors[i] = s.tensors[0];
    mb_init(&b);
    uint32_t buf0 = (mb_start(&b), mb_end(&b));
    uint32_t code = mb_build_opcode(&b, &s.opcodes[0]);
    uint32_t sg = mb_build_subgraph(&b, &s, &w, r);
    enum { N = 60000 };
    uint32_t *sgs = malloc(N * sizeof *sgs);
    for (int i = 0; i < N; i++)
        sgs[i] = sg;
    uint32_t bv = mb_vec_refs(&b, &buf0, 1), cv = mb_vec_refs(&b, &code, 1);
    uint32_t sv = mb_vec_refs(&b, sgs, N);
    free(sgs);
    mb_start(&b);
    mb_ref(&b, 1, cv);
    mb_ref(&b, 2, sv);
    mb_ref(&b, 4, bv);
    mb_finish(&b, mb_end(&b), "TFL3");
    uint8_t *p = malloc(b.used);
    memcpy(p, b.buf + MB_CAP - b.used, b.used);
    size_t n = b.used;
    free(b.buf);
    EXPECT(try_open(p, n, &e), e, "shared or looping offsets");
}

/* ---- model ---- */

static void rejects_model_without_subgraphs(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.nsubgraphs = 0;
    EXPECT(try_spec(&s, &e), e, "model: no subgraphs");
}

/* ---- operator codes ---- */

static void rejects_unknown_builtin_code(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.opcodes[0].code = 300;
    EXPECT(try_spec(&s, &e), e, "operator code 0: builtin code 300 unknown");
}

static void rejects_negative_builtin_code(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.opcodes[0].deprecated = -3;
    s.opcodes[0].code = -5;
    EXPECT(try_spec(&s, &e), e, "operator code 0: builtin code -3 unknown");
}

/* ---- subgraphs ---- */

static void rejects_subgraph_input_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.in[0] = 40;
    EXPECT(try_spec(&s, &e), e, "subgraph 0: input 0 is tensor 40, out of range (3 tensors)");
}

static void rejects_optional_subgraph_input(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.in[0] = -1;
    EXPECT(try_spec(&s, &e), e, "subgraph 0: input 0 is tensor -1");
}

static void rejects_subgraph_output_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.out[0] = 3;
    EXPECT(try_spec(&s, &e), e, "subgraph 0: output 0 is tensor 3, out of range (3 tensors)");
}

/* ---- tensors ---- */

static void rejects_tensor_buffer_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[2].buffer = 99;
    EXPECT(try_spec(&s, &e), e, "tensor 2: buffer 99 out of range (2 buffers)");
}

static void rejects_rank_above_limit(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].rank = PL_MAX_DIMS + 1;
    for (int d = 0; d < PL_MAX_DIMS + 1; d++)
        s.tensors[0].shape[d] = 1;
    EXPECT(try_spec(&s, &e), e, "tensor 0 (shape): rank 9 is more than 8");
}

static void rejects_negative_dimension(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].shape[1] = -1;
    EXPECT(try_spec(&s, &e), e, "tensor 0 (shape): dimension 1 is -1");
}

static void rejects_shape_signature_below_minus_one(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].sig_rank = 2;
    s.tensors[0].sig[0] = -2;
    s.tensors[0].sig[1] = 4;
    EXPECT(try_spec(&s, &e), e, "tensor 0 (shape_signature): dimension 0 is -2");
}

static void accepts_dynamic_shape_signature(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].sig_rank = 2;
    s.tensors[0].sig[0] = -1;
    s.tensors[0].sig[1] = 4;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void rejects_shape_signature_rank_mismatch(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].sig_rank = 1;
    s.tensors[0].sig[0] = -1;
    EXPECT(try_spec(&s, &e), e, "tensor 0 (shape_signature): rank 1 differs");
}

static void rejects_unknown_tensor_type(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].type = 40;
    EXPECT(try_spec(&s, &e), e, "tensor 0: type 40 unknown");
}

static void reports_schema_type_picolite_lacks_as_unsupported(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].type = 20;
    CHECK_EQ(try_spec(&s, &e), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(e.msg, "tensor 0: type 20 is not supported");
}

static void rejects_tensor_bytes_overflow(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].shape[0] = 65536;
    s.tensors[0].shape[1] = 65536;
    EXPECT(try_spec(&s, &e), e, "tensor 0: FLOAT32 tensor of rank 2 needs more than 2^31 - 1");
}

static void rejects_tensor_bytes_above_2gb(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[0].shape[0] = 0x20000000; /* 2^29 floats = 2^31 bytes */
    s.tensors[0].shape[1] = 1;
    EXPECT(try_spec(&s, &e), e, "needs more than 2^31 - 1 bytes");
}

static void rejects_constant_data_at_a_misaligned_address(void)
{
    mb_spec s;
    pl_error e;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, NULL);
    static _Alignas(16) uint8_t shifted[1 << 16];
    CHECK(n + 2 <= sizeof shifted);
    memcpy(shifted + 2, p, n); /* every address moves by 2: float data no longer 4-aligned */
    free(p);
    pl_model m;
    pl_error_clear(&e);
    EXPECT(pl_model_open(&m, shifted + 2, n, &e), e, "FLOAT32 data at an address not aligned to 4");
}

static void rejects_constant_buffer_too_small(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.buffers[1].n = 12;
    EXPECT(try_spec(&s, &e), e, "tensor 1: buffer 1 holds 12 bytes, FLOAT32 shape needs 16");
}

static void rejects_fewer_zero_points_than_scales(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 4;
    s.tensors[1].nzp = 2;
    s.tensors[1].qdim = 1;
    EXPECT(try_spec(&s, &e), e, "tensor 1 (quantization): 2 zero points for 4 scales");
}

/* TFLM's allocator gives every channel the first zero point when the counts differ. */
static void accepts_one_zero_point_for_every_scale(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 4;
    s.tensors[1].nzp = 1;
    s.tensors[1].qdim = 1;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void accepts_more_zero_points_than_scales(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 1;
    s.tensors[1].nzp = 2;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void accepts_stale_quantized_dimension_with_one_scale(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 1;
    s.tensors[1].nzp = 1;
    s.tensors[1].qdim = 3;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

/* TFLM's person detection model: per-channel biases (rank 1) with their filter's dimension 3. */
static void accepts_stale_quantized_dimension_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 4;
    s.tensors[1].nzp = 4;
    s.tensors[1].qdim = 3;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void rejects_scale_count_not_matching_channels(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 3;
    s.tensors[1].nzp = 3;
    s.tensors[1].qdim = 1;
    EXPECT(try_spec(&s, &e), e, "tensor 1 (quantization): 3 scales for dimension 1 of size 4");
}

/* LiteRT refuses scales without zero points; picolite's readers would index past them. */
static void rejects_scales_without_zero_points(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 1;
    EXPECT(try_spec(&s, &e), e, "tensor 1 (quantization): Quantization parameters has "
           "non-null scale but null zero_point (1 scales)");
}

/* The details union is read by neither TFLM nor picolite. */
static void accepts_unknown_quantization_details(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 1;
    s.tensors[1].nzp = 1;
    s.tensors[1].details_type = 9;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void accepts_per_channel_quantization(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.tensors[1].has_quant = 1;
    s.tensors[1].nscale = 4;
    s.tensors[1].nzp = 4;
    s.tensors[1].qdim = 1;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

/* ---- operators ---- */

static void rejects_opcode_index_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].opcode = 7;
    EXPECT(try_spec(&s, &e), e,
           "subgraph 0 operator 0: opcode index 7 out of range (1 operator codes)");
}

static void rejects_operator_input_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].in[1] = 55;
    EXPECT(try_spec(&s, &e), e,
           "subgraph 0 operator 0: input 1 is tensor 55, out of range (3 tensors)");
}

static void rejects_operator_input_below_minus_one(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].in[1] = -2;
    EXPECT(try_spec(&s, &e), e, "subgraph 0 operator 0: input 1 is tensor -2");
}

static void accepts_optional_operator_input(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].in[1] = -1;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void rejects_optional_operator_output(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].out[0] = -1;
    EXPECT(try_spec(&s, &e), e, "subgraph 0 operator 0: output 0 is tensor -1");
}

static void rejects_intermediate_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].ninter = 1;
    s.ops[0].inter[0] = 3;
    EXPECT(try_spec(&s, &e), e, "subgraph 0 operator 0: intermediate 0 is tensor 3");
}

/* Union types from a newer schema pass flatbuffers' verifier (LiteRT) and TFLM. */
static void accepts_unknown_builtin_options_type(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].opt_type = 200;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void accepts_unknown_builtin_options_2_type(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].opt2_type = 30;
    CHECK_EQ(try_spec(&s, &e), PL_OK);
}

static void rejects_broken_options_table(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t opt = target_of(p, w.op[0], 4);
    wr16(p, vt_of(p, opt), 3);
    EXPECT(try_open(p, n, &e), e, "subgraph 0 operator 0 (builtin_options): vtable size 3");
}

static void rejects_broken_options_vector(void)
{
    mb_spec s;
    pl_error e;
    mb_where w;
    size_t n;
    mb_default(&s);
    s.opcodes[0].code = 22; /* RESHAPE */
    s.ops[0].opt_type = 17; /* ReshapeOptions */
    s.ops[0].nvec = 2;
    s.ops[0].vec[0] = 1;
    s.ops[0].vec[1] = 4;
    uint8_t *p = mb_build(&s, &n, &w);
    uint32_t vec = target_of(p, target_of(p, w.op[0], 4), 0);
    wr32(p, vec, 0x01000000);
    EXPECT(try_open(p, n, &e), e, "subgraph 0 operator 0 (builtin_options): vector of 16777216");
}

static void rejects_control_flow_subgraph_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.opcodes[0].code = 118; /* IF */
    s.ops[0].opt_type = 92;  /* IfOptions.then_subgraph_index */
    s.ops[0].opt_field0 = 5;
    EXPECT(try_spec(&s, &e), e,
           "subgraph 0 operator 0 (builtin_options): field 0 is subgraph 5, out of range "
           "(1 subgraphs)");
}

static void rejects_large_custom_options_outside_file(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.ops[0].large_offset = 64;
    s.ops[0].large_size = 100000;
    EXPECT(try_spec(&s, &e), e, "subgraph 0 operator 0: large custom options at offset 64");
}

/* ---- buffers, metadata, signatures ---- */

static void rejects_external_buffer_outside_file(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.buffers[1].n = 0;
    s.buffers[1].offset = 4096;
    s.buffers[1].size = 16;
    EXPECT(try_spec(&s, &e), e, "buffer 1: data at offset 4096 size 16 is outside");
}

static void rejects_external_buffer_size_overflow(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.buffers[1].n = 0;
    s.buffers[1].offset = 16;
    s.buffers[1].size = UINT64_MAX - 8;
    EXPECT(try_spec(&s, &e), e, "buffer 1: data at offset 16");
}

/* A stale metadata entry is skipped by its readers, never followed out of the buffers. */
static void skips_metadata_with_buffer_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    pl_model m;
    size_t n;
    mb_default(&s);
    s.nmeta = 1;
    s.meta[0].name = "OfflineMemoryAllocation";
    s.meta[0].buffer = 9;
    uint8_t *p = mb_build(&s, &n, NULL);
    pl_error_clear(&e);
    CHECK_EQ(pl_model_open(&m, p, n, &e), PL_OK);
    CHECK_EQ(pl_model_metadata_find(&m, "OfflineMemoryAllocation").n, 0);
    free(p);
}

static void rejects_signature_subgraph_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.nsig = 1;
    s.sig_subgraph = 4;
    EXPECT(try_spec(&s, &e), e, "signature 0: subgraph 4 out of range (1 subgraphs)");
}

static void rejects_signature_tensor_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.nsig = 1;
    s.sig_in_tensor = 3;
    EXPECT(try_spec(&s, &e), e, "signature 0 (inputs): entry 0 is tensor 3, out of range");
}

static void rejects_signature_output_tensor_out_of_range(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.nsig = 1;
    s.sig_outputs = 1;
    s.sig_out_tensor = 7;
    EXPECT(try_spec(&s, &e), e, "signature 0 (outputs): entry 0 is tensor 7, out of range");
}

/* LiteRT refuses a model whose signature has no key ("Missing exported method name"). */
static void rejects_signature_without_key(void)
{
    mb_spec s;
    pl_error e;
    mb_default(&s);
    s.nsig = 1;
    s.sig_no_key = 1;
    EXPECT(try_spec(&s, &e), e, "signature 0: no signature_key");
}

/* LiteRT accepts a TensorMap without a name and leaves it out of the signature: the view
** has no name, and the tensor index is still checked. */
static void accepts_signature_entry_without_name(void)
{
    mb_spec s;
    pl_error e;
    pl_model m;
    size_t n;
    mb_default(&s);
    s.nsig = 1;
    s.sig_no_name = 1;
    s.sig_outputs = 1;
    uint8_t *p = mb_build(&s, &n, NULL);
    pl_error_clear(&e);
    CHECK_EQ(pl_model_open(&m, p, n, &e), PL_OK);
    pl_signature_view v;
    pl_bytes name;
    uint32_t tensor = 99;
    pl_model_signature(&m, 0, &v);
    CHECK_EQ(v.inputs.n, 1);
    pl_model_tensor_map(&m, v.inputs, 0, &name, &tensor);
    CHECK(name.p == NULL);
    CHECK_EQ(tensor, 0);
    pl_model_tensor_map(&m, v.outputs, 0, &name, &tensor);
    CHECK(name.n == 1 && name.p[0] == 'y');
    free(p);
    s.sig_in_tensor = 5;
    EXPECT(try_spec(&s, &e), e, "signature 0 (inputs): entry 0 is tensor 5, out of range");
}

/* Every byte of a model with a signature overwritten by each of a few values: the verifier
** either refuses the file with a message or accepts it, and then every signature it
** accepted names a subgraph in range and tensors in range of that subgraph. */
static void malformed_signatures_never_pass_out_of_range(void)
{
    static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    mb_spec s;
    size_t n;
    mb_default(&s);
    s.nsig = 1;
    s.sig_outputs = 1;
    s.sig_out_tensor = 1;
    uint8_t *good = mb_build(&s, &n, NULL);
    uint8_t *p = malloc(n);
    uint32_t accepted = 0, refused = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof values; k++) {
            pl_model m;
            pl_error e;
            memcpy(p, good, n);
            p[i] = values[k];
            pl_error_clear(&e);
            if (pl_model_open(&m, p, n, &e) != PL_OK) {
                CHECK(e.msg[0] != '\0');
                refused++;
                continue;
            }
            accepted++;
            for (uint32_t g = 0; g < pl_model_signature_count(&m); g++) {
                pl_signature_view v;
                pl_subgraph sg;
                pl_model_signature(&m, g, &v);
                CHECK(v.key.p != NULL);
                CHECK(v.subgraph < pl_model_subgraph_count(&m));
                pl_model_subgraph(&m, v.subgraph, &sg);
                for (int io = 0; io < 2; io++) {
                    pl_vec maps = io ? v.outputs : v.inputs;
                    for (uint32_t j = 0; j < maps.n; j++) {
                        pl_bytes name;
                        uint32_t tensor;
                        pl_model_tensor_map(&m, maps, j, &name, &tensor);
                        CHECK(tensor < sg.tensors.n);
                    }
                }
            }
        }
    }
    CHECK(accepted > 0 && refused > 0);
    free(p);
    free(good);
}

static void rejects_size_beyond_4gib_without_reading(void)
{
    pl_model m;
    pl_error e;
    uint8_t byte = 0;
    pl_error_clear(&e);
    if (sizeof(size_t) <= 4)
        return;
    CHECK_EQ(pl_model_open(&m, &byte, (size_t)UINT32_MAX + 1, &e), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(e.msg, "up to 4 GiB");
}

int main(void)
{
    RUN(accepts_default_model);
    RUN(rejects_too_small_file);
    RUN(rejects_wrong_identifier);
    RUN(rejects_root_offset_outside_buffer);
    RUN(rejects_misaligned_table);
    RUN(rejects_vtable_outside_buffer);
    RUN(rejects_misaligned_vtable);
    RUN(rejects_odd_vtable_size);
    RUN(rejects_vtable_past_end);
    RUN(rejects_table_size_past_end);
    RUN(rejects_field_outside_table);
    RUN(rejects_field_straddling_table_end);
    RUN(rejects_misaligned_field);
    RUN(rejects_offset_outside_buffer);
    RUN(rejects_zero_offset);
    RUN(rejects_vector_header_outside_buffer);
    RUN(rejects_misaligned_vector);
    RUN(rejects_vector_past_end);
    RUN(rejects_misaligned_int64_elements);
    RUN(rejects_unterminated_string);
    RUN(rejects_shared_offsets_beyond_budget);
    RUN(rejects_model_without_subgraphs);
    RUN(rejects_unknown_builtin_code);
    RUN(rejects_negative_builtin_code);
    RUN(rejects_subgraph_input_out_of_range);
    RUN(rejects_optional_subgraph_input);
    RUN(rejects_subgraph_output_out_of_range);
    RUN(rejects_tensor_buffer_out_of_range);
    RUN(rejects_rank_above_limit);
    RUN(rejects_negative_dimension);
    RUN(rejects_shape_signature_below_minus_one);
    RUN(accepts_dynamic_shape_signature);
    RUN(rejects_shape_signature_rank_mismatch);
    RUN(rejects_unknown_tensor_type);
    RUN(reports_schema_type_picolite_lacks_as_unsupported);
    RUN(rejects_tensor_bytes_overflow);
    RUN(rejects_tensor_bytes_above_2gb);
    RUN(rejects_constant_buffer_too_small);
    RUN(rejects_constant_data_at_a_misaligned_address);
    RUN(rejects_fewer_zero_points_than_scales);
    RUN(accepts_one_zero_point_for_every_scale);
    RUN(accepts_more_zero_points_than_scales);
    RUN(accepts_stale_quantized_dimension_with_one_scale);
    RUN(accepts_stale_quantized_dimension_out_of_range);
    RUN(rejects_scale_count_not_matching_channels);
    RUN(accepts_unknown_quantization_details);
    RUN(rejects_scales_without_zero_points);
    RUN(accepts_per_channel_quantization);
    RUN(rejects_opcode_index_out_of_range);
    RUN(rejects_operator_input_out_of_range);
    RUN(rejects_operator_input_below_minus_one);
    RUN(accepts_optional_operator_input);
    RUN(rejects_optional_operator_output);
    RUN(rejects_intermediate_out_of_range);
    RUN(accepts_unknown_builtin_options_type);
    RUN(accepts_unknown_builtin_options_2_type);
    RUN(rejects_broken_options_table);
    RUN(rejects_broken_options_vector);
    RUN(rejects_control_flow_subgraph_out_of_range);
    RUN(rejects_large_custom_options_outside_file);
    RUN(rejects_external_buffer_outside_file);
    RUN(rejects_external_buffer_size_overflow);
    RUN(skips_metadata_with_buffer_out_of_range);
    RUN(rejects_signature_subgraph_out_of_range);
    RUN(rejects_signature_tensor_out_of_range);
    RUN(rejects_signature_output_tensor_out_of_range);
    RUN(rejects_signature_without_key);
    RUN(accepts_signature_entry_without_name);
    RUN(malformed_signatures_never_pass_out_of_range);
    RUN(rejects_size_beyond_4gib_without_reading);
    return HARNESS_END();
}
