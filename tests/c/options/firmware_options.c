/* firmware_options.c - the core built with the firmware options (CMakeLists.txt): a model
** that needs a left-out feature is refused with PL_ERR_UNSUPPORTED naming the option, and a
** model that needs none of them runs. Built three times (tests/c/CMakeLists.txt): with
** PL_NO_RESIZE, PL_NO_RESOURCE_VARIABLES and PL_NO_INTEGRITY; with PL_SINGLE_SUBGRAPH; and as
** the trimmed runtime (PL_NO_VERIFIER, PL_NO_MESSAGES, PL_GREEDY_ONLY), whose seal names no
** record but still refuses any damage. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "picolite/picolite.h"
#include "runtime/state.h"

static _Alignas(16) uint8_t arena[256 * 1024];

static uint8_t *load(const char *rel, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/models/%s", PL_SOURCE_DIR, rel);
    return harness_read(path, size);
}

/* Creates and allocates rel; the allocate status, the message in err. */
static pl_status allocate(const char *rel, pl_error *err, pl_interp **out, uint8_t **model)
{
    size_t n;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = pl_builtin_resolver();
    *out = NULL;
    *model = load(rel, &n);
    if (*model == NULL)
        return pl_error_set(err, PL_ERR_ARG, "cannot read %s", rel);
    pl_status s = pl_interp_create(*model, n, &opt, arena, sizeof arena, out, err);
    return s != PL_OK ? s : pl_interp_allocate(*out);
}

#if defined(PL_NO_RESIZE) || defined(PL_NO_RESOURCE_VARIABLES) || defined(PL_SINGLE_SUBGRAPH)
static void refuses(const char *rel, const char *option)
{
    pl_error err;
    pl_interp *it;
    uint8_t *model;
    pl_status s = allocate(rel, &err, &it, &model);
    if (it != NULL) {
        err = *pl_interp_error(it);
        pl_interp_destroy(it);
    }
    free(model);
    CHECK_EQ(s, PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, option);
}
#endif

/* A fixed-shape one-subgraph model needs none of the left-out features. */
static void runs_a_plain_model(void)
{
    pl_error err;
    pl_interp *it;
    uint8_t *model;
    CHECK_EQ(allocate("net_cnn_int8.tflite", &err, &it, &model), PL_OK);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(pl_interp_reset(it), PL_OK);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
#ifdef PL_NO_INTEGRITY
    pl_error mine;
    CHECK_EQ(pl_integrity_check(it, &mine), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(mine.msg, "PL_NO_INTEGRITY");
#endif
    pl_interp_destroy(it);
    free(model);
}

#ifdef PL_NO_RESIZE
static void refuses_resize_and_dynamic_dims(void)
{
    size_t n;
    uint8_t *model = load("net_cnn_int8.tflite", &n);
    CHECK(model != NULL);
    pl_error err;
    pl_interp *it;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = pl_builtin_resolver();
    CHECK_EQ(pl_interp_create(model, n, &opt, arena, sizeof arena, &it, &err), PL_OK);
    int32_t dims[4] = {2, 28, 28, 1};
    CHECK_EQ(pl_interp_resize_input(it, 0, 4, dims, false), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "PL_NO_RESIZE");
    pl_interp_destroy(it);
    free(model);
}

/* Most Keras exports have a dynamic batch (shape_signature [-1, ...]) and placeholder shapes
** of batch 1, which TFLM runs as they are: without resize they run at the model's shapes. */
static void runs_dynamic_batch_models_at_their_own_shapes(void)
{
    static const char *const models[] = {
        "resize/keras2_mlp_int8.tflite", "resize/keras2_mlp_float32.tflite",
        "resize/keras2_cnn_int8.tflite", "resize/keras2_cnn_float32.tflite",
        "resize/keras3_mlp_int8.tflite", "resize/keras3_mlp_float32.tflite",
        "resize/keras3_cnn_int8.tflite", "resize/keras3_cnn_float32.tflite",
    };
    for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
        pl_error err;
        pl_interp *it;
        uint8_t *model;
        pl_status s = allocate(models[k], &err, &it, &model);
        if (s != PL_OK)
            fprintf(stderr, "%s: %s\n", models[k], it != NULL ? pl_interp_error(it)->msg
                                                                : err.msg);
        CHECK_EQ(s, PL_OK);
        if (s == PL_OK)
            CHECK_EQ(pl_interp_invoke(it), PL_OK);
        pl_interp_destroy(it);
        free(model);
    }
}
#endif

#ifdef PL_NO_RESOURCE_VARIABLES
static void refuses_resource_variables(void)
{
    refuses("subgraphs/stream_ring_int8.tflite", "PL_NO_RESOURCE_VARIABLES");
}
#endif

#ifdef PL_SINGLE_SUBGRAPH
static void refuses_several_subgraphs(void)
{
    refuses("subgraphs/while_float32.tflite", "PL_SINGLE_SUBGRAPH");
}
#endif

#ifdef PL_NO_MESSAGES
/* Without messages the seal keeps no per-record sums (they only named the damage): a flipped
** byte in any record array or anywhere in the sealed tail still fails check and invoke. */
static void damage_fails_by_status(void)
{
    pl_error err, mine;
    pl_interp *it;
    uint8_t *model;
    CHECK_EQ(allocate("net_cnn_int8.tflite", &err, &it, &model), PL_OK);
    uint8_t *records[] = {(uint8_t *)&it->tensor_records[1].shape,
                          (uint8_t *)&it->node_records[0].opcode, (uint8_t *)&it->regs[0],
                          (uint8_t *)&it->opcode_count};
    for (size_t k = 0; k < sizeof records / sizeof *records; k++) {
        *records[k] ^= 0x21;
        CHECK_EQ(pl_integrity_check(it, &mine), PL_ERR_STATE);
        CHECK_EQ(pl_interp_invoke(it), PL_ERR_STATE);
        *records[k] ^= 0x21;
        CHECK_EQ(pl_integrity_check(it, &mine), PL_OK);
    }
    pl_recording rec;
    CHECK_EQ(pl_interp_recording(it, &rec), PL_OK);
    size_t caught = 0, tried = 0;
    for (size_t at = sizeof arena - rec.tail; at < sizeof arena; at += 13) {
        if (arena + at >= (uint8_t *)it && arena + at < (uint8_t *)(it + 1))
            continue; /* the record: its pointers are flipped above by field */
        arena[at] ^= 0xff;
        caught += pl_integrity_check(it, &mine) == PL_ERR_STATE;
        tried++;
        arena[at] ^= 0xff;
    }
    CHECK(tried > 10);
    CHECK_EQ(caught, tried);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    pl_interp_destroy(it);
    free(model);
}
#endif

int main(void)
{
    RUN(runs_a_plain_model);
#ifdef PL_NO_MESSAGES
    RUN(damage_fails_by_status);
#endif
#ifdef PL_NO_RESIZE
    RUN(refuses_resize_and_dynamic_dims);
    RUN(runs_dynamic_batch_models_at_their_own_shapes);
#endif
#ifdef PL_NO_RESOURCE_VARIABLES
    RUN(refuses_resource_variables);
#endif
#ifdef PL_SINGLE_SUBGRAPH
    RUN(refuses_several_subgraphs);
#endif
    return HARNESS_END();
}
