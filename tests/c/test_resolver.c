/* test_resolver.c - the list resolver: only the listed kernels, custom operators by name. */
#include "picolite/picolite.h"

#include "harness.h"

static const pl_registration conv = {.name = "CONV_2D", .builtin_code = 3};
static const pl_registration custom = {.name = "SIGNAL_FFT", .builtin_code = PL_BUILTIN_CUSTOM};

static const pl_registration *get_conv(void)
{
    return &conv;
}

static const pl_registration *get_custom(void)
{
    return &custom;
}

static const pl_kernel_entry entries[] = {{3, NULL, get_conv},
                                          {PL_BUILTIN_CUSTOM, "SignalFft", get_custom}};
static const pl_kernel_list list = {entries, 2};
static const pl_resolver resolver = {pl_list_resolver_find, &list};

static void listed_builtins_are_found(void)
{
    CHECK(resolver.find(resolver.self, 3, NULL, 0, 1) == &conv);
    CHECK(resolver.find(resolver.self, 3, NULL, 0, 7) == &conv);
}

static void unlisted_builtins_are_not_found(void)
{
    CHECK(resolver.find(resolver.self, 4, NULL, 0, 1) == NULL);
    CHECK(resolver.find(resolver.self, -1, NULL, 0, 1) == NULL);
}

static void custom_operators_match_the_whole_name(void)
{
    CHECK(resolver.find(resolver.self, PL_BUILTIN_CUSTOM, "SignalFft", 9, 1) == &custom);
    CHECK(resolver.find(resolver.self, PL_BUILTIN_CUSTOM, "SignalFftX", 10, 1) == NULL);
    CHECK(resolver.find(resolver.self, PL_BUILTIN_CUSTOM, "Signal", 6, 1) == NULL);
    CHECK(resolver.find(resolver.self, PL_BUILTIN_CUSTOM, NULL, 0, 1) == NULL);
}

static void an_empty_list_finds_nothing(void)
{
    static const pl_kernel_list empty = {NULL, 0};
    CHECK(pl_list_resolver_find(&empty, 3, NULL, 0, 1) == NULL);
}

int main(void)
{
    RUN(listed_builtins_are_found);
    RUN(unlisted_builtins_are_not_found);
    RUN(custom_operators_match_the_whole_name);
    RUN(an_empty_list_finds_nothing);
    return HARNESS_END();
}
