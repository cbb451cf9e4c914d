/* resolver.c - a resolver over a caller's kernel list: only the listed kernels get linked. */
#include "picolite/pl_kernel.h"

#include <string.h>

static bool matches(const pl_kernel_entry *e, int32_t builtin_code, const char *custom_name,
                    uint32_t custom_len)
{
    if (e->builtin_code != builtin_code)
        return false;
    if (builtin_code != PL_BUILTIN_CUSTOM)
        return true;
    return e->custom_name != NULL && custom_name != NULL &&
           strlen(e->custom_name) == custom_len &&
           memcmp(e->custom_name, custom_name, custom_len) == 0;
}

const pl_registration *pl_list_resolver_find(const void *self, int32_t builtin_code,
                                             const char *custom_name, uint32_t custom_len,
                                             int32_t version)
{
    const pl_kernel_list *list = self;
    (void)version; /* kernels check the parameters a version implies in prepare */
    for (uint32_t i = 0; list != NULL && i < list->count; i++) {
        const pl_kernel_entry *e = &list->entries[i];
        if (e->get != NULL && matches(e, builtin_code, custom_name, custom_len))
            return e->get();
    }
    return NULL;
}
