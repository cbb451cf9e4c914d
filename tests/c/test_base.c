/* test_base.c - the error record and the message formatter. */
#include "base/fmt.h"
#include "harness.h"
#include "picolite/pl_status.h"
#include "picolite/pl_types.h"

static void formats_integers_and_strings(void)
{
    char buf[64];
    pl_fmt(buf, sizeof buf, "tensor %u: buffer %d out of range (%zu buffers) %s", 12u, -99,
           (size_t)43, "x");
    CHECK(strcmp(buf, "tensor 12: buffer -99 out of range (43 buffers) x") == 0);
}

/* 64-bit values are divided in 32-bit steps (fmt.c): the extremes of every base. */
static void formats_64_bit_extremes(void)
{
    char buf[96];
    pl_fmt(buf, sizeof buf, "%llu %lld %llx %llu %llu", 18446744073709551615ull,
           -9223372036854775807ll - 1, 0xfedcba9876543210ull, 4294967296ull, 0ull);
    CHECK(strcmp(buf, "18446744073709551615 -9223372036854775808 fedcba9876543210 "
                      "4294967296 0") == 0);
}

static void truncates_and_reports_full_length(void)
{
    char buf[8];
    size_t n = pl_fmt(buf, sizeof buf, "%s", "0123456789");
    CHECK_EQ(n, 10);
    CHECK(strcmp(buf, "0123456") == 0);
}

static void formats_doubles_like_g(void)
{
    char buf[32];
    pl_fmt(buf, sizeof buf, "%g %g %g %g", 0.5, 1234.0, 1e-7, 0.00390625);
    CHECK(strcmp(buf, "0.5 1234 1e-07 0.00390625") == 0 || strcmp(buf, "0.5 1234 1e-7 0.00390625") == 0);
    pl_fmt(buf, sizeof buf, "%g %g", 0.0, 100.0);
    CHECK(strcmp(buf, "0 100") == 0);
}

static void formats_precision_strings(void)
{
    char buf[16];
    pl_fmt(buf, sizeof buf, "[%.*s]", 3, "abcdef");
    CHECK(strcmp(buf, "[abc]") == 0);
}

static void error_set_returns_status(void)
{
    pl_error err;
    pl_error_clear(&err);
    CHECK_EQ(err.node, -1);
    CHECK_EQ(pl_error_set(&err, PL_ERR_MODEL, "bad %s", "vtable"), PL_ERR_MODEL);
    CHECK_EQ(err.status, PL_ERR_MODEL);
    CHECK(strcmp(err.msg, "bad vtable") == 0);
    CHECK_EQ(pl_error_set(NULL, PL_ERR_ARG, "ignored"), PL_ERR_ARG);
}

static void type_sizes_follow_the_schema(void)
{
    CHECK_EQ(pl_type_size(PL_FLOAT32), 4);
    CHECK_EQ(pl_type_size(PL_INT8), 1);
    CHECK_EQ(pl_type_size(PL_INT16), 2);
    CHECK_EQ(pl_type_size(PL_INT64), 8);
    CHECK_EQ(pl_type_size(PL_RESOURCE), 4); /* a handle (int32 id), as TFLM sizes it */
    CHECK_EQ(pl_type_size(99), 0);
    CHECK(strcmp(pl_type_name(PL_INT8), "INT8") == 0);
    CHECK_EQ(pl_type_bytes(PL_INT16, 5), 10);
    CHECK_EQ(pl_type_bytes(PL_STRING, 3), 4 * 5 + 64 * 3); /* header + 64 bytes a string */
    CHECK_EQ(pl_type_bytes(PL_STRING, 0), 8);
}

int main(void)
{
    RUN(formats_integers_and_strings);
    RUN(formats_64_bit_extremes);
    RUN(truncates_and_reports_full_length);
    RUN(formats_doubles_like_g);
    RUN(formats_precision_strings);
    RUN(error_set_returns_status);
    RUN(type_sizes_follow_the_schema);
    return HARNESS_END();
}
