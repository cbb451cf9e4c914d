/* recording.c - TFLM's RecordingMicroAllocator report: category names and the text format
** (TFLM's own lines for a TFLM target's figures; the same words headed [picolite] for
** picolite's own arena).
**
** The first lines are TFLM's wording (recording_micro_allocator.cc, PrintAllocations), so
** a picolite report can be diffed against a TFLM log; a category appears only when it used
** or requested bytes, as in TFLM. picolite's own figures follow on lines of their own. */
#include "picolite/pl_interp.h"

#include <stdarg.h>

#include "base/fmt.h"

static const char *const category_names[PL_CAT_COUNT] = {
    "TfLiteEvalTensor data",
    "Persistent TfLiteTensor data",
    "Persistent TfLiteTensor quantization data",
    "Persistent buffer data",
    "TfLiteTensor variable buffer data",
    "NodeAndRegistration struct",
    "Operator runtime data",
    "Resource variable data",
};

/* What TFLM calls the counted things of each category. */
static const char *const category_nouns[PL_CAT_COUNT] = {
    "allocations", "tensors", "allocations", "allocations", "allocations",
    "NodeAndRegistration structs", "OpData structs", "resource variables",
};

const char *pl_category_name(pl_category cat)
{
    return (unsigned)cat < PL_CAT_COUNT ? category_names[cat] : "unknown";
}

typedef struct writer {
    char *buf;
    size_t cap;
    size_t len; /* the length the whole text needs, even past cap */
} writer;

static void line(writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = w->len < w->cap ? w->cap - w->len : 0;
    w->len += pl_fmt_v(room > 0 ? w->buf + w->len : NULL, room, fmt, ap);
    va_end(ap);
}

/* TFLM's lines (total, head, tail, each category used) headed label. */
static void tflm_lines(writer *w, const pl_recording *rec, const char *label)
{
    line(w, "%s Arena allocation total %zu bytes\n", label, rec->total);
    line(w, "%s Arena allocation head %zu bytes\n", label, rec->head);
    line(w, "%s Arena allocation tail %zu bytes\n", label, rec->tail);
    for (int c = 0; c < PL_CAT_COUNT; c++) {
        const pl_recording_entry *e = &rec->cat[c];
        if (e->used == 0 && e->requested == 0)
            continue;
        line(w, "%s '%s' used %zu bytes with alignment overhead (requested %zu bytes for %u "
                "%s)\n", label, category_names[c], e->used, e->requested, e->count,
             category_nouns[c]);
    }
}

size_t pl_recording_format(const pl_recording *rec, char *buf, size_t cap)
{
    writer w = {buf, cap, 0};
    if (cap > 0)
        buf[0] = '\0';
    tflm_lines(&w, rec, "[picolite]"); /* picolite's own figures, in TFLM's words */
    const char *planner = pl_planner_name(rec->planner);
    line(&w, "[picolite] head: %zu bytes tensors + %zu bytes scratch\n", rec->head_tensors,
         rec->head_scratch);
    line(&w, "[picolite] planner %s, lower bound %llu bytes\n",
         planner != NULL ? planner : "unknown", (unsigned long long)rec->lower_bound);
    line(&w, "[picolite] temp high-water %zu bytes\n", rec->temp_high_water);
    line(&w, "[picolite] arena peak %zu bytes (the exact size needed)\n", rec->peak);
    return w.len;
}

size_t pl_recording_format_tflm(const pl_recording *rec, char *buf, size_t cap)
{
    writer w = {buf, cap, 0};
    if (cap > 0)
        buf[0] = '\0';
    tflm_lines(&w, rec, "[RecordingMicroAllocator]");
    return w.len;
}
