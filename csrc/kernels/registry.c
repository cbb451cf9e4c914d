/* registry.c - the builtin resolver: BuiltinOperator code -> kernel registration, and
** CUSTOM operators by the exact name TFLM registers them under. */
#include "registry.h"

#include <stddef.h>
#include <string.h>

#include "kernels/custom_list.h"

#include "picolite/picolite.h"

typedef struct entry {
    int32_t code;
    const pl_registration *(*get)(void);
    const char *name;
} entry;

#define PL_ENTRY(name, code, prefix) {code, pl_##prefix##_registration, #name},
static const entry entries[] = {
    PL_KERNEL_LIST(PL_ENTRY){-1, NULL, NULL},
};
#undef PL_ENTRY

typedef struct custom_entry {
    const char *name;
    const pl_registration *(*get)(void);
} custom_entry;

#define PL_CUSTOM_ENTRY(name, prefix) {name, pl_##prefix##_registration},
static const custom_entry customs[] = {
    PL_CUSTOM_KERNEL_LIST(PL_CUSTOM_ENTRY){NULL, NULL},
};
#undef PL_CUSTOM_ENTRY

/* Names compare as byte strings of the given length (the file's are not NUL-terminated). */
static const pl_registration *find_custom(const char *name, uint32_t len)
{
    for (size_t i = 0; name != NULL && customs[i].get != NULL; i++) {
        if (strlen(customs[i].name) == len && memcmp(customs[i].name, name, len) == 0)
            return customs[i].get();
    }
    return NULL;
}

static const pl_registration *find(const void *self, int32_t builtin_code,
                                   const char *custom_name, uint32_t custom_len,
                                   int32_t version)
{
    (void)self;
    (void)version; /* kernels check the parameters a version implies in prepare */
    if (builtin_code == PL_BUILTIN_CUSTOM)
        return find_custom(custom_name, custom_len);
    for (size_t i = 0; entries[i].get != NULL; i++) {
        if (entries[i].code == builtin_code)
            return entries[i].get();
    }
    return NULL;
}

static const pl_resolver builtin = {find, NULL};

const pl_resolver *pl_builtin_resolver(void)
{
    return &builtin;
}

/* ---- the listing: builtins in list order, then customs ---- */

#define PL_COUNT_ONE(...) +1
enum {
    BUILTIN_OPS = 0 PL_KERNEL_LIST(PL_COUNT_ONE),
    CUSTOM_OPS = 0 PL_CUSTOM_KERNEL_LIST(PL_COUNT_ONE)
};
#undef PL_COUNT_ONE

uint32_t pl_builtin_op_count(void)
{
    return BUILTIN_OPS + CUSTOM_OPS;
}

const char *pl_builtin_op(uint32_t index, int32_t *builtin_code)
{
    if (index >= pl_builtin_op_count()) {
        *builtin_code = -1;
        return NULL;
    }
    if (index < BUILTIN_OPS) {
        *builtin_code = entries[index].code;
        return entries[index].name;
    }
    *builtin_code = PL_BUILTIN_CUSTOM;
    return customs[index - BUILTIN_OPS].name;
}
