/* test_fast_seal.c - the arena seal's vector hash of the tail (pl_fast_seal_feed_for, for
** pl_interp_options.seal_feed): the same bytes and state give the same lanes, and changing
** any one byte, anywhere in a range of any length and alignment (whole 128-byte blocks, 32-byte
** blocks, a zero-padded last one), changes them; so does the state it starts from. */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"

enum { MAX_N = 700 };

static unsigned char bytes[MAX_N + 64];

static void feed(pl_fast_seal_feed_fn *fn, const uint64_t start[4], const unsigned char *b,
                 size_t n, uint64_t out[4])
{
    memcpy(out, start, 4 * sizeof(uint64_t));
    fn(out, b, n);
}

static void every_byte_changes_the_lanes(void)
{
    pl_fast_seal_feed_fn *fn = pl_fast_seal_feed_for(pl_fast_best_isa());
    printf("  %s: %s\n", pl_fast_isa_name(pl_fast_best_isa()),
           fn != NULL ? "vector seal hash" : "portable seal hash (no vector one)");
    if (fn == NULL)
        return;
    int missed = 0, unstable = 0, cases = 0;
    for (int round = 0; round < 200; round++) {
        const size_t n = (size_t)between(0, MAX_N), at = (size_t)between(0, 63);
        uint64_t start[4], want[4], again[4], got[4];
        for (int k = 0; k < 4; k++)
            start[k] = (uint64_t)rnd() << 32 | rnd();
        for (size_t i = 0; i < n + at; i++)
            bytes[i] = (unsigned char)rnd();
        const unsigned char *b = bytes + at;
        feed(fn, start, b, n, want);
        feed(fn, start, b, n, again);
        unstable += memcmp(want, again, sizeof want) != 0;
        for (size_t i = 0; i < n; i++) {
            const unsigned char keep = b[i];
            bytes[at + i] ^= (unsigned char)(1u << between(0, 7));
            feed(fn, start, b, n, got);
            missed += memcmp(want, got, sizeof want) == 0;
            bytes[at + i] = keep;
            cases++;
        }
        start[between(0, 3)] ^= (uint64_t)1 << between(0, 63);
        feed(fn, start, b, n, got);
        missed += memcmp(want, got, sizeof want) == 0;
    }
    printf("  %d single-byte changes, %d missed\n", cases, missed);
    CHECK_EQ(unstable, 0);
    CHECK_EQ(missed, 0);
    CHECK(cases > 20000);
}

int main(void)
{
    RUN(every_byte_changes_the_lanes);
    return HARNESS_END();
}
