/* test_recording.c - TFLM's category names and RecordingMicroAllocator text, exactly (and
** picolite's own report in the same words, headed [picolite]). */
#include "harness.h"
#include "picolite/pl_interp.h"

/* The figures of TFLM's memory_arena_threshold_test example, plus picolite's own. */
static pl_recording sample(void)
{
    pl_recording rec = {0};
    rec.total = 9568;
    rec.head = 7744;
    rec.head_tensors = 7232;
    rec.head_scratch = 512;
    rec.tail = 1824;
    rec.temp_high_water = 240;
    rec.peak = 9808;
    rec.lower_bound = 7232;
    rec.planner = PL_PLANNER_GREEDY;
    rec.cat[PL_CAT_EVAL_TENSOR] = (pl_recording_entry){360, 360, 15};
    rec.cat[PL_CAT_NODE] = (pl_recording_entry){392, 392, 7};
    rec.cat[PL_CAT_OP_DATA] = (pl_recording_entry){136, 136, 5};
    return rec;
}

/* TFLM's lines, as its RecordingMicroAllocator prints them. */
#define TFLM_LINES(label)                                                                    \
    label " Arena allocation total 9568 bytes\n"                                             \
    label " Arena allocation head 7744 bytes\n"                                              \
    label " Arena allocation tail 1824 bytes\n"                                              \
    label " 'TfLiteEvalTensor data' used 360 bytes with alignment overhead "                 \
    "(requested 360 bytes for 15 allocations)\n"                                             \
    label " 'NodeAndRegistration struct' used 392 bytes with alignment "                     \
    "overhead (requested 392 bytes for 7 NodeAndRegistration structs)\n"                     \
    label " 'Operator runtime data' used 136 bytes with alignment overhead "                 \
    "(requested 136 bytes for 5 OpData structs)\n"

static const char tflm_expected[] = TFLM_LINES("[RecordingMicroAllocator]");

/* picolite's own arena: the same words headed [picolite], then its own lines. */
static const char expected[] =
    TFLM_LINES("[picolite]")
    "[picolite] head: 7232 bytes tensors + 512 bytes scratch\n"
    "[picolite] planner greedy, lower bound 7232 bytes\n"
    "[picolite] temp high-water 240 bytes\n"
    "[picolite] arena peak 9808 bytes (the exact size needed)\n";

static void category_names_are_tflms(void)
{
    static const char *const want[PL_CAT_COUNT] = {
        "TfLiteEvalTensor data", "Persistent TfLiteTensor data",
        "Persistent TfLiteTensor quantization data", "Persistent buffer data",
        "TfLiteTensor variable buffer data", "NodeAndRegistration struct",
        "Operator runtime data", "Resource variable data",
    };
    for (int c = 0; c < PL_CAT_COUNT; c++)
        CHECK(strcmp(pl_category_name((pl_category)c), want[c]) == 0);
    CHECK(strcmp(pl_category_name(PL_CAT_COUNT), "unknown") == 0);
}

static void formats_tflm_text_and_skips_empty_categories(void)
{
    pl_recording rec = sample();
    char buf[2048];
    size_t n = pl_recording_format(&rec, buf, sizeof buf);
    CHECK(strcmp(buf, expected) == 0);
    CHECK_EQ(n, strlen(expected));
}

static void formats_tflms_own_lines_for_tflms_figures(void)
{
    pl_recording rec = sample();
    char buf[2048];
    size_t n = pl_recording_format_tflm(&rec, buf, sizeof buf);
    CHECK(strcmp(buf, tflm_expected) == 0);
    CHECK_EQ(n, strlen(tflm_expected));
    CHECK_EQ(pl_recording_format_tflm(&rec, NULL, 0), strlen(tflm_expected));
}

static void names_every_category_with_its_noun(void)
{
    pl_recording rec = sample();
    for (int c = 0; c < PL_CAT_COUNT; c++)
        rec.cat[c] = (pl_recording_entry){16 * (size_t)(c + 1), 10, 1};
    char buf[4096];
    pl_recording_format(&rec, buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "'Persistent TfLiteTensor data' used 32 bytes with alignment "
                            "overhead (requested 10 bytes for 1 tensors)\n");
    CHECK_STR_CONTAINS(buf, "'Persistent TfLiteTensor quantization data' used 48 bytes with "
                            "alignment overhead (requested 10 bytes for 1 allocations)\n");
    CHECK_STR_CONTAINS(buf, "'Persistent buffer data' used 64 bytes");
    CHECK_STR_CONTAINS(buf, "'TfLiteTensor variable buffer data' used 80 bytes");
    CHECK_STR_CONTAINS(buf, "for 1 OpData structs)\n");
    CHECK_STR_CONTAINS(buf, "'Resource variable data' used 128 bytes with alignment overhead "
                            "(requested 10 bytes for 1 resource variables)\n[picolite]");
}

static void truncates_and_returns_full_length(void)
{
    pl_recording rec = sample();
    char small[40];
    size_t n = pl_recording_format(&rec, small, sizeof small);
    CHECK_EQ(n, strlen(expected));
    CHECK_EQ(strlen(small), sizeof small - 1);
    CHECK(strncmp(small, expected, sizeof small - 1) == 0);
    CHECK_EQ(pl_recording_format(&rec, NULL, 0), strlen(expected));
}

static void truncation_at_every_length_is_a_prefix(void)
{
    pl_recording rec = sample();
    char buf[sizeof expected];
    for (size_t cap = 1; cap <= sizeof expected; cap++) {
        memset(buf, 'x', sizeof buf);
        CHECK_EQ(pl_recording_format(&rec, buf, cap), strlen(expected));
        CHECK_EQ(strlen(buf), cap - 1);
        CHECK(strncmp(buf, expected, cap - 1) == 0);
    }
}

static void names_the_planner(void)
{
    pl_recording rec = sample();
    rec.planner = PL_PLANNER_OPTIMAL;
    char buf[2048];
    pl_recording_format(&rec, buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "[picolite] planner optimal, lower bound 7232 bytes\n");
}

int main(void)
{
    RUN(category_names_are_tflms);
    RUN(formats_tflm_text_and_skips_empty_categories);
    RUN(formats_tflms_own_lines_for_tflms_figures);
    RUN(names_every_category_with_its_noun);
    RUN(truncates_and_returns_full_length);
    RUN(truncation_at_every_length_is_a_prefix);
    RUN(names_the_planner);
    return HARNESS_END();
}
