/* run_model.c - picolite from C alone: size the arena exactly, allocate, invoke, report.
**
**   cc -std=c11 run_model.c -I csrc/include libpicolite_core.a -lm -o run_model
**   ./run_model model.tflite
**
** The runtime never allocates: the arena below and the interpreter's record beside it are
** the only memory it uses. Here both are static, as on a microcontroller; the arena's size
** comes from pl_required_arena_size (with the same options, so the record is not in it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picolite/picolite.h"

#define ARENA_CAPACITY (4u << 20)

static _Alignas(16) uint8_t arena[ARENA_CAPACITY];
static _Alignas(16) uint8_t work[ARENA_CAPACITY];
static pl_interp_storage record;

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = n > 0 ? malloc((size_t)n) : NULL;
    if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static int fail(const char *what, const pl_error *err)
{
    fprintf(stderr, "%s: %s (%s)\n", what, err->msg, pl_status_name(err->status));
    return 1;
}

int main(int argc, char **argv)
{
    size_t model_size, required;
    pl_error err;
    pl_interp *it;
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.tflite\n", argv[0]);
        return 2;
    }
    uint8_t *model = read_file(argv[1], &model_size);
    if (model == NULL) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = pl_builtin_resolver(); /* every kernel; a firmware lists only its own */
    opt.storage = &record;
    if (pl_required_arena_size(model, model_size, &opt, work, sizeof work, &required, &err))
        return fail("required_arena_size", &err);
    /* Exactly the required size: one byte less would fail with PL_ERR_ARENA. */
    if (pl_interp_create(model, model_size, &opt, arena, required, &it, &err))
        return fail("create", &err);
    if (pl_interp_allocate(it) != PL_OK)
        return fail("allocate", pl_interp_error(it));
    for (uint32_t i = 0; i < pl_interp_input_count(it); i++) {
        pl_tensor_info in;
        pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, i), &in);
        memset(in.data, 0, in.bytes);
    }
    pl_status s = pl_interp_invoke(it);
    if (s != PL_OK && s != PL_ABORTED) /* aborted: a CIRCULAR_BUFFER between its runs */
        return fail("invoke", pl_interp_error(it));
    pl_tensor_info out;
    pl_interp_tensor(it, (uint32_t)pl_interp_output_index(it, 0), &out);
    printf("required arena: %zu bytes\noutput 0: %s, %zu bytes, first byte %d\n", required,
           pl_type_name(out.type), out.bytes, ((const int8_t *)out.data)[0]);
    pl_recording rec;
    char text[2048];
    pl_interp_recording(it, &rec);
    pl_recording_format(&rec, text, sizeof text);
    fputs(text, stdout);
    pl_interp_destroy(it);
    free(model);
    return 0;
}
