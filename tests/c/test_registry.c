/* test_registry.c - the builtin resolver's operator listing is exactly what it resolves. */
#include <string.h>

#include "harness.h"
#include "model/model.h"
#include "picolite/picolite.h"

static const pl_registration *resolve(int32_t code, const char *name)
{
    const pl_resolver *r = pl_builtin_resolver();
    uint32_t len = code == PL_BUILTIN_CUSTOM && name != NULL ? (uint32_t)strlen(name) : 0;
    return r->find(r->self, code, code == PL_BUILTIN_CUSTOM ? name : NULL, len, 1);
}

static void every_listed_op_resolves_under_its_name(void)
{
    int32_t code;
    for (uint32_t i = 0; i < pl_builtin_op_count(); i++) {
        const char *name = pl_builtin_op(i, &code);
        CHECK(name != NULL);
        const pl_registration *reg = resolve(code, name);
        CHECK(reg != NULL);
        if (code != PL_BUILTIN_CUSTOM)
            CHECK(strcmp(reg->name, name) == 0);
    }
}

static void every_resolved_builtin_code_is_listed_once(void)
{
    int32_t code;
    uint32_t resolved = 0, builtins = 0;
    for (int32_t c = 0; c < PL_BUILTIN_COUNT; c++)
        resolved += c != PL_BUILTIN_CUSTOM && resolve(c, NULL) != NULL;
    for (uint32_t i = 0; i < pl_builtin_op_count(); i++) {
        pl_builtin_op(i, &code);
        builtins += code != PL_BUILTIN_CUSTOM;
        for (uint32_t j = 0; j < i; j++) {
            int32_t other;
            const char *a = pl_builtin_op(i, &code), *b = pl_builtin_op(j, &other);
            CHECK(strcmp(a, b) != 0);
        }
    }
    CHECK_EQ(builtins, resolved);
}

static void index_past_the_end_gives_null(void)
{
    int32_t code = 0;
    CHECK(pl_builtin_op(pl_builtin_op_count(), &code) == NULL);
    CHECK_EQ(code, -1);
}

int main(void)
{
    RUN(every_listed_op_resolves_under_its_name);
    RUN(every_resolved_builtin_code_is_listed_once);
    RUN(index_past_the_end_gives_null);
    return HARNESS_END();
}
