/* test_flexbuffer.c - the FlexBuffer reader: every scalar width and type, vectors, maps,
** strings, and hostile bytes (truncation, offsets outside, huge lengths, cycles, nesting). */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "model/flexbuffer.h"

/* Made by Python's flatbuffers.flexbuffers.Builder: a map of a..p (see find() below). */
static const uint8_t options[] = {
    97, 0, 98, 0, 99, 0, 100, 0, 101, 0, 3, 1, 2, 3, 102, 0, 2, 104, 105, 0, 103, 0, 0, 0,
    2, 0, 0, 0, 0, 0, 192, 63, 0, 0, 32, 64, 104, 0, 105, 0, 120, 0, 1, 3, 1, 1, 1, 7, 4,
    106, 0, 1, 115, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 64, 6, 20, 14,
    107, 0, 108, 0, 109, 0, 251, 110, 0, 0, 0, 128, 62, 111, 0, 2, 1, 2, 112, 0, 3, 4, 5,
    16, 99, 98, 97, 96, 95, 90, 85, 70, 69, 59, 34, 33, 32, 30, 25, 21, 0, 0, 0, 0, 0, 21,
    0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
    0, 0, 212, 254, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 4, 64, 1, 0, 0, 0, 0, 0,
    0, 0, 165, 0, 0, 0, 0, 0, 0, 0, 167, 0, 0, 0, 0, 0, 0, 0, 164, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 1, 0, 0, 161, 0, 0, 0, 0, 0, 0, 0, 156, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 128, 255, 255, 255, 255, 255, 255, 255, 255, 159, 0, 0, 0, 0, 0, 0, 0, 164, 0, 0,
    0, 0, 0, 0, 0, 165, 0, 0, 0, 0, 0, 0, 0, 169, 0, 0, 0, 0, 0, 0, 0, 7, 7, 15, 107, 44,
    20, 54, 7, 36, 42, 7, 11, 24, 34, 100, 76, 144, 39, 1
};
static const uint8_t nested40[] = {
    1, 0, 4, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40,
    1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3,
    40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1,
    3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40,
    1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 2, 40, 1
};
static const uint8_t nested31[] = {
    1, 0, 4, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40,
    1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3,
    40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1,
    3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 1, 3, 40, 2, 40, 1
};

static pl_error err;

static pl_bytes bytes_of(const uint8_t *p, size_t n)
{
    return (pl_bytes){p, (uint32_t)n};
}

/* The value under key in the options map (the test fails when it is missing). */
static int find(const char *key, pl_flex *out)
{
    pl_flex root;
    bool found = false;
    if (pl_flex_root(bytes_of(options, sizeof options), &root, &err) != PL_OK)
        return 0;
    if (pl_flex_map_find(&root, key, out, &found, &err) != PL_OK)
        return 0;
    return found;
}

static void test_ints_of_every_width(void)
{
    pl_flex v;
    int64_t i;
    uint64_t u;
    CHECK(find("a", &v));
    CHECK_EQ(pl_flex_int(&v, &i, &err), PL_OK);
    CHECK_EQ(i, 1);
    CHECK(find("b", &v));
    CHECK_EQ(pl_flex_int(&v, &i, &err), PL_OK);
    CHECK_EQ(i, -300);
    CHECK(find("h", &v));
    CHECK_EQ(pl_flex_int(&v, &i, &err), PL_OK);
    CHECK_EQ(i, 1LL << 40);
    CHECK(find("k", &v));
    CHECK_EQ(pl_flex_int(&v, &i, &err), PL_OK);
    CHECK(i == INT64_MIN);
    CHECK(find("l", &v));
    CHECK_EQ(pl_flex_uint(&v, &u, &err), PL_OK);
    CHECK(u == UINT64_MAX);
    CHECK(find("m", &v));
    CHECK_EQ(v.type, PL_FLEX_INDIRECT_INT);
    CHECK_EQ(pl_flex_int(&v, &i, &err), PL_OK);
    CHECK_EQ(i, -5);
}

static void test_floats_bools_and_conversions(void)
{
    pl_flex v;
    double d;
    int64_t i;
    bool b;
    CHECK(find("c", &v));
    CHECK_EQ(pl_flex_double(&v, &d, &err), PL_OK);
    CHECK(d == 2.5);
    CHECK_EQ(pl_flex_int(&v, &i, &err), PL_OK); /* truncates, as AsInt64 does */
    CHECK_EQ(i, 2);
    CHECK(find("n", &v));
    CHECK_EQ(pl_flex_double(&v, &d, &err), PL_OK);
    CHECK(d == 0.25);
    CHECK(find("d", &v));
    CHECK_EQ(pl_flex_bool(&v, &b, &err), PL_OK);
    CHECK(b);
    CHECK(find("a", &v));
    CHECK_EQ(pl_flex_double(&v, &d, &err), PL_OK);
    CHECK(d == 1.0);
}

static void test_typed_and_untyped_vectors(void)
{
    pl_flex v, e;
    pl_flex_vec vec;
    int64_t i;
    double d;
    pl_bytes s;
    CHECK(find("e", &v));
    CHECK_EQ(pl_flex_vector(&v, &vec, &err), PL_OK);
    CHECK_EQ(vec.n, 3);
    CHECK_EQ(pl_flex_elem(&vec, 2, &e, &err), PL_OK);
    CHECK_EQ(pl_flex_int(&e, &i, &err), PL_OK);
    CHECK_EQ(i, 3);
    CHECK_EQ(pl_flex_elem(&vec, 3, &e, &err), PL_ERR_ARG);
    CHECK(find("g", &v));
    CHECK_EQ(pl_flex_vector(&v, &vec, &err), PL_OK);
    CHECK_EQ(pl_flex_elem(&vec, 1, &e, &err), PL_OK);
    CHECK_EQ(pl_flex_double(&e, &d, &err), PL_OK);
    CHECK(d == 2.5);
    CHECK(find("j", &v));
    CHECK_EQ(pl_flex_vector(&v, &vec, &err), PL_OK);
    CHECK_EQ(vec.n, 3);
    CHECK_EQ(pl_flex_elem(&vec, 1, &e, &err), PL_OK);
    CHECK_EQ(pl_flex_string(&e, &s, &err), PL_OK);
    CHECK(s.n == 1 && s.p[0] == 's');
    CHECK(find("p", &v));
    CHECK_EQ(pl_flex_vector(&v, &vec, &err), PL_OK);
    CHECK_EQ(vec.n, 3);
    CHECK_EQ(pl_flex_elem(&vec, 0, &e, &err), PL_OK);
    CHECK_EQ(pl_flex_int(&e, &i, &err), PL_OK);
    CHECK_EQ(i, 3);
}

static void test_strings_blobs_and_nested_maps(void)
{
    pl_flex v, x;
    pl_bytes s;
    bool found;
    int64_t i;
    CHECK(find("f", &v));
    CHECK_EQ(pl_flex_string(&v, &s, &err), PL_OK);
    CHECK(s.n == 2 && memcmp(s.p, "hi", 2) == 0);
    CHECK(find("o", &v));
    CHECK_EQ(pl_flex_string(&v, &s, &err), PL_OK);
    CHECK(s.n == 2 && s.p[1] == 2);
    CHECK(find("i", &v));
    CHECK_EQ(pl_flex_map_find(&v, "x", &x, &found, &err), PL_OK);
    CHECK(found);
    CHECK_EQ(pl_flex_int(&x, &i, &err), PL_OK);
    CHECK_EQ(i, 7);
}

static void test_missing_keys_and_wrong_types(void)
{
    pl_flex v;
    pl_bytes s;
    int64_t i;
    CHECK(!find("zz", &v));
    CHECK(!find("", &v));
    CHECK(!find("aa", &v));
    CHECK(find("f", &v));
    CHECK_EQ(pl_flex_int(&v, &i, &err), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "is not a number");
    CHECK(find("a", &v));
    CHECK_EQ(pl_flex_string(&v, &s, &err), PL_ERR_MODEL);
}

static void test_whole_buffer_checks(void)
{
    CHECK_EQ(pl_flex_check(bytes_of(options, sizeof options), &err), PL_OK);
    CHECK_EQ(pl_flex_check(bytes_of(nested31, sizeof nested31), &err), PL_OK);
}

static void test_deep_nesting_is_refused(void)
{
    CHECK_EQ(pl_flex_check(bytes_of(nested40, sizeof nested40), &err), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "nested deeper than 32");
}

static void test_cycle_is_refused(void)
{
    /* an untyped vector at byte 1 whose only element points back at the vector itself */
    static const uint8_t cycle[] = {1, 0, 40, 2, 40, 1};
    CHECK_EQ(pl_flex_check(bytes_of(cycle, sizeof cycle), &err), PL_ERR_MODEL);
}

static void test_bad_roots(void)
{
    static const uint8_t width3[] = {0, 0, 4, 3};
    static const uint8_t unknown_type[] = {0, 30u << 2, 1};
    static const uint8_t too_wide[] = {0, 4, 8};
    pl_flex root;
    CHECK_EQ(pl_flex_root(bytes_of(width3, 2), &root, &err), PL_ERR_MODEL);
    CHECK_EQ(pl_flex_root(bytes_of(width3, sizeof width3), &root, &err), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "root width 3");
    CHECK_EQ(pl_flex_root(bytes_of(unknown_type, sizeof unknown_type), &root, &err),
             PL_ERR_MODEL);
    CHECK_EQ(pl_flex_root(bytes_of(too_wide, sizeof too_wide), &root, &err), PL_ERR_MODEL);
}

static void test_offsets_and_lengths_outside(void)
{
    /* a string whose offset points 200 bytes back in a 4-byte buffer */
    static const uint8_t before[] = {0, 200, PL_FLEX_STRING << 2, 1};
    /* a vector of ints claiming 255 elements */
    static const uint8_t huge[] = {255, 1, 2, 3, PL_FLEX_VECTOR_INT << 2, 1};
    /* a 64-bit length of 2^64-1 */
    static const uint8_t wrap[] = {255, 255, 255, 255, 255, 255, 255, 255, 0, 1,
                                   (PL_FLEX_VECTOR_INT << 2) | 3, 1};
    pl_flex root;
    pl_flex_vec vec;
    pl_bytes s;
    CHECK_EQ(pl_flex_root(bytes_of(before, sizeof before), &root, &err), PL_OK);
    CHECK_EQ(pl_flex_string(&root, &s, &err), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "points before the buffer");
    CHECK_EQ(pl_flex_root(bytes_of(huge, sizeof huge), &root, &err), PL_OK);
    CHECK_EQ(pl_flex_vector(&root, &vec, &err), PL_ERR_MODEL);
    CHECK_EQ(pl_flex_root(bytes_of(wrap, sizeof wrap), &root, &err), PL_OK);
    CHECK_EQ(pl_flex_vector(&root, &vec, &err), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "exceeds");
}

/* Every prefix and every one-byte corruption of a valid buffer: errors, never a crash
** (run under ASan in CI), and whatever still reads must read inside the buffer. */
static void test_truncations_and_corruptions_never_crash(void)
{
    uint8_t copy[sizeof options];
    int ok = 0;
    for (size_t n = 0; n < sizeof options; n++) {
        memcpy(copy, options + sizeof options - n, n); /* the tail: the root is at the end */
        ok += pl_flex_check(bytes_of(copy, n), &err) == PL_OK;
    }
    for (size_t i = 0; i < sizeof options; i++) {
        static const uint8_t values[] = {0, 1, 0x7f, 0x80, 0xff};
        for (size_t k = 0; k < sizeof values; k++) {
            memcpy(copy, options, sizeof options);
            copy[i] = values[k];
            pl_flex v;
            bool found;
            pl_flex root;
            if (pl_flex_root(bytes_of(copy, sizeof copy), &root, &err) == PL_OK)
                (void)pl_flex_map_find(&root, "h", &v, &found, &err);
            ok += pl_flex_check(bytes_of(copy, sizeof copy), &err) == PL_OK;
        }
    }
    CHECK(ok > 0); /* some corruptions (in values) stay valid */
}

int main(void)
{
    RUN(test_ints_of_every_width);
    RUN(test_floats_bools_and_conversions);
    RUN(test_typed_and_untyped_vectors);
    RUN(test_strings_blobs_and_nested_maps);
    RUN(test_missing_keys_and_wrong_types);
    RUN(test_whole_buffer_checks);
    RUN(test_deep_nesting_is_refused);
    RUN(test_cycle_is_refused);
    RUN(test_bad_roots);
    RUN(test_offsets_and_lengths_outside);
    RUN(test_truncations_and_corruptions_never_crash);
    return HARNESS_END();
}
