/* registry.c - the builtin resolver: BuiltinOperator code -> kernel registration. */
#include "registry.h"

#include <stddef.h>

#include "picolite/picolite.h"

typedef struct entry {
    int32_t code;
    const pl_registration *(*get)(void);
} entry;

#define PL_ENTRY(name, code, prefix) {code, pl_##prefix##_registration},
static const entry entries[] = {
    PL_KERNEL_LIST(PL_ENTRY){-1, NULL},
};
#undef PL_ENTRY

static const pl_registration *find(const void *self, int32_t builtin_code,
                                   const char *custom_name, uint32_t custom_len,
                                   int32_t version)
{
    (void)self;
    (void)custom_name;
    (void)custom_len;
    (void)version; /* kernels check the parameters a version implies in prepare */
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
