/* harness.h - a tiny C test harness: TEST(name) functions, CHECK macros, RUN in main. */
#ifndef PL_TEST_HARNESS_H
#define PL_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_failed;
static int harness_checks;

#define CHECK(cond)                                                             \
    do {                                                                        \
        harness_checks++;                                                       \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,    \
                    #cond);                                                     \
            harness_failed++;                                                   \
            return;                                                             \
        }                                                                       \
    } while (0)

#define CHECK_EQ(a, b)                                                          \
    do {                                                                        \
        long long ca_ = (long long)(a), cb_ = (long long)(b);                   \
        harness_checks++;                                                       \
        if (ca_ != cb_) {                                                       \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, \
                    __LINE__, #a, #b, ca_, cb_);                                \
            harness_failed++;                                                   \
            return;                                                             \
        }                                                                       \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                         \
    do {                                                                        \
        harness_checks++;                                                       \
        if (strstr((hay), (needle)) == NULL) {                                  \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, \
                    __LINE__, (hay), (needle));                                 \
            harness_failed++;                                                   \
            return;                                                             \
        }                                                                       \
    } while (0)

#define RUN(test)                                                               \
    do {                                                                        \
        int before_ = harness_failed;                                           \
        test();                                                                 \
        printf("%s %s\n", harness_failed == before_ ? "ok  " : "FAIL", #test);  \
    } while (0)

/* The bytes of the file at path (malloc'd, *size of them; an empty file's too), or NULL. */
static inline uint8_t *harness_read(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

#define HARNESS_END()                                                           \
    (printf("%d checks, %d failed\n", harness_checks, harness_failed),         \
     harness_failed == 0 ? 0 : 1)

#endif
