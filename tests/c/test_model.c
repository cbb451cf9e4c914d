/* test_model.c - the zero-copy model accessors, on built models and on the shared real ones. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "harness.h"
#include "model/model.h"
#include "model_builder.h"
#include "picolite/pl_kernel.h"

/* Builds and opens a spec; the caller frees *bytes. */
static pl_status open_spec(const mb_spec *s, pl_model *m, uint8_t **bytes)
{
    size_t n;
    pl_error e;
    pl_error_clear(&e);
    *bytes = mb_build(s, &n, NULL);
    pl_status st = pl_model_open(m, *bytes, n, &e);
    if (st != PL_OK)
        fprintf(stderr, "open: %s\n", e.msg);
    return st;
}

static int bytes_eq(pl_bytes b, const char *s)
{
    return b.n == strlen(s) && memcmp(b.p, s, b.n) == 0;
}

static void reads_model_counts(void)
{
    mb_spec s;
    pl_model m;
    uint8_t *p;
    mb_default(&s);
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    CHECK_EQ(pl_model_version(&m), 3);
    CHECK_EQ(pl_model_subgraph_count(&m), 1);
    CHECK_EQ(pl_model_opcode_count(&m), 1);
    CHECK_EQ(pl_model_buffer_count(&m), 2);
    CHECK_EQ(pl_model_metadata_count(&m), 0);
    free(p);
}

static void reads_subgraph(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    uint8_t *p;
    mb_default(&s);
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    CHECK_EQ(sg.tensors.n, 3);
    CHECK_EQ(sg.operators.n, 1);
    CHECK_EQ(sg.inputs.n, 1);
    CHECK_EQ(pl_vec_i32(sg.inputs, 0), 0);
    CHECK_EQ(sg.outputs.n, 1);
    CHECK_EQ(pl_vec_i32(sg.outputs, 0), 2);
    CHECK(bytes_eq(pl_model_subgraph_name(&m, 0), "main"));
    free(p);
}

static void reads_tensor(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_tensor_view t;
    uint8_t *p;
    mb_default(&s);
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_tensor(&m, &sg, 1, &t);
    CHECK_EQ(t.type, PL_FLOAT32);
    CHECK_EQ(t.buffer, 1);
    CHECK_EQ(t.shape.n, 2);
    CHECK_EQ(pl_vec_i32(t.shape, 0), 1);
    CHECK_EQ(pl_vec_i32(t.shape, 1), 4);
    CHECK_EQ(t.shape_signature.n, 0);
    CHECK(bytes_eq(t.name, "b"));
    CHECK_EQ(t.scale.n, 0);
    CHECK_EQ(t.zero_point.n, 0);
    CHECK_EQ(t.quantized_dimension, 0);
    CHECK(!t.is_variable);
    free(p);
}

static void reads_tensor_quantization_and_flags(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_tensor_view t;
    uint8_t *p;
    mb_default(&s);
    mb_tensor *x = &s.tensors[1];
    x->type = PL_INT8;
    x->has_quant = 1;
    x->nscale = 4;
    x->nzp = 4;
    x->qdim = 1;
    for (int i = 0; i < 4; i++) {
        x->scale[i] = 0.25f * (float)(i + 1);
        x->zp[i] = -128 + i;
    }
    x->is_variable = 1;
    x->sig_rank = 2;
    x->sig[0] = -1;
    x->sig[1] = 4;
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_tensor(&m, &sg, 1, &t);
    CHECK_EQ(t.type, PL_INT8);
    CHECK_EQ(t.scale.n, 4);
    CHECK(pl_vec_f32(t.scale, 2) == 0.75f);
    CHECK_EQ(t.zero_point.n, 4);
    CHECK_EQ(pl_vec_i64(t.zero_point, 3), -125);
    CHECK_EQ(t.quantized_dimension, 1);
    CHECK(t.is_variable);
    CHECK_EQ(t.shape_signature.n, 2);
    CHECK_EQ(pl_vec_i32(t.shape_signature, 0), -1);
    free(p);
}

static void reads_operator(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_op_view op;
    uint8_t *p;
    mb_default(&s);
    s.ops[0].ninter = 1;
    s.ops[0].inter[0] = 1;
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_operator(&m, &sg, 0, &op);
    CHECK_EQ(op.opcode_index, 0);
    CHECK_EQ(op.inputs.n, 2);
    CHECK_EQ(pl_vec_i32(op.inputs, 1), 1);
    CHECK_EQ(op.outputs.n, 1);
    CHECK_EQ(pl_vec_i32(op.outputs, 0), 2);
    CHECK_EQ(op.intermediates.n, 1);
    CHECK_EQ(op.options_type, 11);
    CHECK(op.options.buf != NULL);
    CHECK_EQ(pl_table_i32(&op.options, 0, 0), 1);
    CHECK_EQ(pl_table_i32(&op.options, 1, 42), 42); /* absent field: default */
    CHECK_EQ(op.options2_type, 0);
    CHECK(op.options2.buf == NULL);
    CHECK_EQ(op.custom_options.n, 0);
    free(p);
}

static void reads_optional_input_as_minus_one(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_op_view op;
    uint8_t *p;
    mb_default(&s);
    s.ops[0].in[1] = -1;
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_operator(&m, &sg, 0, &op);
    CHECK_EQ(pl_vec_i32(op.inputs, 1), -1);
    free(p);
}

static void reads_builtin_options_2(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_op_view op;
    uint8_t *p;
    mb_default(&s);
    s.ops[0].opt2_type = 21; /* StableHLOCompositeOptions */
    s.ops[0].has_opt2 = 1;
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_operator(&m, &sg, 0, &op);
    CHECK_EQ(op.options2_type, 21);
    CHECK_EQ(pl_table_i32(&op.options2, 0, 0), 7);
    free(p);
}

static void reads_custom_options(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_op_view op;
    pl_opcode_view oc;
    uint8_t *p;
    mb_default(&s);
    s.opcodes[0] = (mb_opcode){PL_BUILTIN_CUSTOM, PL_BUILTIN_CUSTOM, "MyOp", 0};
    s.ops[0].has_opt = 0;
    s.ops[0].opt_type = 0;
    s.ops[0].ncustom = 3;
    memcpy(s.ops[0].custom, "\x01\x02\x03", 3);
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_operator(&m, &sg, 0, &op);
    CHECK_EQ(op.custom_options.n, 3);
    CHECK_EQ(op.custom_options.p[2], 3);
    CHECK(op.options.buf == NULL);
    pl_model_opcode(&m, 0, &oc);
    CHECK_EQ(oc.builtin_code, PL_BUILTIN_CUSTOM);
    CHECK(bytes_eq(oc.custom_code, "MyOp"));
    CHECK_EQ(oc.version, 1);
    free(p);
}

static void reads_large_custom_options_after_the_flatbuffer(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_op_view op;
    uint8_t *p;
    size_t n;
    pl_error e;
    mb_default(&s);
    s.pad_after = 8;
    s.ops[0].large_offset = 2; /* placeholder, fixed below once the size is known */
    s.ops[0].large_size = 8;
    free(mb_build(&s, &n, NULL));
    s.ops[0].large_offset = n - 8;
    p = mb_build(&s, &n, NULL);
    memcpy(p + n - 8, "LARGEOPT", 8);
    pl_error_clear(&e);
    CHECK_EQ(pl_model_open(&m, p, n, &e), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_operator(&m, &sg, 0, &op);
    CHECK_EQ(op.custom_options.n, 8);
    CHECK(memcmp(op.custom_options.p, "LARGEOPT", 8) == 0);
    free(p);
}

static void reads_opcode_as_max_of_both_codes(void)
{
    mb_spec s;
    pl_model m;
    pl_opcode_view oc;
    uint8_t *p;
    mb_default(&s);
    s.nopcodes = 3;
    s.opcodes[0] = (mb_opcode){4, 0, NULL, 0};     /* old file: only the deprecated byte */
    s.opcodes[1] = (mb_opcode){127, 150, NULL, 3}; /* new code, placeholder byte */
    s.opcodes[2] = (mb_opcode){3, 3, NULL, 2};
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_opcode(&m, 0, &oc);
    CHECK_EQ(oc.builtin_code, 4);
    CHECK_EQ(oc.version, 1);
    pl_model_opcode(&m, 1, &oc);
    CHECK_EQ(oc.builtin_code, 150);
    CHECK_EQ(oc.version, 3);
    CHECK_EQ(oc.custom_code.n, 0);
    pl_model_opcode(&m, 2, &oc);
    CHECK_EQ(oc.builtin_code, 3);
    free(p);
}

static void reads_inline_buffer(void)
{
    mb_spec s;
    pl_model m;
    pl_buffer_view b;
    uint8_t *p;
    mb_default(&s);
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_buffer(&m, 0, &b);
    CHECK_EQ(b.data.n, 0);
    pl_model_buffer(&m, 1, &b);
    CHECK_EQ(b.data.n, 16);
    CHECK(pl_lef32(b.data.p + 4) == 2.0f);
    CHECK_EQ((uintptr_t)(b.data.p - p) % 16, 0); /* force_align 16 kept */
    free(p);
}

static void reads_external_buffer_from_file_offset(void)
{
    mb_spec s;
    pl_model m;
    pl_buffer_view b;
    pl_error e;
    size_t n;
    mb_default(&s);
    s.buffers[1].n = 0;
    s.buffers[1].offset = 2; /* placeholder, fixed below once the size is known */
    s.buffers[1].size = 16;
    s.pad_after = 16;
    free(mb_build(&s, &n, NULL));
    s.buffers[1].offset = n - 16;
    uint8_t *p = mb_build(&s, &n, NULL);
    memcpy(p + n - 16, "0123456789abcdef", 16);
    pl_error_clear(&e);
    CHECK_EQ(pl_model_open(&m, p, n, &e), PL_OK);
    pl_model_buffer(&m, 1, &b);
    CHECK_EQ(b.data.n, 16);
    CHECK(memcmp(b.data.p, "0123456789abcdef", 16) == 0);
    free(p);
}

static void finds_metadata_by_name(void)
{
    static const uint8_t plan[12] = {0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0};
    mb_spec s;
    pl_model m;
    pl_metadata_view md;
    uint8_t *p;
    mb_default(&s);
    s.nbuffers = 3;
    s.buffers[2] = (mb_buffer){12, plan, 0, 0};
    s.nmeta = 2;
    s.meta[0].name = "min_runtime_version";
    s.meta[0].buffer = 0;
    s.meta[1].name = "OfflineMemoryAllocation";
    s.meta[1].buffer = 2;
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    CHECK_EQ(pl_model_metadata_count(&m), 2);
    pl_model_metadata(&m, 1, &md);
    CHECK(bytes_eq(md.name, "OfflineMemoryAllocation"));
    CHECK_EQ(md.buffer, 2);
    pl_bytes b = pl_model_metadata_find(&m, "OfflineMemoryAllocation");
    CHECK_EQ(b.n, 12);
    CHECK_EQ(pl_le32(b.p + 8), 3);
    CHECK_EQ(pl_model_metadata_find(&m, "Offline").n, 0);
    CHECK_EQ(pl_model_metadata_find(&m, "absent").n, 0);
    free(p);
}

static void reads_option_vectors_checked(void)
{
    mb_spec s;
    pl_model m;
    pl_subgraph sg;
    pl_op_view op;
    uint8_t *p;
    mb_default(&s);
    s.opcodes[0].code = 22;
    s.ops[0].opt_type = 17; /* ReshapeOptions.new_shape */
    s.ops[0].nvec = 2;
    s.ops[0].vec[0] = 2;
    s.ops[0].vec[1] = 2;
    CHECK_EQ(open_spec(&s, &m, &p), PL_OK);
    pl_model_subgraph(&m, 0, &sg);
    pl_model_operator(&m, &sg, 0, &op);
    pl_vec v = pl_table_vec(&op.options, 0, 4);
    CHECK_EQ(v.n, 2);
    CHECK_EQ(pl_vec_i32(v, 1), 2);
    CHECK_EQ(pl_table_vec(&op.options, 3, 4).n, 0);  /* absent field */
    CHECK_EQ(pl_table_vec(&op.options2, 0, 4).n, 0); /* absent table */
    /* A vector that does not fit reads as empty, not out of bounds. */
    CHECK_EQ(pl_table_vec(&op.options, 0, 0x40000000).n, 0);
    free(p);
}

static void names_builtin_operators(void)
{
    CHECK(strcmp(pl_model_builtin_name(0), "ADD") == 0);
    CHECK(strcmp(pl_model_builtin_name(3), "CONV_2D") == 0);
    CHECK(strcmp(pl_model_builtin_name(9), "FULLY_CONNECTED") == 0);
    CHECK(strcmp(pl_model_builtin_name(PL_BUILTIN_CUSTOM), "CUSTOM") == 0);
    CHECK(strcmp(pl_model_builtin_name(44), "UNIDIRECTIONAL_SEQUENCE_LSTM") == 0);
    CHECK(strcmp(pl_model_builtin_name(114), "QUANTIZE") == 0);
    CHECK(strcmp(pl_model_builtin_name(PL_BUILTIN_COUNT - 1), "STABLEHLO_CASE") == 0);
    CHECK(strcmp(pl_model_builtin_name(PL_BUILTIN_COUNT), "UNKNOWN") == 0);
    CHECK(strcmp(pl_model_builtin_name(-1), "UNKNOWN") == 0);
}

static void rejects_null_data(void)
{
    pl_model m;
    pl_error e;
    pl_error_clear(&e);
    CHECK_EQ(pl_model_open(&m, NULL, 0, &e), PL_ERR_ARG);
}

/* ---- the shared real models ---- */


/* Touches every view of every object, as the runtime would. */
static uint64_t walk(const pl_model *m)
{
    uint64_t sum = 0;
    for (uint32_t s = 0; s < pl_model_subgraph_count(m); s++) {
        pl_subgraph sg;
        pl_model_subgraph(m, s, &sg);
        for (uint32_t i = 0; i < sg.tensors.n; i++) {
            pl_tensor_view t;
            pl_model_tensor(m, &sg, i, &t);
            for (uint32_t d = 0; d < t.shape.n; d++)
                sum += (uint32_t)pl_vec_i32(t.shape, d);
            sum += t.name.n + t.scale.n + t.zero_point.n + t.buffer;
        }
        for (uint32_t i = 0; i < sg.operators.n; i++) {
            pl_op_view op;
            pl_model_operator(m, &sg, i, &op);
            sum += op.inputs.n + op.outputs.n + op.custom_options.n + op.opcode_index;
        }
    }
    for (uint32_t i = 0; i < pl_model_buffer_count(m); i++) {
        pl_buffer_view b;
        pl_model_buffer(m, i, &b);
        sum += b.data.n ? b.data.p[b.data.n - 1] : 0;
    }
    return sum;
}

typedef void (*model_fn)(const char *path, const uint8_t *p, size_t n, int *failures);

/* Calls fn for every .tflite under dir (recursively); returns how many. */
static int each_model(const char *dir, model_fn fn, int *failures)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    int count = 0;
    if (d == NULL)
        return 0;
    while ((ent = readdir(d)) != NULL) {
        char path[1024];
        struct stat st;
        size_t len = strlen(ent->d_name);
        if (ent->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            count += each_model(path, fn, failures);
        } else if (len > 7 && strcmp(ent->d_name + len - 7, ".tflite") == 0) {
            size_t n;
            uint8_t *p = harness_read(path, &n);
            if (p != NULL)
                fn(path, p, n, failures);
            free(p);
            count++;
        }
    }
    closedir(d);
    return count;
}

static void verify_one(const char *path, const uint8_t *p, size_t n, int *failures)
{
    pl_model m;
    pl_error e;
    pl_error_clear(&e);
    if (pl_model_open(&m, p, n, &e) != PL_OK) {
        fprintf(stderr, "%s: %s\n", path, e.msg);
        (*failures)++;
        return;
    }
    (void)walk(&m);
}

static void verifies_every_shared_model(void)
{
    int failures = 0;
    int count = each_model(PL_SHARED_DIR "/models/tflm", verify_one, &failures);
    if (count == 0) {
        printf("note: %s/models/tflm absent, skipped\n", PL_SHARED_DIR);
        return;
    }
    printf("note: %d shared models verified\n", count);
    CHECK_EQ(failures, 0);
}

static uint8_t *open_shared(const char *rel, pl_model *m, size_t *n)
{
    char path[1024];
    pl_error e;
    snprintf(path, sizeof path, "%s/models/tflm/%s", PL_SHARED_DIR, rel);
    uint8_t *p = harness_read(path, n);
    pl_error_clear(&e);
    if (p != NULL && pl_model_open(m, p, *n, &e) != PL_OK) {
        fprintf(stderr, "%s: %s\n", path, e.msg);
        free(p);
        return NULL;
    }
    return p;
}

static int count_ops(const pl_model *m, int32_t code)
{
    pl_subgraph sg;
    pl_op_view op;
    pl_opcode_view oc;
    int count = 0;
    pl_model_subgraph(m, 0, &sg);
    for (uint32_t i = 0; i < sg.operators.n; i++) {
        pl_model_operator(m, &sg, i, &op);
        pl_model_opcode(m, op.opcode_index, &oc);
        count += oc.builtin_code == code;
    }
    return count;
}

static void reads_hello_world_facts(void)
{
    pl_model m;
    pl_subgraph sg;
    pl_tensor_view t;
    size_t n;
    uint8_t *p = open_shared("examples/hello_world/hello_world_int8.tflite", &m, &n);
    if (p == NULL) {
        printf("note: hello_world_int8.tflite absent, skipped\n");
        return;
    }
    pl_model_subgraph(&m, 0, &sg);
    int fc = count_ops(&m, 9);
    uint32_t ops = sg.operators.n;
    pl_model_tensor(&m, &sg, (uint32_t)pl_vec_i32(sg.inputs, 0), &t);
    int32_t rank = (int32_t)t.shape.n;
    int32_t d0 = rank > 0 ? pl_vec_i32(t.shape, 0) : -1;
    int32_t d1 = rank > 1 ? pl_vec_i32(t.shape, 1) : -1;
    uint32_t scales = t.scale.n;
    free(p); /* views point into p: read them first */
    CHECK_EQ(fc, 3);
    CHECK_EQ(ops, 3);
    CHECK_EQ(t.type, PL_INT8);
    CHECK_EQ(rank, 2);
    CHECK_EQ(d0, 1);
    CHECK_EQ(d1, 1);
    CHECK_EQ(scales, 1);
}

static void reads_simple_add_facts(void)
{
    pl_model m;
    pl_subgraph sg;
    size_t n;
    uint8_t *p = open_shared("examples/memory_footprint/simple_add_model.tflite", &m, &n);
    if (p == NULL) {
        printf("note: simple_add_model.tflite absent, skipped\n");
        return;
    }
    pl_model_subgraph(&m, 0, &sg);
    int adds = count_ops(&m, 0);
    uint32_t ops = sg.operators.n;
    free(p);
    CHECK_EQ(adds, 1);
    CHECK_EQ(ops, 1);
}

/* Truncations and byte flips of a real model must be rejected or verified, never crash;
** whatever verifies must be walkable (run under -fsanitize=address,undefined). */
static void mangle_one(const char *path, const uint8_t *p, size_t n, int *failures)
{
    pl_model m;
    pl_error e;
    uint8_t *copy = malloc(n);
    uint32_t rng = 12345u + (uint32_t)n;
    (void)path;
    (void)failures;
    for (int k = 0; k < 64; k++) {
        size_t len = (size_t)((uint64_t)n * (uint64_t)k / 64u);
        uint8_t *cut = malloc(len ? len : 1);
        memcpy(cut, p, len);
        if (pl_model_open(&m, cut, len, &e) == PL_OK)
            (void)walk(&m);
        free(cut);
    }
    for (int k = 0; k < 256; k++) {
        memcpy(copy, p, n);
        for (int flips = 0; flips < 1 + k % 4; flips++) {
            rng = rng * 1664525u + 1013904223u;
            size_t at = (size_t)(rng >> 8) % n;
            /* Most structure sits in the first and last KiB: aim half the flips there. */
            if (k % 2 && n > 2048)
                at = (rng >> 20) % 2 ? at % 1024 : n - 1 - at % 1024;
            copy[at] ^= (uint8_t)(1u << (rng % 8));
        }
        if (pl_model_open(&m, copy, n, &e) == PL_OK)
            (void)walk(&m);
    }
    free(copy);
}

static void survives_truncated_and_flipped_models(void)
{
    int failures = 0;
    int count = each_model(PL_SHARED_DIR "/models/tflm", mangle_one, &failures);
    if (count == 0)
        printf("note: %s/models/tflm absent, skipped\n", PL_SHARED_DIR);
    CHECK_EQ(failures, 0);
}

int main(void)
{
    RUN(reads_model_counts);
    RUN(reads_subgraph);
    RUN(reads_tensor);
    RUN(reads_tensor_quantization_and_flags);
    RUN(reads_operator);
    RUN(reads_optional_input_as_minus_one);
    RUN(reads_builtin_options_2);
    RUN(reads_custom_options);
    RUN(reads_large_custom_options_after_the_flatbuffer);
    RUN(reads_opcode_as_max_of_both_codes);
    RUN(reads_inline_buffer);
    RUN(reads_external_buffer_from_file_offset);
    RUN(finds_metadata_by_name);
    RUN(reads_option_vectors_checked);
    RUN(names_builtin_operators);
    RUN(rejects_null_data);
    RUN(verifies_every_shared_model);
    RUN(reads_hello_world_facts);
    RUN(reads_simple_add_facts);
    RUN(survives_truncated_and_flipped_models);
    return HARNESS_END();
}
