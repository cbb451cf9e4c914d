/* harness.h - a tiny C test harness: TEST(name) functions, CHECK macros, RUN in main. */
#ifndef PL_TEST_HARNESS_H
#define PL_TEST_HARNESS_H

#include <stdio.h>
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

#define HARNESS_END()                                                           \
    (printf("%d checks, %d failed\n", harness_checks, harness_failed),         \
     harness_failed == 0 ? 0 : 1)

#endif
